"""An incrementally refreshed copy of a study's records, for the live dashboard.

`refresh()` asks the store only for what changed since the last call
(`Storage.changes`), so a dashboard that reruns every few seconds does not
re-read every participant's file each time. Thread-safe: one instance is
shared by every researcher session of a server.
"""

from __future__ import annotations

import threading
from typing import Any

from infact.storage import Storage


class LiveRecords:
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
