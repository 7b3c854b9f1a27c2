"""Shared fixtures. Storage tests run unchanged against every backend."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from infact.stores.memory import MemoryStorage
from infact.stores.tinydb.store import TinyDBStorage

from paths import SHARED_DATA


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: real-browser end-to-end tests (Chromium + Playwright)")
    config.addinivalue_line("markers", "postgres: needs the throw-away PostgreSQL server")


def postgres_url() -> str:
    """The throw-away server's URL (scripts/pg_test_server.sh sets INFACT_TEST_PG_URL).

    Without it a test skips locally and fails when CI is set: the one place that decides."""
    url = os.environ.get("INFACT_TEST_PG_URL")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("INFACT_TEST_PG_URL is not set: scripts/test.sh starts PostgreSQL and sets it")
        pytest.skip("no PostgreSQL server: run the tests through scripts/test.sh")
    return url


def fresh_schema() -> str:
    """A new schema name: one per test keeps tests independent on one server."""
    return f"t_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def pg_url() -> str:
    return postgres_url()


@pytest.fixture
def schema() -> str:
    return fresh_schema()


@pytest.fixture
def pg(pg_url, schema):
    """A PostgreSQL store in its own schema, dropped afterwards."""
    from infact.stores.sql.store import SQLStorage

    store = SQLStorage(pg_url, schema=schema, drop_on_close=True)
    yield store
    store.close()


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


def make_storage(kind: str, tmp_path: Path):
    if kind == "memory":
        return MemoryStorage()
    if kind == "tinydb":
        return TinyDBStorage(tmp_path / "store")
    if kind == "postgres":
        from infact.stores.sql.store import SQLStorage

        return SQLStorage(postgres_url(), schema=fresh_schema(), drop_on_close=True)
    raise ValueError(kind)


STORAGE_KINDS = ["memory", "tinydb", "postgres"]


@pytest.fixture(params=STORAGE_KINDS)
def storage(request, tmp_path):
    store = make_storage(request.param, tmp_path)
    yield store
    store.close()


# ---------------------------------------------------------------- importers


@pytest.fixture
def import_target(tmp_path) -> Path:
    """An existing study folder for the importers, whose study.toml (the researcher's) must be kept."""
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "study.toml").write_text("# researcher's config\n")
    return folder


def pytest_collection_modifyitems(config, items):
    """Groups for `pytest -n 2 --dist loadgroup` (scripts/test.sh): every real-browser test in one
    group, so browsers never run two modules at once, and every other file as its own group, so a
    module's fixtures (bot-played stores, servers) are built once, as in a serial run."""
    e2e = Path(__file__).parent / "e2e"
    for item in items:
        path = Path(str(item.fspath))
        item.add_marker(pytest.mark.xdist_group("browser" if e2e in path.parents else path.name))
