"""The package and its requirement files agree: requirements.txt (what Streamlit Community Cloud
installs) is pyproject.toml's dependencies plus the `postgres` extra, requirements-dev.txt adds what
the `dev` extra adds, setuptools packages only infact*, and every data file infact/ reads ships."""

from __future__ import annotations

import fnmatch
import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def requirement_lines(path: Path) -> list[str]:
    """The requirements of a pip requirements file: comments, blank lines and `-r other.txt` left out."""
    lines = [re.sub(r"(^|\s)#.*", "", line).strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("-")]


def by_name(requirements: list[str], where: str) -> dict[str, Requirement]:
    """{canonical name: requirement}; a name listed twice is an error (two specifiers for one package)."""
    table: dict[str, Requirement] = {}
    for text in requirements:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name not in table, f"{where}: {req.name} is listed twice"
        table[name] = req
    return table


def differences(left: dict[str, Requirement], right: dict[str, Requirement], names: tuple[str, str]) -> list[str]:
    """What differs between two requirement tables: a missing package, other specifiers or extras."""
    found = [f"{req} is in {names[0]} but not in {names[1]}" for n, req in left.items() if n not in right]
    found += [f"{req} is in {names[1]} but not in {names[0]}" for n, req in right.items() if n not in left]
    for name in sorted(left.keys() & right.keys()):
        a, b = left[name], right[name]
        if a.specifier != b.specifier or a.extras != b.extras or a.marker != b.marker:
            found.append(f"{names[0]} says {a}, {names[1]} says {b}")
    return found


def own_extras(requirements: list[str]) -> tuple[list[str], set[str]]:
    """Requirements without the `infact[...]` self-references, and the extras those pull in."""
    own = [Requirement(r) for r in requirements if canonicalize_name(Requirement(r).name) == "infact"]
    return [r for r in requirements if canonicalize_name(Requirement(r).name) != "infact"], {
        e for r in own for e in r.extras
    }


def test_requirements_txt_is_the_dependencies_plus_the_postgres_extra():
    runtime = by_name(requirement_lines(REPO / "requirements.txt"), "requirements.txt")
    package = by_name(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["postgres"], "pyproject.toml")
    assert differences(runtime, package, ("requirements.txt", "pyproject.toml")) == []


def test_the_postgres_extra_holds_the_database_drivers_and_the_core_does_not():
    core = {canonicalize_name(Requirement(r).name) for r in PROJECT["dependencies"]}
    postgres = {canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["postgres"]}
    assert postgres == {"sqlalchemy", "psycopg"} and not core & postgres


def test_requirements_dev_txt_adds_what_the_dev_extra_adds():
    dev_file = REPO / "requirements-dev.txt"
    assert "-r requirements.txt" in dev_file.read_text(encoding="utf-8"), "requirements-dev.txt must include runtime"
    dev, extras = own_extras(PROJECT["optional-dependencies"]["dev"])
    assert "postgres" in extras, "the dev extra must pull in infact[postgres]: the suite tests the SQL stores"
    added = by_name(requirement_lines(dev_file), "requirements-dev.txt")
    assert differences(added, by_name(dev, "pyproject.toml [dev]"), ("requirements-dev.txt", "the dev extra")) == []


def test_setuptools_packages_only_the_library():
    from setuptools import find_packages

    find = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    packages = find_packages(str(REPO), include=find["include"], exclude=find.get("exclude", ()))
    assert "infact" in packages and "infact.cli" in packages
    assert [p for p in packages if p.split(".")[0] != "infact"] == []
    on_disk = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "infact").rglob("__init__.py")}
    assert on_disk <= set(packages), f"packages setuptools would leave out: {sorted(on_disk - set(packages))}"


def test_every_data_file_under_infact_is_package_data():
    patterns = PYPROJECT["tool"]["setuptools"].get("package-data", {})
    missing = []
    for path in (REPO / "infact").rglob("*"):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        # A pattern of the folder's own package, or of a package above it with the path below it
        # ("infact.text" = ["locales/*/LC_MESSAGES/*.po"], as setuptools reads it).
        parts = path.relative_to(REPO).parts
        matched = any(
            fnmatch.fnmatch("/".join(parts[i:]), g)
            for i in range(1, len(parts))
            for g in patterns.get(".".join(parts[:i]), []) + patterns.get("*", [])
        )
        if not matched:
            missing.append(str(path.relative_to(REPO)))
    assert missing == [], f"add to [tool.setuptools.package-data] in pyproject.toml: {missing}"


def test_the_infact_command_names_a_real_function():
    module, _, function = PROJECT["scripts"]["infact"].partition(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_a_database_url_without_the_postgres_extra_says_what_to_install(tmp_path):
    # A fresh interpreter in which SQLAlchemy cannot be imported: what a TinyDB-only install looks like.
    code = (
        "import sys; sys.modules['sqlalchemy'] = None\n"
        "from infact.cli.main import main\n"
        "sys.exit(main(['export', '--study', 'data/demo', '--db', 'postgresql://user:secret@localhost/db', "
        f"'--out', {str(tmp_path / 'out')!r}]))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "pip install 'infact[postgres]'" in run.stderr and "secret" not in run.stderr
