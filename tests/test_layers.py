"""The house in layers (issue 18): no import points up, none closes a circle.

An AST test (not import-linter): it also covers `pages/` and `streamlit_app.py`, which are not
packages, and it reads every import statement — inside functions and under `if TYPE_CHECKING:`
too, since a lazy import only hides an upward call and an annotation-only import still ties the
lower module to the higher one's shape (a lower layer declares a small Protocol instead).

LAYERS is the one declared order, from the bottom. Each layer lists its parts bottom-up as well:
a part may import any part listed before it (in its own layer or a lower one), never one after it.
A module belongs to the longest prefix listed (`infact.participation.steps` before
`infact.participation`).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

LAYERS: list[tuple[str, list[str]]] = [
    (
        "foundations",
        [
            "infact.errors",
            "infact.values",
            "infact.fileio",
            "infact.table_schema",
            "infact.text",
            "infact.stats",
            "infact.hookspecs",
        ],
    ),
    ("study", ["infact.deployment", "infact.study"]),
    # the backends, then the protocol they implement with `open_storage` that picks one, then what works on any
    # store through it
    ("stores", ["infact.stores", "infact.storage", "infact.migrate"]),
    (
        "run",
        [
            "infact.scheduling",
            "infact.llm",
            "infact.chat",
            "infact.participation.steps",
            "infact.state",
            "infact.participation",
            "infact.access",
        ],
    ),
    # results has an order of its own: the tables and their schemas at the bottom, the export that collects
    # every table above the quality checks and annotations it joins, then each analysis, the CLI's
    # `analyze` and the dashboard's data on top
    (
        "results",
        [
            "infact.results",
            "infact.results.tables",
            "infact.results.monitoring",
            "infact.results.quality",
            "infact.results.conversations",
            "infact.results.ratings",
            "infact.results.ranking",
            "infact.results.judges",
            "infact.results.crowd",
            "infact.results.kinds",
            "infact.results.export",
            "infact.results.live",
            "infact.results.study_results",
            "infact.results.reports",
            "infact.results.analyze",
            "infact.results.dashboard",
            "infact.importers",
            "infact.builder",
            "infact.prolific",
        ],
    ),
    # each kind's one registration joins its run half (steps) and its results half; the UI resolves its pages
    ("kinds", ["infact.kinds"]),
    ("interfaces", ["infact.ui", "infact.cli", "infact.__main__", "infact", "pages", "streamlit_app"]),
]
# Parts that name one module only, not a folder: `infact` is the package's own __init__, not every module in it
# (a new package would otherwise land silently in the top layer).
EXACT = {"infact"}
FORBIDDEN = {"tests", "bench", "simulations"}  # the product never imports them (they import the product)
ORDER = [part for _, parts in LAYERS for part in parts]
LAYER_OF = {part: layer for layer, parts in LAYERS for part in parts}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def source_files() -> dict[str, Path]:
    files = [*(REPO / "infact").rglob("*.py"), *(REPO / "pages").glob("*.py"), REPO / "streamlit_app.py"]
    return {module_name(p): p for p in files}


@functools.cache
def parsed(path: Path) -> ast.Module:
    """Each file is parsed once per test run (the checks below all walk the same trees)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def imports_of(name: str, path: Path, known: set[str]) -> dict[str, int]:
    """Every project module `name` imports (anywhere in the file), with the line of the first import."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import infact.a.b` names a module's attribute
                target = target.rpartition(".")[0]
            if target and target != name:
                found.setdefault(target, node.lineno)
    return found


def part_of(module: str) -> str:
    best = ""
    for part in ORDER:
        inside = module.startswith(part + ".") and part not in EXACT
        if (module == part or inside) and len(part) > len(best):
            best = part
    if not best:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in tests/test_layers.py")
    return best


def graph() -> dict[str, dict[str, int]]:
    files = source_files()
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def upward_imports() -> list[str]:
    rank = {part: i for i, part in enumerate(ORDER)}
    found = []
    for module, targets in graph().items():
        here = part_of(module)
        for target, line in targets.items():
            there = part_of(target)
            if rank[there] > rank[here]:
                found.append(
                    f"{source_files()[module].relative_to(REPO)}:{line}: {module} ({LAYER_OF[here]}: "
                    f"{here}) imports {target} ({LAYER_OF[there]}: {there}), which is above it"
                )
    return found


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_every_module_is_in_a_layer():
    for module in source_files():
        part_of(module)


def test_no_import_points_up():
    found = upward_imports()
    assert not found, "imports that point up the layers:\n" + "\n".join(found)


def test_no_module_circle_with_annotation_and_local_imports():
    cycle = find_cycle({m: set(t) for m, t in graph().items()})
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def package(module: str) -> str:
    path = source_files()[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0] or module


def test_no_package_circle():
    """Packages (folders) may not import each other both ways either, even through different modules."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        for target in targets:
            a, b = package(module), package(target)
            if a != b and not b.startswith(a + ".") and not a.startswith(b + "."):
                edges.setdefault(a, set()).add(b)
    cycle = find_cycle(edges)
    assert cycle is None, "package circle: " + " -> ".join(cycle or [])


def sibling_edges() -> dict[str, set[str]]:
    """Each import as an edge between the two entries of the lowest folder holding both: a module directly in
    it (storage.py) or a whole subpackage (participation/, stores/). `infact.storage` -> `infact.stores.memory` and
    `infact.stores.feed` -> `infact.storage` would be two ways between the same two siblings (storage.py, stores/)."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        here = module.split(".")
        for target in targets:
            there = target.split(".")
            common = 0
            while common < min(len(here), len(there)) and here[common] == there[common]:
                common += 1
            if common == len(here) or common == len(there):  # a package and its own module or child
                continue
            a, b = ".".join(here[: common + 1]), ".".join(there[: common + 1])
            edges.setdefault(a, set()).add(b)
    return edges


def test_no_circle_between_siblings_or_top_level_modules():
    cycle = find_cycle(sibling_edges())
    assert cycle is None, "circle between the modules and subpackages of one folder: " + " -> ".join(cycle or [])


# A folder's own modules and a child folder importing each other (parent/child). The ones below predate the
# test: the parent holds both the records the backends build on and the facade that picks a backend.
PARENT_CHILD_KNOWN = {
    (
        "infact.stores",
        "infact.stores.sql",
    ): "stores/ holds both the record helpers sql/ uses and config.py that picks it",
    ("infact.stores", "infact.stores.tinydb"): "stores/ holds both the record helpers tinydb/ uses and live.py over it",
    ("infact.study", "infact.study.annotation"): "study/ holds both dialogs.py that annotation/ reads and config.py",
}


def test_no_parent_child_circle():
    """A folder's modules and a child folder's may not import each other both ways (except PARENT_CHILD_KNOWN)."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        for target in targets:
            a, b = package(module), package(target)
            # infact/ itself: its modules (errors.py, storage.py…) and packages are siblings (the test above)
            if a != b and "infact" not in (a, b) and (b.startswith(a + ".") or a.startswith(b + ".")):
                edges.setdefault(a, set()).add(b)
    found = sorted(
        (a, b)
        for a, bs in edges.items()
        for b in bs
        if a < b and a in edges.get(b, ()) and (a, b) not in PARENT_CHILD_KNOWN and (b, a) not in PARENT_CHILD_KNOWN
    )
    assert not found, "a folder and its child folder import each other: " + ", ".join(f"{a} <-> {b}" for a, b in found)


def test_no_product_module_imports_tests_or_bench():
    found = []
    for path in source_files().values():
        for node in ast.walk(parsed(path)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [f"{path.relative_to(REPO)}:{node.lineno}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert not found, "the product imports test or bench code:\n" + "\n".join(found)


def test_no_script_bench_or_simulation_imports_tests():
    """scripts/, bench/ and simulations/ stand beside the tests, not on them: a stub a script needs lives in
    simulations/ (issue 39: scripts/prolific_demo.py imported tests.support)."""
    found = []
    for folder in ("scripts", "bench", "simulations"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(parsed(path)):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom) and not node.level
                    else []
                )
                found += [f"{path.relative_to(REPO)}:{node.lineno}: {n}" for n in names if n.split(".")[0] == "tests"]
    assert not found, "move what these need from tests/ to simulations/:\n" + "\n".join(found)


def test_results_has_an_order_of_its_own():
    """Every subpackage and module of infact/results/ has its own place in LAYERS (a new one must be placed)."""
    inside = {
        p.stem if p.suffix else p.name for p in (REPO / "infact" / "results").iterdir() if not p.name.startswith("_")
    }
    missing = sorted(f"infact.results.{n}" for n in inside if f"infact.results.{n}" not in ORDER)
    assert not missing, f"not placed in results' own order (tests/test_layers.py LAYERS): {missing}"


def test_streamlit_only_in_the_interface():
    allowed = ("infact.ui", "pages", "streamlit_app")
    found = []
    for module, path in source_files().items():
        if module.startswith(allowed):
            continue
        for node in ast.walk(parsed(path)):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "streamlit" or n.startswith("streamlit.") for n in names):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not found, "streamlit imported outside infact/ui, pages/ and streamlit_app.py: " + ", ".join(found)


def test_every_package_says_what_it_is_for_and_may_import():
    missing = []
    for init in (REPO / "infact").rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        if len(doc.split()) < 8 or "import" not in doc.lower():
            missing.append(str(init.relative_to(REPO)))
    assert not missing, "package docstrings must say what the package is for and what it may import: " + ", ".join(
        sorted(missing)
    )


@pytest.mark.parametrize(
    "folder",
    [
        "infact",
        *sorted(
            str(p.relative_to(REPO)) for p in (REPO / "infact").rglob("*") if p.is_dir() and p.name != "__pycache__"
        ),
    ],
)
def test_no_folder_holds_more_than_about_twelve_modules(folder):
    modules = [p for p in (REPO / folder).glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= 13, f"{folder} holds {len(modules)} modules: split it by what they do"


def test_no_module_uses_another_modules_private_names():
    """`from infact.x import _name` or `x._name` on an imported INFACT module: make the name public or move it."""
    found = []
    for path in source_files().values():
        tree = parsed(path)
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("infact"):
                for alias in node.names:
                    # `_` is gettext's name for "translate this" (infact/text/catalogue.py), the standard, not private
                    if alias.name.startswith("_") and not alias.name.startswith("__") and alias.name != "_":
                        found.append(f"{path.relative_to(REPO)}:{node.lineno}: from {node.module} import {alias.name}")
                    if f"{node.module}.{alias.name}" in source_files():
                        modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                modules.update(a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("infact"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value.id}.{node.attr}")
        # obj._method(…) on another object whose class lives elsewhere (`flow._record(…)` in a bot): a method
        # this module does not define is another module's private one.
        own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id not in ("self", "cls")
                and node.func.attr.startswith("_")
                and not node.func.attr.startswith("__")
                and node.func.attr not in own
            ):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.func.value.id}.{node.func.attr}(…)")
    assert not found, "private names used across modules:\n" + "\n".join(found)


def top_level_definitions(path: Path) -> set[str]:
    """Names a module defines itself (classes, functions), not the ones it imports."""
    return {n.name for n in parsed(path).body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}


def test_the_design_cards_files_hold_what_they_name():
    """The design card names infact/state.py (a participant's progress, kept in session state) and
    infact/storage.py (the storage protocol the backends implement, and `open_storage`): each defines
    them itself, not a re-export of a module elsewhere (issue 39), and each has its own place in LAYERS."""
    state = top_level_definitions(REPO / "infact" / "state.py")
    assert {"State", "read_state", "Progress", "progress_of", "load", "ProgressCache"} <= state, state
    storage = top_level_definitions(REPO / "infact" / "storage.py")
    assert {"Storage", "open_storage", "append_all"} <= storage, storage
    protocol = next(n for n in parsed(REPO / "infact" / "storage.py").body if getattr(n, "name", "") == "Storage")
    assert [ast.unparse(b) for b in protocol.bases] == ["Protocol"]
    for gone in ("infact/participation/state.py", "infact/stores/store.py", "infact/stores/migrate.py"):
        assert not (REPO / gone).exists(), f"{gone} is back: its content lives at the top of infact/"
    assert (part_of("infact.state"), LAYER_OF["infact.state"]) == ("infact.state", "run")
    assert (part_of("infact.storage"), LAYER_OF["infact.storage"]) == ("infact.storage", "stores")
    # the backends implement the protocol without importing it: storage.py imports them
    imports = graph()
    assert not [m for m in imports if m.startswith("infact.stores.") and "infact.storage" in imports[m]]
    assert {"infact.stores.memory", "infact.stores.tinydb.store"} <= set(imports["infact.storage"])
