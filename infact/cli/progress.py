"""One-line progress bars on stderr for long batch commands (generate, judge) and long analyses (analyze)."""

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


class StageBars:
    """A listener for `infact.stats.progress.reporting`: one bar per stage of a long analysis
    (the bootstrap, each fragility search), a new one when a stage starts again (another criterion)."""

    def __init__(self, prefix: str, stream=None):
        self.prefix, self.stream = prefix, stream
        self._bars: dict[str, ProgressBar] = {}
        self._seen: dict[str, tuple[int, int]] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        last_done, last_total = self._seen.get(stage, (0, 1))
        if stage in self._bars and last_done >= last_total and done >= total:
            return  # the same stage reported finished twice
        if stage not in self._bars or done < last_done or last_done >= last_total:
            self._bars[stage] = ProgressBar(f"{self.prefix}: {stage}", self.stream)
        self._seen[stage] = (done, total)
        self._bars[stage](done, total)
