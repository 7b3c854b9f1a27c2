"""Slow down repeated wrong researcher passwords, per browser session and per server.

A password guesser either keeps one session or opens a new one for every guess, so
both are limited:

* **per session**: the first `session_free` wrong passwords cost nothing (typos);
  after that the session must wait `base_delay` seconds, doubling with every further
  failure, up to `session_max_delay`;
* **per server**: every wrong password from any session counts for `window`
  seconds; beyond `server_free` of them, every session waits the same doubling
  delay, capped at `server_max_delay`. The cap stays short on purpose: a guesser
  can make the real researcher wait, but only that long, while guessing is held to
  about one password per cap (1,440 a day at 60 s).

While a wait runs, attempts are refused without checking the password (no
scrypt work, no information). Every failure and every wait is logged on the
`infact.access.auth` logger; passwords never are. Thread-safe: one object serves every
Streamlit session of the process (`server_throttle()`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger("infact.access.auth")


@dataclass
class _Session:
    failures: int = 0
    last_failure: float = 0.0


def backoff(failures: int, free: int, base: float, cap: float) -> float:
    """Seconds to wait after `failures` failures: none for the first `free`, then doubling."""
    if failures <= free:
        return 0.0
    return min(cap, base * 2 ** (failures - free - 1))


class SignInThrottle:
    def __init__(self, *, session_free: int = 3, server_free: int = 10, base_delay: float = 2.0,
                 session_max_delay: float = 300.0, server_max_delay: float = 60.0,
                 window: float = 900.0, clock: Callable[[], float] = time.monotonic):
        self.session_free, self.server_free = session_free, server_free
        self.base_delay, self.window, self.clock = base_delay, window, clock
        self.session_max_delay, self.server_max_delay = session_max_delay, server_max_delay
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}
        self._server: deque[float] = deque()  # times of recent failures, oldest first

    def wait_seconds(self, session: str) -> float:
        """How long this session must wait before its next attempt (0: go ahead)."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            return max(0.0, max(self._session_until(session), self._server_until()) - now)

    def failed(self, session: str) -> float:
        """Record a wrong password; returns the wait now imposed on this session."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            state = self._sessions.setdefault(session, _Session())
            state.failures += 1
            state.last_failure = now
            self._server.append(now)
            wait = max(0.0, self._session_until(session) - now, self._server_until() - now)
            log.warning("researcher sign-in: wrong password (session %s: %d in a row; server: %d in the "
                        "last %d min)%s", session[:8], state.failures, len(self._server),
                        self.window // 60, f"; next attempt allowed in {wait:.0f} s" if wait > 0 else "")
            return wait

    def succeeded(self, session: str) -> None:
        """A correct password clears the session's count (the server's decays by itself)."""
        with self._lock:
            self._sessions.pop(session, None)

    def refused(self, session: str, wait: float) -> None:
        log.warning("researcher sign-in: attempt refused while throttled (session %s, %.0f s left)",
                    session[:8], wait)

    def _session_until(self, session: str) -> float:
        state = self._sessions.get(session)
        if state is None:
            return 0.0
        return state.last_failure + backoff(state.failures, self.session_free, self.base_delay,
                                            self.session_max_delay)

    def _server_until(self) -> float:
        if not self._server:
            return 0.0
        return self._server[-1] + backoff(len(self._server), self.server_free, self.base_delay,
                                          self.server_max_delay)

    def _forget_old(self, now: float) -> None:
        # Bounded memory: failures older than the window no longer count anywhere.
        while self._server and self._server[0] <= now - self.window:
            self._server.popleft()
        for key in [k for k, s in self._sessions.items() if s.last_failure <= now - self.window]:
            del self._sessions[key]


_SERVER = SignInThrottle()


def server_throttle() -> SignInThrottle:
    """The process-wide throttle shared by every session of this server."""
    return _SERVER
