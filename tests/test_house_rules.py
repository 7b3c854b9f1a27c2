"""House rules a test can say (issue 25 item 7): no product module over 450 lines, no function over 60.

Boilerplate tables aside: a CLI `register` function is one `add_argument` per option (a table of the
options, read top to bottom). Every other exception is named below with its reason; an exception that no
longer applies fails too, so the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60

BEING_SPLIT = "over the limit before issue 25 and not split yet: listed so that no new one joins silently"
MODULE_EXCEPTIONS: dict[str, str] = {}
FUNCTION_EXCEPTIONS: dict[str, str] = {}


def product_files() -> list[Path]:
    return sorted([*(REPO / "infact").rglob("*.py"), *(REPO / "pages").glob("*.py"), REPO / "streamlit_app.py"])


def long_modules() -> dict[str, int]:
    out = {}
    for path in product_files():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_MODULE_LINES:
            out[str(path.relative_to(REPO))] = n
    return out


def long_functions() -> dict[str, int]:
    out = {}
    for path in product_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    out[f"{path.relative_to(REPO)}:{node.name}"] = n
    return out


def test_no_module_over_450_lines():
    found = {m: n for m, n in long_modules().items() if m not in MODULE_EXCEPTIONS}
    assert not found, f"modules over {MAX_MODULE_LINES} lines (split them by what they do): {found}"


def test_no_function_over_60_lines():
    found = {f: n for f, n in long_functions().items() if f not in FUNCTION_EXCEPTIONS}
    assert not found, f"functions over {MAX_FUNCTION_LINES} lines (split them): {found}"


def test_every_exception_still_applies():
    stale = sorted(set(MODULE_EXCEPTIONS) - set(long_modules())) + sorted(
        set(FUNCTION_EXCEPTIONS) - set(long_functions())
    )
    assert not stale, f"no longer over the limit: remove them from the exceptions in tests/test_house_rules.py: {stale}"


def test_bench_imports_no_test_module():
    """The simulators bench/ and tests/ share live in simulations/ (outside infact/ and tests/)."""
    found = []
    for path in sorted((REPO / "bench").glob("*.py")):
        rel = str(path.relative_to(REPO))
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            found += [f"{rel}:{node.lineno}: {n}" for n in names if n.split(".")[0] == "tests"]
        found += [f"{rel}: runs -m tests.…" for _ in range(text.count('"-m", "tests.'))]
    assert not found, "bench/ imports test modules (share them through simulations/):\n" + "\n".join(found)
