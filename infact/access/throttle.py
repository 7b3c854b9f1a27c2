"""Slow down repeated wrong researcher passwords, per browser session, per source and per server.

A password guesser either keeps one session or opens a new one for every guess, from
one address or from many, so all three are limited:

* **per session**: the first `session_free` wrong passwords cost nothing (typos);
  after that the session must wait `base_delay` seconds, doubling with every further
  failure, up to `session_max_delay`;
* **per source** (the client's address, `source` below): beyond `source_free` wrong
  passwords within `window` seconds that source waits the same doubling delay, up to
  `source_max_delay`. A stranger guessing from one address is stopped here, long
  before the server-wide count, so the researcher (another address) is not held up;
* **per server**: every wrong password from any session counts for `window` seconds;
  beyond `server_free` of them, every session waits the same doubling delay, capped
  at `server_max_delay`. The cap stays short on purpose: a guesser with many
  addresses can make the real researcher wait, but only that long, while guessing is
  held to about one password per cap (1,440 a day at 60 s).

An attempt is **reserved before the password is checked** (`reserve`): under one lock
the waits are checked and, if there is none, the attempt is counted as a failure at
once; a correct password then takes it back (`succeeded`). So forty sessions sending
a password at the same moment get at most the free attempts checked, not forty: the
check itself (scrypt, half a second) runs outside the lock.

While a wait runs, attempts are refused without checking the password (no scrypt
work, no information). Every failure and every wait is logged on the `infact.access.auth`
logger; passwords never are. Thread-safe: one object serves every Streamlit session
of the process (`server_throttle()`). The app uses the store-backed variant, whose per-source and
server-wide counts every app process on the store shares (`infact/access/shared_throttle.py`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("infact.access.auth")


@dataclass
class Count:
    """Failures of one session or source and when the last one was."""

    failures: int = 0
    last_failure: float = 0.0


@dataclass(frozen=True)
class Attempt:
    """The outcome of `attempt`: signed in, or not; `wait` is what the session must wait now."""

    ok: bool
    checked: bool  # False: refused while throttled, the password was never looked at
    wait: float


def backoff(failures: int, free: int, base: float, cap: float) -> float:
    """Seconds to wait after `failures` failures: none for the first `free`, then doubling."""
    if failures <= free:
        return 0.0
    return min(cap, base * 2 ** (failures - free - 1))


class SignInThrottle:
    def __init__(
        self,
        *,
        session_free: int = 3,
        source_free: int = 5,
        server_free: int = 20,
        base_delay: float = 2.0,
        session_max_delay: float = 300.0,
        source_max_delay: float = 300.0,
        server_max_delay: float = 60.0,
        window: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.session_free, self.source_free, self.server_free = session_free, source_free, server_free
        self.base_delay, self.window, self.clock = base_delay, window, clock
        self.session_max_delay, self.source_max_delay = session_max_delay, source_max_delay
        self.server_max_delay = server_max_delay
        self._lock = threading.Lock()
        self._sessions: dict[str, Count] = {}
        self._sources: dict[str, Count] = {}
        self._server: deque[float] = deque()  # times of recent failures, oldest first

    def wait_seconds(self, session: str, source: str | None = None) -> float:
        """How long this session must wait before its next attempt (0: go ahead)."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            return self._wait(session, source, now)

    def reserve(self, session: str, source: str | None = None) -> float:
        """Atomically: 0 when a check may run — it is counted as a failure already, until
        `succeeded` takes it back — or the seconds to wait, with nothing counted."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            wait = self._wait(session, source, now)
            if wait > 0:
                return wait
            for count in (
                self._sessions.setdefault(session, Count()),
                *([self._sources.setdefault(source, Count())] if source else []),
            ):
                count.failures += 1
                count.last_failure = now
            self._server.append(now)
            return 0.0

    def failed(self, session: str, source: str | None = None) -> float:
        """A reserved attempt's password was wrong (it is counted already): log it; returns
        the wait now imposed on this session."""
        with self._lock:
            now = self.clock()
            state = self._sessions.get(session, Count())
            wait = self._wait(session, source, now)
            log.warning(
                "researcher sign-in: wrong password (session %s: %d in a row; source %s: %d; server: %d "
                "in the last %d min)%s",
                session[:8],
                state.failures,
                source or "unknown",
                self._sources.get(source, Count()).failures if source else 0,
                len(self._server),
                self.window // 60,
                f"; next attempt allowed in {wait:.0f} s" if wait > 0 else "",
            )
            return wait

    def succeeded(self, session: str, source: str | None = None) -> None:
        """A correct password: its reserved failure is taken back everywhere and the
        session's and source's counts are cleared (the server's other failures decay by themselves)."""
        with self._lock:
            state = self._sessions.pop(session, None)
            if source:
                self._sources.pop(source, None)
            if state is not None and state.last_failure in self._server:
                self._server.remove(state.last_failure)

    def refused(self, session: str, wait: float) -> None:
        log.warning("researcher sign-in: attempt refused while throttled (session %s, %.0f s left)", session[:8], wait)

    def _wait(self, session: str, source: str | None, now: float) -> float:
        until = max(
            self._until(self._sessions.get(session), self.session_free, self.session_max_delay),
            self._until(self._sources.get(source) if source else None, self.source_free, self.source_max_delay),
            self._server_until(),
        )
        return max(0.0, until - now)

    def _until(self, count: Count | None, free: int, cap: float) -> float:
        if count is None:
            return 0.0
        return count.last_failure + backoff(count.failures, free, self.base_delay, cap)

    def _server_until(self) -> float:
        if not self._server:
            return 0.0
        return self._server[-1] + backoff(len(self._server), self.server_free, self.base_delay, self.server_max_delay)

    def _forget_old(self, now: float) -> None:
        # Bounded memory: failures older than the window no longer count anywhere.
        while self._server and self._server[0] <= now - self.window:
            self._server.popleft()
        for table in (self._sessions, self._sources):
            for key in [k for k, s in table.items() if s.last_failure <= now - self.window]:
                del table[key]


def attempt(throttle: SignInThrottle, session: str, source: str | None, check: Callable[[], bool]) -> Attempt:
    """One sign-in attempt as the page makes it: reserved first, then `check()` (the
    password check) only if the throttle allows it, then recorded."""
    wait = throttle.reserve(session, source)
    if wait > 0:
        throttle.refused(session, wait)
        return Attempt(False, False, wait)
    if check():
        throttle.succeeded(session, source)
        return Attempt(True, True, 0.0)
    return Attempt(False, True, throttle.failed(session, source))


_SERVER = SignInThrottle()


def server_throttle() -> SignInThrottle:
    """The process-wide throttle shared by every session of this server."""
    return _SERVER
