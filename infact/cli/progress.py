"""A one-line progress bar on stderr for long batch commands (generate, judge)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    def __init__(self, label: str, stream=None, width: int = 30, every_s: float = 0.2):
        self.label, self.stream, self.width, self.every_s = label, stream or sys.stderr, width, every_s
        self._last = 0.0
        self._start = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < self.every_s:
            return
        self._last = now
        filled = self.width * done // max(1, total)
        rate = done / max(1e-9, now - self._start)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} ({rate:.1f}/s)")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
