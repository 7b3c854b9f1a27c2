"""In-process store for tests and previews: thread-safe, not persistent."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from infact.stores.records import check_record, copy_record, indexed_arrival, matches, platform_key


class MemoryStorage:
    def __init__(self) -> None:
        self._records: list[dict] = []
        self._seqs: list[int] = []  # a number per record, never reused: changes() cursors survive purge()
        self._next = 1
        self._keys: set[str] = set()
        self._arrivals: dict[tuple[str, str], dict] = {}  # (study, platform key) -> first arrival
        self._lock = threading.RLock()

    def append(self, record: dict) -> bool:
        check_record(record)
        with self._lock:
            if record["key"] in self._keys:
                return False
            stored = copy_record(record)
            self._records.append(stored)
            self._seqs.append(self._next)
            self._next += 1
            self._keys.add(record["key"])
            pid = indexed_arrival(stored)
            if pid is not None:
                self._arrivals.setdefault((stored["study"], pid), stored)
            return True

    def records(self, *, study=None, participant=None, kind=None) -> list[dict]:
        with self._lock:
            return [copy_record(r) for r in self._records if matches(r, study, participant, kind)]

    def arrival_by_platform_id(self, study: str, platform_id: str) -> dict | None:
        pid = platform_key(platform_id)
        with self._lock:
            found = self._arrivals.get((study, pid)) if pid else None
            return copy_record(found) if found is not None else None

    def changes(self, cursor=None):
        with self._lock:
            start = bisect.bisect_right(self._seqs, cursor or 0)
            return [copy_record(r) for r in self._records[start:]], self._next - 1

    @contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield

    def purge(self, participant: str) -> int:
        with self._lock:
            kept = [(s, r) for s, r in zip(self._seqs, self._records) if r["participant"] != participant]
            removed = len(self._records) - len(kept)
            self._seqs = [s for s, _ in kept]
            self._records = [r for _, r in kept]
            keep = self._records
            self._keys = {r["key"] for r in keep}
            self._arrivals = {k: r for k, r in self._arrivals.items() if r["participant"] != participant}
            return removed

    def problems(self) -> list[dict]:
        return []

    def close(self) -> None:
        pass
