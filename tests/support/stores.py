"""The stores the tests run against: every backend for the storage tests, PostgreSQL in its own schema."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from infact.stores.memory import MemoryStorage
from infact.stores.tinydb.store import TinyDBStorage


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


def make_storage(kind: str, tmp_path: Path):
    if kind == "memory":
        return MemoryStorage()
    if kind == "tinydb":
        return TinyDBStorage(tmp_path / "store")
    if kind == "postgres":
        from infact.stores.sql.store import SQLStorage

        return SQLStorage(postgres_url(), schema=fresh_schema(), drop_on_close=True)
    raise ValueError(kind)


# The storage matrix. PostgreSQL's runs are `slow` (a fresh schema each): the fast subset checks every behaviour on
# memory and TinyDB, the full run on all three; tests/stores/test_sql*.py test PostgreSQL itself in both.
STORAGE_KINDS = ["memory", "tinydb", pytest.param("postgres", marks=pytest.mark.slow)]
