"""Shared fixtures. Storage tests run unchanged against every backend."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from infact.storage import MemoryStorage, TinyDBStorage

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
DEMO_STUDY = REPO / "data" / "demo"


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: real-browser end-to-end tests (Chromium + Playwright)")
    config.addinivalue_line("markers", "postgres: needs the throw-away PostgreSQL server")


def _postgres_url() -> str | None:
    return os.environ.get("INFACT_TEST_PG_URL")


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
        url = _postgres_url()
        if not url:
            if os.environ.get("CI"):
                pytest.fail("INFACT_TEST_PG_URL is not set: scripts/test.sh starts PostgreSQL and sets it")
            pytest.skip("no PostgreSQL server: run the tests through scripts/test.sh")
        from infact.stores.sql import SQLStorage

        # A fresh schema per test keeps tests independent on one server.
        return SQLStorage(url, schema=f"t_{uuid.uuid4().hex[:12]}", drop_on_close=True)
    raise ValueError(kind)


STORAGE_KINDS = ["memory", "tinydb", "postgres"]


@pytest.fixture(params=STORAGE_KINDS)
def storage(request, tmp_path):
    store = make_storage(request.param, tmp_path)
    yield store
    store.close()
