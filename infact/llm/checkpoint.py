"""An append-only JSON Lines checkpoint: a killed batch run resumes without repeating a finished call.

Every finished call is one line, written and flushed to the operating system before the next
one is counted, so a killed process loses at most the calls still in flight; the file is
fsynced about once a second and on close (a power cut may lose that last second). On restart
the file is read back: the last line for each key wins; a line cut short by the kill is
ignored (its call simply runs again). Failed calls are kept too (the record of what happened)
but do not count as done, so a rerun tries them again.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

FSYNC_EVERY_S = 1.0


class Checkpoint:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.records: dict[str, dict] = {}
        self.torn_lines = 0
        self._file = None
        self._synced = time.monotonic()
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    self.torn_lines += 1
                    continue
                if isinstance(record, dict) and "key" in record:
                    self.records[record["key"]] = record

    def done(self, key: str) -> bool:
        record = self.records.get(key)
        return record is not None and not record.get("error")

    def append(self, record: dict) -> None:
        line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8")
                if self.torn_lines or (self.path.stat().st_size and not self._ends_with_newline()):
                    self._file.write("\n")  # never glue a new line onto a torn one
            self._file.write(line)
            self._file.flush()
            if time.monotonic() - self._synced >= FSYNC_EVERY_S:
                os.fsync(self._file.fileno())
                self._synced = time.monotonic()
            self.records[record["key"]] = record

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                os.fsync(self._file.fileno())
                self._file.close()
                self._file = None

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
