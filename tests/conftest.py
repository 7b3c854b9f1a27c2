"""Shared fixtures (and pytest hooks) only; helpers live in tests/support/.

Storage tests run unchanged against every backend (`storage`, tests/support/stores.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import infact.kinds  # noqa: F401  (registers the built-in kinds, as the app and the CLI do at start)
from simulations.chat_stub import serve
from tests.support.paths import SHARED_DATA
from tests.support.schedule import FileGroups, longest_first
from tests.support.stores import STORAGE_KINDS, fresh_schema, make_storage, postgres_url


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: real-browser end-to-end tests (Chromium + Playwright)")
    config.addinivalue_line("markers", "postgres: needs the throw-away PostgreSQL server")
    if config.pluginmanager.hasplugin("xdist"):
        # xdist hands out the units of work (files) in collection order, which longest_first set, not by their
        # number of tests (its default: a long file of three tests went last, the other worker idle)
        config.option.loadscopereorder = False


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


@pytest.fixture(params=STORAGE_KINDS)
def storage(request, tmp_path):
    store = make_storage(request.param, tmp_path)
    yield store
    store.close()


# ---------------------------------------------------------------- stub systems (tests/support/chat_stubs.py)


@pytest.fixture(scope="module")
def normal_server():
    with serve("normal") as server:
        yield server


@pytest.fixture(scope="module")
def slow_server():
    with serve("slow", delay_s=1.5) as server:
        yield server


@pytest.fixture(scope="module")
def error_server():
    with serve("error") as server:
        yield server


@pytest.fixture(scope="module")
def leak_server():
    with serve("leak") as server:
        yield server


@pytest.fixture(scope="module")
def malformed_server():
    with serve("malformed") as server:
        yield server


@pytest.fixture
def refused_url() -> str:
    """A port nothing listens on: bound, then closed."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/chat"


# ---------------------------------------------------------------- importers


@pytest.fixture
def import_target(tmp_path) -> Path:
    """An existing study folder for the importers, whose study.toml (the researcher's) must be kept."""
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "study.toml").write_text("# researcher's config\n")
    return folder


@pytest.hookimpl(optionalhook=True)  # -p no:xdist: no such hook
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` (scripts/test.sh): each test file is one unit of work, and every real-browser test is
    in one (tests/support/schedule.py, where the reason is)."""
    if config.getvalue("dist") == "loadgroup":
        return FileGroups(config, log)
    return None


@pytest.hookimpl(trylast=True)  # after -m/-k have deselected: the order is that of the tests that run
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, the files that take longest go first (tests/support/schedule.py), so the last file
    to end does not leave the other worker idle."""
    if os.environ.get("PYTEST_XDIST_WORKER"):  # each worker collects, in the same order (xdist checks)
        items[:] = longest_first(items, Path(__file__).parent)
