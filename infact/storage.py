"""Where answers go: the storage protocol every backend implements, and `open_storage()` to pick one.

The protocol is append-only. A record is a flat JSON object with a unique `key`
(see docs/data-model.md); appending a key that is already stored does nothing and
returns False, so a double click or a Streamlit rerun stores an answer once.

The backends live in infact/stores/ and pass the same tests (tests/stores/test_storage.py):
  stores/memory.py  in-process, for tests and previews
  stores/tinydb/    the embedded default: a directory of per-participant TinyDB files
  stores/sql/       PostgreSQL (hosted studies; SQLite works too)
They implement `Storage` by shape (it is a Protocol) and take their shared rules from
infact/stores/records.py, never from this module: this module imports them, so stores/ never
imports it back (tests/test_layers.py). What works on any store through this module sits beside
it (infact/migrate.py); every part of INFACT above the stores imports `Storage` and `open_storage` from here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any, Protocol

from infact.errors import Problem
from infact.stores.memory import MemoryStorage
from infact.stores.records import REQUIRED_FIELDS, StorageError, check_record
from infact.stores.tinydb.store import TinyDBStorage

__all__ = [
    "Storage",
    "open_storage",
    "append_all",
    # the backends' shared record rules and the two in-process backends, imported from here by callers
    "StorageError",
    "check_record",
    "REQUIRED_FIELDS",
    "MemoryStorage",
    "TinyDBStorage",
]


class Storage(Protocol):
    """What the app, the bots, the exports and the dashboard need from a store."""

    def append(self, record: dict) -> bool:
        """Store `record` durably; False if its `key` was already stored."""

    def records(
        self, *, study: str | None = None, participant: str | None = None, kind: str | None = None
    ) -> list[dict]:
        """Stored records matching every given filter, in insertion order per participant."""

    def arrival_by_platform_id(self, study: str, platform_id: str) -> dict | None:
        """The first stored non-preview `arrival` record of `study` whose `platform_id`
        equals this one, letter case ignored; None if there is none. Indexed in every
        backend: it costs the same with 10 or 10,000 participants stored."""

    def changes(self, cursor: Any = None) -> tuple[list[dict], Any]:
        """Records stored since `cursor` (None: all) and the cursor to pass next time.

        Cursors are opaque and belong to the store that made them. Removals by
        `purge` are not reported; records appended again after a purge are.
        """

    def lock(self) -> Any:
        """Context manager: a critical section shared by every thread and process using this store."""

    def purge(self, participant: str) -> int:
        """Delete every record of one participant (withdrawal with deletion); returns how many.

        The only operation that removes data.
        """

    def problems(self) -> list[dict]:
        """Stored files the store could not read and set aside (never deleted), for the
        researcher: each has `file`, `reason` and `moved_to`. Empty for databases."""

    def close(self) -> None: ...


def open_storage(target: str | os.PathLike) -> Storage:
    """Open a store from a path (TinyDB directory), `memory://`, or a SQL URL."""
    text = str(target)
    if text == "memory://":
        return MemoryStorage()
    if re.match(r"^[a-z][a-z0-9+]*://", text) and not text.startswith("tinydb://"):
        try:
            from infact.stores.sql.store import SQLStorage  # imported lazily: SQLAlchemy is only needed for SQL stores
        except ModuleNotFoundError as exc:
            if exc.name not in ("sqlalchemy", "psycopg"):
                raise
            where = text.split("://")[0] + "://…"  # never the URL itself: it may hold a password
            raise StorageError(
                Problem(
                    where,
                    f"a database store needs {exc.name}, which is not installed: "
                    "pip install 'infact[postgres]' (or -r requirements.txt)",
                )
            ) from None
        return SQLStorage(text)
    if text.startswith("tinydb://"):
        text = text[len("tinydb://") :]
    return TinyDBStorage(text)


def append_all(storage: Storage, records: Iterable[dict]) -> int:
    """Append many records; returns how many were new."""
    return sum(1 for r in records if storage.append(r))
