"""Set-up on a fresh machine: the test command, its virtualenv, apt-get and the dependencies.

The full proof is `.ci/run` on a machine whose python3 is Debian's own; these tests pin
what makes that work, so it cannot silently regress.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RUNTIME_CODE = [
    REPO / "streamlit_app.py",
    *sorted((REPO / "pages").glob("*.py")),
    *sorted((REPO / "infact").rglob("*.py")),
]
# Imported directly but guaranteed by a declared package (same project, exact pin).
# Packages a declared requirement depends on and defines its API with: pydantic's Field constraints are
# annotated_types objects (Ge, MaxLen, …), read by the study builder's form.
IMPLIED = {"pydantic_core": "pydantic", "annotated_types": "pydantic"}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.add(norm(re.split(r"[\s\[<>=!~;]", line, maxsplit=1)[0]))
    return names


def top_level_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_pytest_runs_in_the_project_virtualenv_when_started_by_test_sh():
    venv = os.environ.get("INFACT_TEST_VENV")
    if not venv:
        if os.environ.get("CI"):
            pytest.fail("CI must run the tests through scripts/test.sh (INFACT_TEST_VENV is not set)")
        pytest.skip("not started by scripts/test.sh")
    assert Path(sys.prefix).resolve() == Path(venv).resolve(), (sys.prefix, venv)
    assert sys.prefix != sys.base_prefix, "not a virtualenv"
    assert sys.version_info >= (3, 11)


def test_every_apt_get_install_skips_recommended_packages():
    lines = [
        (p.name, line.strip())
        for p in [*(REPO / "scripts").glob("*.sh"), REPO / ".ci" / "run"]
        for line in p.read_text(encoding="utf-8").splitlines()
        if re.search(r"apt-get\b.*\binstall\b", line) and not line.lstrip().startswith("#")
    ]
    assert lines, "no apt-get install found: did the scripts move?"
    missing = [f"{name}: {line}" for name, line in lines if "--no-install-recommends" not in line]
    assert not missing, missing


def test_ci_runs_exactly_the_readme_test_command():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "```bash\nbash scripts/test.sh\n```" in readme
    commands = [
        x
        for x in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if x.strip() and not x.startswith(("#", "set ", "cd "))
    ]
    assert commands == ["bash scripts/test.sh"]


def test_readme_documents_the_fast_subset_the_venv_and_the_python_version():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert 'bash scripts/test.sh -m "not e2e"' in readme
    assert "python3 -m venv .venv" in readme and "Python 3.11" in readme


# Imported only inside the function that needs it, with a message naming the extra when it is missing: the
# crowd label models (`analyze/export --label-models`) come with `pip install 'infact[crowd]'` (pyproject.toml).
OPTIONAL_EXTRAS = {"crowdkit": "crowd-kit"}


def test_every_third_party_import_of_the_app_is_a_declared_runtime_dependency():
    declared = requirement_names(REPO / "requirements.txt") | {norm(d) for d in OPTIONAL_EXTRAS.values()}
    distributions = importlib.metadata.packages_distributions()
    undeclared = {}
    for path in RUNTIME_CODE:
        for module in top_level_imports(path) - set(sys.stdlib_module_names) - {"infact", "__future__"}:
            dists = {norm(d) for d in distributions.get(module, [module])}
            if not dists & declared and norm(IMPLIED.get(module, "")) not in declared:
                undeclared.setdefault(module, []).append(str(path.relative_to(REPO)))
    assert not undeclared, f"imported but not in requirements.txt: {undeclared}"


def test_pingouin_is_test_only():
    assert "pingouin" not in requirement_names(REPO / "requirements.txt")
    assert "pingouin" in requirement_names(REPO / "requirements-dev.txt")
    assert not [p for p in RUNTIME_CODE if "pingouin" in top_level_imports(p)]
    assert "numpy" in requirement_names(REPO / "requirements.txt")


def run_test_sh(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """scripts/test.sh up to its first decision; PATH without apt-get/sudo so nothing is installed."""
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "test.sh"), "--collect-only"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), **env},
    )


def test_test_sh_refuses_a_python_older_than_3_11(tmp_path):
    old = tmp_path / "python3.10"
    old.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'Python 3.10.13' && exit 0\nexit 1\n")
    old.chmod(0o755)
    done = run_test_sh(tmp_path, INFACT_PYTHON=str(old), INFACT_VENV=str(tmp_path / "venv"))
    assert done.returncode == 1
    assert "needs Python 3.11 or newer" in done.stderr and "Python 3.10.13" in done.stderr
    assert not (tmp_path / "venv").exists()


def test_test_sh_never_deletes_a_folder_that_is_not_a_virtualenv(tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    done = run_test_sh(tmp_path, INFACT_PYTHON=sys.executable, INFACT_VENV=str(precious))
    assert done.returncode == 1 and "is not a virtualenv" in done.stderr
    assert (precious / "notes.txt").read_text() == "keep me"


def test_test_sh_never_deletes_a_virtualenv_it_did_not_make(tmp_path):
    """The README's first command makes .venv and may be running the app from it: a venv test.sh did not make
    is never deleted, even when its Python no longer works (here: a venv whose interpreter fails)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /nowhere\n")
    (venv / "bin" / "python").write_text("#!/bin/sh\nexit 1\n")
    (venv / "bin" / "python").chmod(0o755)
    (venv / "app-state.txt").write_text("the running app's")
    done = run_test_sh(tmp_path, INFACT_PYTHON=sys.executable, INFACT_VENV=str(venv))
    assert done.returncode == 1 and "this script did not" in done.stderr
    assert (venv / "app-state.txt").read_text() == "the running app's"


def test_readme_says_the_commands_go_in_a_second_terminal_with_the_venv_activated():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("To see the researcher dashboard") :][:600]
    assert "second terminal" in section and ". .venv/bin/activate" in section
