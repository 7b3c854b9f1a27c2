"""Where answers go: a small storage protocol and its embedded TinyDB backend.

The protocol is append-only. A record is a flat JSON object with a unique `key`
(see docs/data-model.md); appending a key that is already stored does nothing and
returns False, so a double click or a Streamlit rerun stores an answer once.

The TinyDB backend keeps one small TinyDB file per participant
(`<dir>/shards/<participant>.json`) instead of one big file, because TinyDB
rewrites its whole file on every insert: with one file, saving an answer costs
~400 ms at 20k records; with a shard per participant it costs the same at 20k as
at 100. Every write and re-read of a shard holds that shard's thread lock plus an OS file lock, so the
Streamlit threads of one server and several `streamlit run` processes can share
a store. Each write goes to a temporary file that is fsynced and renamed over the
shard: a crash mid-write leaves the previous complete file, never a truncated one.
There is no write cache: when `append` returns, the record is on disk.

Other backends (PostgreSQL: infact.stores.sql) implement the same protocol and
pass the same tests (tests/test_storage.py).
"""

from __future__ import annotations

import json
import os
import re
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol

from filelock import FileLock
from tinydb import TinyDB
from tinydb.storages import Storage as TinyStorage

from infact.errors import InfactError, Problem
from infact.fileio import atomic_write_text, fsync_dir

REQUIRED_FIELDS = ("key", "study", "participant", "kind")
_SHARD_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,80}$")


class StorageError(InfactError):
    """The store cannot be opened or a record is malformed."""


class Storage(Protocol):
    """What the app, the bots, the exports and the dashboard need from a store."""

    def append(self, record: dict) -> bool:
        """Store `record` durably; False if its `key` was already stored."""

    def records(self, *, study: str | None = None, participant: str | None = None,
                kind: str | None = None) -> list[dict]:
        """Stored records matching every given filter, in insertion order per participant."""

    def changes(self, cursor: Any = None) -> tuple[list[dict], Any]:
        """Records stored since `cursor` (None: all) and the cursor to pass next time."""

    def lock(self) -> Any:
        """Context manager: a critical section shared by every thread and process using this store."""

    def purge(self, participant: str) -> int:
        """Delete every record of one participant (withdrawal with deletion); returns how many.

        The only operation that removes data; `changes()` cursors do not report removals.
        """

    def close(self) -> None: ...


def check_record(record: dict) -> None:
    missing = [f for f in REQUIRED_FIELDS if not record.get(f)]
    if missing:
        raise StorageError(Problem("record", f"missing field(s) {', '.join(missing)}; every record needs {', '.join(REQUIRED_FIELDS)}"))
    if not _SHARD_NAME.match(str(record["participant"])):
        raise StorageError(Problem("record", f"participant token {record['participant']!r} must be 1-80 letters, digits, '-' or '_'", key="participant"))
    try:
        json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StorageError(Problem("record", f"not JSON-serialisable: {exc}", key=str(record.get("key")))) from exc


def _matches(rec: dict, study: str | None, participant: str | None, kind: str | None) -> bool:
    return ((study is None or rec.get("study") == study)
            and (participant is None or rec.get("participant") == participant)
            and (kind is None or rec.get("kind") == kind))


class MemoryStorage:
    """In-process store for tests and previews; thread-safe, not persistent."""

    def __init__(self) -> None:
        self._records: list[dict] = []
        self._keys: set[str] = set()
        self._lock = threading.RLock()

    def append(self, record: dict) -> bool:
        check_record(record)
        with self._lock:
            if record["key"] in self._keys:
                return False
            self._records.append(_copy(record))
            self._keys.add(record["key"])
            return True

    def records(self, *, study=None, participant=None, kind=None) -> list[dict]:
        with self._lock:
            return [_copy(r) for r in self._records if _matches(r, study, participant, kind)]

    def changes(self, cursor=None):
        with self._lock:
            start = cursor or 0
            return [_copy(r) for r in self._records[start:]], len(self._records)

    @contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield

    def purge(self, participant: str) -> int:
        with self._lock:
            keep = [r for r in self._records if r["participant"] != participant]
            removed = len(self._records) - len(keep)
            self._records = keep
            self._keys = {r["key"] for r in keep}
            return removed

    def close(self) -> None:
        pass


class AtomicJSONStorage(TinyStorage):
    """TinyDB storage that replaces its file atomically (temp file, fsync, rename)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def read(self) -> dict | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        return json.loads(text) if text.strip() else None

    def write(self, data: dict) -> None:
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _copy(obj):
    """Copy of JSON-shaped data (dicts, lists, scalars) — several times faster than deepcopy."""
    if isinstance(obj, dict):
        return {k: _copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_copy(v) for v in obj]
    return obj


class TinyDBStorage:
    """Embedded default: a directory of per-participant TinyDB files.

    Locking: each shard has its own lock (a thread lock plus an OS file lock in
    `locks/`), taken by every write and every re-read of that shard, so TinyDB
    calls on one file never overlap and answers of different participants are
    saved in parallel. `lock()` is a separate store-wide lock for critical
    sections such as assignment; it never blocks other participants' answers.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.shards = self.path / "shards"
        self.locks = self.path / "locks"
        if self.path.is_file():
            raise StorageError(Problem(str(self.path), "is a file; the TinyDB store is a directory — pass a directory path"))
        try:
            self.shards.mkdir(parents=True, exist_ok=True)
            self.locks.mkdir(exist_ok=True)
        except OSError as exc:
            raise StorageError(Problem(str(self.path), f"cannot create the data directory ({exc.strerror}); choose a writable path with --db or INFACT_DB")) from exc
        self._store_thread_lock = threading.RLock()
        # fcntl-based: the kernel releases it if a process dies holding it.
        self._store_file_lock = FileLock(str(self.path / ".lock"), poll_interval=0.002, thread_local=False)
        self._meta = threading.Lock()
        self._shard_thread_locks: dict[str, threading.Lock] = {}
        # shard name -> (file signature, records); re-read only when the file changed.
        self._cache: dict[str, tuple[tuple, list[dict]]] = {}

    # -- internals -------------------------------------------------------
    def _shard_path(self, shard: str) -> Path:
        return self.shards / f"{shard}.json"

    @contextmanager
    def _shard_lock(self, shard: str) -> Iterator[None]:
        with self._meta:
            tlock = self._shard_thread_locks.setdefault(shard, threading.Lock())
        with tlock:
            with FileLock(str(self.locks / f"{shard}.lock"), poll_interval=0.001, thread_local=False):
                yield

    @staticmethod
    def _signature(st: os.stat_result) -> tuple:
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _load(self, shard: str, path: Path) -> list[dict]:
        try:
            sig = self._signature(path.stat())
        except FileNotFoundError:
            self._cache.pop(shard, None)
            return []
        cached = self._cache.get(shard)
        if cached and cached[0] == sig:
            return cached[1]
        try:
            data = AtomicJSONStorage(path).read() or {}
        except json.JSONDecodeError as exc:
            raise StorageError(Problem(str(path), f"is not valid JSON ({exc.msg}, line {exc.lineno}); it was not written by INFACT — restore it from a backup")) from exc
        table = data.get("_default", {})
        records = [table[k] for k in sorted(table, key=int)]
        self._cache[shard] = (sig, records)
        return records

    def _read_shard(self, shard: str) -> list[dict]:
        path = self._shard_path(shard)
        try:
            sig = self._signature(path.stat())
        except FileNotFoundError:
            return []
        cached = self._cache.get(shard)
        if cached and cached[0] == sig:  # unchanged since we last parsed it
            return cached[1]
        with self._shard_lock(shard):
            return self._load(shard, path)

    def _shard_names(self) -> list[str]:
        return sorted(p.stem for p in self.shards.glob("*.json") if not p.name.startswith("."))

    # -- protocol ----------------------------------------------------------
    @contextmanager
    def lock(self) -> Iterator[None]:
        with self._store_thread_lock:
            with self._store_file_lock:
                yield

    def append(self, record: dict) -> bool:
        check_record(record)
        shard = str(record["participant"])
        path = self._shard_path(shard)
        with self._shard_lock(shard):
            existing = self._load(shard, path)
            if any(r.get("key") == record["key"] for r in existing):
                return False
            db = TinyDB(path, storage=AtomicJSONStorage)
            try:
                db.insert(record)
            finally:
                db.close()
            self._cache[shard] = (self._signature(path.stat()), existing + [_copy(record)])
            return True

    def purge(self, participant: str) -> int:
        if not _SHARD_NAME.match(str(participant)):
            return 0
        path = self._shard_path(participant)
        with self._shard_lock(participant):
            removed = len(self._load(participant, path))
            try:
                path.unlink()
            except FileNotFoundError:
                return 0
            self._cache.pop(participant, None)
        fsync_dir(self.shards)
        return removed

    def records(self, *, study=None, participant=None, kind=None) -> list[dict]:
        names = [participant] if participant is not None else self._shard_names()
        out: list[dict] = []
        for name in names:
            if not _SHARD_NAME.match(name):
                continue
            out.extend(_copy(r) for r in self._read_shard(name) if _matches(r, study, participant, kind))
        return out

    def changes(self, cursor=None):
        """Cursor: {shard: number of records already seen}. Shards are append-only."""
        cursor = dict(cursor or {})
        new: list[dict] = []
        for name in self._shard_names():
            recs = self._read_shard(name)
            seen = cursor.get(name, 0)
            if len(recs) > seen:
                new.extend(_copy(r) for r in recs[seen:])
                cursor[name] = len(recs)
        return new, cursor

    def close(self) -> None:
        self._cache.clear()


def open_storage(target: str | os.PathLike) -> Storage:
    """Open a store from a path (TinyDB directory), `memory://`, or a SQL URL."""
    text = str(target)
    if text == "memory://":
        return MemoryStorage()
    if re.match(r"^[a-z][a-z0-9+]*://", text) and not text.startswith("tinydb://"):
        from infact.stores.sql import SQLStorage  # imported lazily: SQLAlchemy is only needed for SQL stores

        return SQLStorage(text)
    if text.startswith("tinydb://"):
        text = text[len("tinydb://"):]
    return TinyDBStorage(text)


def append_all(storage: Storage, records: Iterable[dict]) -> int:
    """Append many records; returns how many were new."""
    return sum(1 for r in records if storage.append(r))
