"""The change feed: an incrementally refreshed copy of a study's records, for the refreshing dashboard.

`refresh()` asks the store only for what changed since the last call
(`Storage.changes`), so a dashboard that reruns every few seconds does not
re-read every participant's file each time. Thread-safe: one instance is
shared by every researcher session of a server.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Protocol

from infact.stores.tinydb.chat_log import LOG_KINDS
from infact.stores.tinydb.files import DamagedShard, read_shard
from infact.stores.tinydb.store import TinyDBStorage


class Storage(Protocol):
    """What a feed needs of a store: `changes` of `infact.storage.Storage` (imported from there it would
    tie stores/ to the module that picks a backend, which imports stores/)."""

    def changes(self, cursor: Any = None) -> tuple[list[dict], Any]: ...


class FeedRecords:
    def __init__(self, storage: Storage, study_id: str):
        self.storage = storage
        self.study_id = study_id
        self._records: list[dict] = []
        self._cursor: Any = None
        self._lock = threading.Lock()
        self.version = 0  # bumps whenever new records arrive

    def refresh(self) -> tuple[list[dict], int]:
        with self._lock:
            new, self._cursor = self.storage.changes(self._cursor)
            mine = [r for r in new if r.get("study") == self.study_id]
            if mine:
                self._records.extend(mine)
                self.version += 1
            return list(self._records), self.version


class RecordFeed:
    """Hands a store's new records to a consumer (e.g. results.dashboard_data.DashboardData).

    `poll()` asks the store only for what changed since the last poll and passes it
    on; the consumer keeps its own incremental tables, so nothing is held twice.
    Thread-safe: one feed per store and study is shared by every researcher session.
    """

    def __init__(self, storage: Storage, consumer: Any):
        self.storage = storage
        self.consumer = consumer
        self._cursor: Any = None
        self._lock = threading.Lock()
        self.damaged: list[str] = []  # shard files neither reader could parse and not set aside (see shard_changes)

    @property
    def started(self) -> bool:
        """Whether the first (full) read is done: later polls read only what is new."""
        return self._cursor is not None

    def poll(self) -> int:
        """Read what is new and hand it over; returns how many records the consumer took."""
        with self._lock:
            if isinstance(self.storage, TinyDBStorage):
                new, self._cursor, self.damaged = shard_changes(self.storage, self._cursor)
            else:
                new, self._cursor = self.storage.changes(self._cursor)
            return self.consumer.add(new) if new else 0


CHAT_LOG = "/chats.jsonl"  # the cursor's entry for the chat log ("/" is in no shard's name)


def shard_changes(store: TinyDBStorage, cursor: dict | None) -> tuple[list[dict], dict, list[str]]:
    """`TinyDBStorage.changes` for a reader that only reads: the records appended to each
    shard since `cursor` ({shard: (file signature, records seen)}).

    Shards are replaced atomically (temporary file, rename), so a file read without the
    shard lock is always a complete one; and the records are parsed for this caller
    alone, so the defensive copy `changes()` makes is not needed. At 2,000 shards this
    is what keeps a refresh cheap. A file TinyDB cannot read goes to the store's own
    reader, which moves a damaged one to quarantine/ (`Storage.problems()`). Returns the
    new records, the next cursor and the files that could be neither read nor set aside.
    """
    cursor = dict(cursor or {})
    new: list[dict] = []
    damaged: list[str] = []
    with os.scandir(store.shards) as entries:
        for entry in entries:
            if not entry.name.endswith(".json") or entry.name.startswith("."):
                continue
            st = entry.stat()
            sig = (st.st_ino, st.st_mtime_ns, st.st_size)
            old_sig, seen = cursor.get(entry.name, (None, 0))
            if sig == old_sig:
                continue
            try:
                records = read_shard(Path(entry.path))[0]
            except DamagedShard:
                records = None
            if not records and not os.path.exists(entry.path):
                continue  # purged since the directory was listed
            if records is None:
                # The store's own reader decides: it moves the file to quarantine/ with a note
                # (Storage.problems(), shown on the dashboard).
                records = [
                    r for r in store.records(participant=entry.name[: -len(".json")]) if r.get("kind") not in LOG_KINDS
                ]  # chat records are read from the chat log below
                if not records and os.path.exists(entry.path):
                    damaged.append(entry.path)  # the others are still read
                    continue
            if len(records) < seen:
                seen = 0  # purged and rewritten (withdrawal with deletion): hand over all; keys dedupe
            new.extend(records[seen:])
            cursor[entry.name] = (sig, len(records))
    chats, cursor[CHAT_LOG] = store.chat_log.changes(cursor.get(CHAT_LOG, 0))  # live chats (chat_log.py)
    return new + chats, cursor, damaged
