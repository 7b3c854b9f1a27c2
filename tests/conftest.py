"""Shared fixtures (and pytest hooks) only; helpers live in tests/support/.

Storage tests run unchanged against every backend (`storage`, tests/support/stores.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from infact.chat.stub_server import serve
from tests.support import xdist_groups
from tests.support.paths import SHARED_DATA
from tests.support.stores import STORAGE_KINDS, fresh_schema, make_storage, postgres_url


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: real-browser end-to-end tests (Chromium + Playwright)")
    config.addinivalue_line("markers", "postgres: needs the throw-away PostgreSQL server")


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


def pytest_collection_modifyitems(config, items):
    """Groups for `pytest -n 2 --dist loadgroup` (scripts/test.sh): every real-browser test in one group, every
    other file its own (tests/support/xdist_groups.py says why). The marks document the groups; the scheduler
    below is what keeps them."""
    if not config.pluginmanager.hasplugin("xdist"):  # -p no:xdist: no groups, and no unknown-mark warning
        return
    for item in items:
        item.add_marker(pytest.mark.xdist_group(xdist_groups.group_of(Path(str(item.fspath)))))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` by the groups above, read from each test's file (pytest-xdist 3.8 under pytest 9.2 no
    longer sees the marks: tests/support/xdist_groups.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return xdist_groups.file_group_scheduler(config, log)
