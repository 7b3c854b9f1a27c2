"""The tests' own layout (issue 18, point 6): helpers live in tests/support/, conftest files hold
fixtures and pytest hooks only, and no test module imports another test module.

Imports are read with ast, function-local ones included. A test module is any `test_*.py` or
`conftest.py` under tests/; `tests.support` (and the data under tests/fixtures/) is what they share.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

from tests.support.paths import REPO

TESTS = REPO / "tests"
SHARED = {"support", "fixtures"}  # tests/support: the helpers; tests/fixtures: data files


def python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "fixtures" not in p.relative_to(TESTS).parts)


def is_test_module(path: Path) -> bool:
    return path.name == "conftest.py" or path.name.startswith("test_")


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted name) of every import, anywhere in the module; `from a import b` gives a and a.b."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            out.append((node.lineno, "." * node.level + (node.module or "")))
    return out


def names_a_test_module(name: str) -> bool:
    """`test_app`, `conftest`, `tests.test_app`, `tests.ui.test_app`, `tests.e2e.conftest`, `studies`
    (a bare tests/ module name, as the old rootdir-on-sys.path layout allowed) or a relative import."""
    if name.startswith("."):
        return True
    parts = name.split(".")
    if any(p == "conftest" or p.startswith("test_") for p in parts):
        return True
    if parts[0] == "tests":
        return len(parts) > 1 and parts[1] != "support"
    return parts[0] in _local_names()


@functools.cache
def _local_names() -> set[str]:
    """Names that only mean something with tests/ (or a folder of it) on sys.path: its folders and files."""
    return ({p.stem for p in python_files()} | {p.name for p in TESTS.rglob("*") if p.is_dir()}) - {"__pycache__"}


def test_no_test_module_imports_another_test_module():
    bad = []
    for path in python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, name in imported_modules(tree):
            if names_a_test_module(name):
                bad.append(f"{path.relative_to(REPO)}:{line}: imports {name}")
    assert not bad, "put shared helpers in tests/support/ and import them from there:\n" + "\n".join(bad)


def test_helpers_are_modules_of_tests_support():
    """Outside tests/support/ every Python file is a test module (test_*.py) or a conftest.py."""
    stray = [
        str(p.relative_to(REPO))
        for p in python_files()
        if not is_test_module(p) and p.relative_to(TESTS).parts[0] not in SHARED
    ]
    assert not stray, f"helper modules outside tests/support/: {stray}"


def _is_fixture(node: ast.FunctionDef) -> bool:
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if ast.unparse(target) in ("pytest.fixture", "fixture"):
            return True
    return False


def test_conftest_files_hold_fixtures_and_hooks_only():
    """A conftest defines fixtures and `pytest_*` hooks; anything a test calls lives in tests/support/
    (a module named `conftest` cannot be imported reliably: there is one per folder)."""
    bad = []
    for path in sorted(TESTS.rglob("conftest.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in tree.body:
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not (_is_fixture(node) or node.name.startswith("pytest_")):
                    bad.append(f"{where}: def {node.name} is neither a fixture nor a pytest hook")
            elif isinstance(node, ast.ClassDef):
                bad.append(f"{where}: class {node.name}")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [ast.unparse(t) for t in targets]
                if not set(names) <= {"pytest_plugins", "pytestmark"}:
                    bad.append(f"{where}: {', '.join(names)} = ... (a constant belongs in tests/support/)")
    assert not bad, "conftest files hold fixtures and hooks only:\n" + "\n".join(bad)


def test_files_of_one_name_in_two_folders_cannot_collide():
    """Test folders are not packages (no __init__.py): pytest imports each file by its path."""
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--import-mode=importlib" in options["addopts"].split()
    packages = [
        str(p.relative_to(REPO)) for p in TESTS.rglob("__init__.py") if p.relative_to(TESTS).parts[0] != "support"
    ]
    assert not packages, f"test folders are not packages under --import-mode=importlib: {packages}"


def test_the_scanner_sees_the_old_spellings():
    """The check itself: every way the old layout imported a test module is caught."""
    for name in (
        "test_app",
        "tests.test_app",
        "tests.test_funnel.START",
        "tests.e2e.conftest",
        "conftest",
        "tests.studies",
        ".studies",
        "tests.ui.test_app.open_app",
        "studies",
        "paths",
        "support.app",
    ):
        assert names_a_test_module(name), name
    for name in ("tests.support.app", "tests.support.studies.make_study", "infact.study.loader", "pytest"):
        assert not names_a_test_module(name), name


def test_test_folders_mirror_the_packages():
    """tests/<name>/ holds the tests of infact/<name>/ (ui/: the pages under AppTest); besides those only
    the helpers (support), the data (fixtures) and the browser tests (e2e)."""
    packages = {p.name for p in (REPO / "infact").iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders - packages <= SHARED | {"e2e"}, f"no package infact/{sorted(folders - packages - SHARED - {'e2e'})}"


DATA_FOLDERS = {"data", "__pycache__"}


def mirrored_folders() -> list[tuple[Path, Path]]:
    """(tests/<a>/<b>…, infact/<a>/<b>…) for every test folder under a mirrored package, at every depth."""
    out, todo = [], [(TESTS / p.name, REPO / "infact" / p.name) for p in (REPO / "infact").iterdir()]
    while todo:
        tests, package = todo.pop()
        if not tests.is_dir() or not (package / "__init__.py").is_file():
            continue
        out.append((tests, package))
        todo += [(d, package / d.name) for d in tests.iterdir() if d.is_dir() and d.name not in DATA_FOLDERS]
    return out


def test_test_subfolders_mirror_the_subpackages():
    """tests/results/ranking/ holds the tests of infact/results/ranking/, at every depth; and a test folder split
    into subfolders keeps beside them only the tests of its package's own modules (a `test_analyze.py` in tests/results/
    for infact/results/analyze.py), not tests of a subpackage left flat."""
    bad = []
    for tests, package in mirrored_folders():
        subs = [d for d in tests.iterdir() if d.is_dir() and d.name not in DATA_FOLDERS]
        bad += [
            f"{d.relative_to(REPO)}: no package {(package / d.name).relative_to(REPO)}"
            for d in subs
            if not (package / d.name / "__init__.py").is_file()
        ]
        if not subs:
            continue
        modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
        for f in tests.glob("test_*.py"):
            if not any(f.stem == f"test_{m}" or f.stem.startswith(f"test_{m}_") for m in modules):
                bad.append(
                    f"{f.relative_to(REPO)}: beside subfolders, but no module {package.relative_to(REPO)}/"
                    f"{f.stem.removeprefix('test_')}.py: move it into the subfolder of the code it tests"
                )
    assert not bad, "test folders mirror the packages:\n" + "\n".join(bad)
