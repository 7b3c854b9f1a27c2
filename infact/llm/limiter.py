"""At most `max_concurrency` calls in flight per endpoint, shared by every user in the process.

Live chats, a judge run and a generator may all use one endpoint; the server was sized
for `max_concurrency` parallel requests, so the limit belongs to the endpoint, not to
the caller. A caller that cannot get a slot within its deadline fails as a timeout.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LIMITS: dict[tuple[str, str], Limiter] = {}
_LOCK = threading.Lock()


class Limiter:
    def __init__(self, capacity: int):
        self.capacity = capacity
        self._slots = threading.BoundedSemaphore(capacity)
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0  # the most calls ever in flight at once (tests and benchmarks read it)

    @contextmanager
    def slot(self, wait_s: float | None) -> Iterator[bool]:
        """Yields True with a slot held, or False when none came free within `wait_s`."""
        if not self._slots.acquire(timeout=wait_s):
            yield False
            return
        with self._lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            yield True
        finally:
            with self._lock:
                self.in_flight -= 1
            self._slots.release()


def limiter_for(name: str, base_url: str, capacity: int) -> Limiter:
    """The process-wide limiter of one endpoint (a changed capacity makes a new one)."""
    key = (name, base_url)
    with _LOCK:
        current = _LIMITS.get(key)
        if current is None or current.capacity != capacity:
            current = _LIMITS[key] = Limiter(capacity)
        return current
