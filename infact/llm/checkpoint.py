"""An append-only JSON Lines checkpoint: a killed batch run resumes without repeating a finished call.

Every finished call is one line, written and flushed (and fsynced) before the next one is
counted as done. On restart the file is read back: the last line for each key wins; a line
cut short by the kill is ignored (its call simply runs again). Failed calls are kept too
(the record of what happened) but do not count as done, so a rerun tries them again.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path


class Checkpoint:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.records: dict[str, dict] = {}
        self.torn_lines = 0
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
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
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            self.records[record["key"]] = record
