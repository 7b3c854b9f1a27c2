"""The README is a front door (short, every detail one link away), and no link in the documents points
at a file that is not there: modules and documents move, links must follow."""

from __future__ import annotations

import re
from pathlib import Path

REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
DOCUMENTS = [REPO / "README.md", REPO / "bench" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 250, (
        "README.md is a front door: move details to docs/ and link them"
    )


def test_every_relative_link_points_at_a_file_that_exists():
    broken = []
    for doc in DOCUMENTS:
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            path = target.split("#", 1)[0]
            if path and not re.match(r"^[a-z]+:", path) and not (doc.parent / path).exists():
                broken.append(f"{doc.relative_to(REPO)} -> {target}")
    assert broken == []


def test_the_readme_pictures_are_committed_pngs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", readme)
    assert {"docs/img/participant.png", "docs/img/dashboard.png"} <= set(pictures)
    for picture in pictures:
        assert (REPO / picture).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture


def test_the_benchmark_figures_carry_no_history():
    text = (REPO / "bench" / "README.md").read_text(encoding="utf-8")
    assert not re.search(r"\bcommit [0-9a-f]{7,40}\b|\(was |; was |\bwas \d", text), (
        "bench/README.md keeps the latest figures only: history belongs in the commit messages"
    )


# A repository path as docstrings and documents write it: `infact/stores/records.py`, tests/results/ranking/.
REPO_PATH = re.compile(r"(?<![\w/.<-])((?:infact|tests|bench|docs|pages|scripts|simulations|deploy)/[\w./-]*[\w/])")


# A module path written from inside the package (`results/dashboard/ranking.py` in an infact/ docstring): it names a
# file under infact/, under the file's own folder or one of its parents. Third-party sources are named as theirs.
PACKAGE_PATH = re.compile(r"(?<![\w/.<:-])((?:[A-Za-z_][\w-]*/)+[A-Za-z_]\w*\.py)\b")
THIRD_PARTY = ("streamlit/", "fastchat/")
TOP_FOLDERS = ("infact", "tests", "bench", "docs", "pages", "scripts", "simulations", "deploy")


def stale_paths(where: Path, text: str) -> set[str]:
    """The repository paths `text` (a docstring or document of `where`) names that exist nowhere."""
    out = {p for p in (m.rstrip(".") for m in REPO_PATH.findall(text)) if not (REPO / p).exists() and "*" not in p}
    bases = [REPO / "infact", *(q for q in where.parents if q == REPO or REPO in q.parents)]
    for path in PACKAGE_PATH.findall(text):
        if path.split("/")[0] in TOP_FOLDERS or path.startswith(THIRD_PARTY):
            continue  # a top-level path is REPO_PATH's
        if not any((base / path).exists() for base in bases):
            out.add(path)
    return out


def _docstrings(path: Path):
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if doc := ast.get_docstring(node, clean=False):
                yield doc


def test_every_path_named_in_a_docstring_or_document_exists():
    """Modules move; the docstrings and documents that name them must follow (the old path of the storage tests in the
    storage docstring named a file that had moved)."""
    code = [REPO / "streamlit_app.py"] + sorted(
        p
        for folder in ("infact", "pages", "bench", "tests", "simulations", "scripts")
        for p in (REPO / folder).rglob("*.py")
    )
    texts = [(p, doc) for p in code for doc in _docstrings(p)]
    texts += [(doc, doc.read_text(encoding="utf-8")) for doc in DOCUMENTS]
    stale = sorted({f"{where.relative_to(REPO)}: {path}" for where, text in texts for path in stale_paths(where, text)})
    assert not stale, "paths that name no file or folder (moved?):\n" + "\n".join(stale)


def test_the_path_check_sees_a_moved_file():
    """The check itself: a docstring naming a moved module fails, from the top or from inside the package."""
    where = REPO / "infact" / "ui" / "rankings.py"
    assert stale_paths(where, "see infact/results/ranking_dashboard.py.") == {"infact/results/ranking_dashboard.py"}
    assert stale_paths(where, "(results/ranking_dashboard.py)") == {"results/ranking_dashboard.py"}
    assert stale_paths(where, "tests/support/browser.py and chat/stub_server.py") == {
        "tests/support/browser.py",
        "chat/stub_server.py",
    }
    assert (
        stale_paths(where, "infact/results/dashboard/ranking.py, results/dashboard/ranking.py, ui/rankings.py") == set()
    )
    assert stale_paths(where, "streamlit/testing/v1/app_test.py") == set()
