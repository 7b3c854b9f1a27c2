"""The sign-in throttle's counts kept in the store, so every app process on it shares one allowance.

Behind a load balancer a guesser's attempts land on every replica. With counts in each process's
memory, three replicas gave three server-wide allowances (and three per-source ones). Here each
attempt, *reserved before the password is checked* as in `SignInThrottle`, is one record in the
store (`signin_failure`, under the researcher name `_researcher`, which tables and exports skip),
written inside the store-wide lock (a PostgreSQL advisory lock, TinyDB's file lock) after the
window's records are read back. So the decision "may this attempt be checked?" and counting it are
one step across every process: 3 × 40 parallel guesses on three replicas get the free checks once.
A correct password stores `signin_ok`, which takes its reserved failure back and clears that
source's count, everywhere. The per-session count stays in memory: a session lives in one process.

Times are wall-clock seconds (`time.time`), comparable between processes on synchronised machines.
Failure records are never deleted: each check reads the researcher's records, which grow by one
per wrong password (a 40-guess attack adds 40 small rows; the window's arithmetic skips older ones).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from datetime import UTC, datetime

from infact.access.session import RESEARCHER
from infact.access.throttle import Count, SignInThrottle

FAILURE, OK = "signin_failure", "signin_ok"
CLOCK = time.time  # wall-clock seconds; tests put a fake clock here
SETTINGS: dict = {}  # SignInThrottle settings for the process's shared throttles (tests lower the allowances)


class SharedThrottle(SignInThrottle):
    """`SignInThrottle` whose per-source and server-wide counts are the store's (module docstring)."""

    def __init__(self, storage, study_id: str, **settings):
        settings.setdefault("clock", lambda: CLOCK())
        super().__init__(**settings)
        self.storage, self.study_id = storage, study_id
        self._reserved: dict[str, str] = {}  # session -> key of its reserved failure record

    def wait_seconds(self, session: str, source: str | None = None) -> float:
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            self._read(now)
            return self._wait(session, source, now)

    def reserve(self, session: str, source: str | None = None) -> float:
        with self._lock, self.storage.lock():
            now = self.clock()
            self._forget_old(now)
            self._read(now)
            wait = self._wait(session, source, now)
            if wait > 0:
                return wait
            key = f"{self.study_id}/researcher/signin/{uuid.uuid4().hex}"
            self.storage.append(self._record(key, FAILURE, now, source))
            self._reserved[session] = key
            count = self._sessions.setdefault(session, Count())
            count.failures += 1
            count.last_failure = now
            self._read(now)  # the counts now include this attempt, for `failed`'s log line
            return 0.0

    def succeeded(self, session: str, source: str | None = None) -> None:
        with self._lock:
            now = self.clock()
            key = self._reserved.pop(session, None)
            record = self._record(f"{key or uuid.uuid4().hex}/ok", OK, now, source)
            record["failure"] = key
            self.storage.append(record)
            self._sessions.pop(session, None)
            self._read(now)

    def _record(self, key: str, kind: str, now: float, source: str | None) -> dict:
        return {
            "key": key,
            "study": self.study_id,
            "participant": RESEARCHER,
            "kind": kind,
            "at": datetime.fromtimestamp(now, UTC).isoformat(),
            "preview": False,
            "t": now,
            "source": str(source) if source else None,
        }

    def _read(self, now: float) -> None:
        """Rebuild the per-source and server-wide counts from the store's records of the window."""
        records = self.storage.records(study=self.study_id, participant=RESEARCHER)
        oks = [r for r in records if r.get("kind") == OK]
        taken_back = {r.get("failure") for r in oks}
        cleared: dict[str, float] = {}
        for r in oks:
            if r.get("source"):
                cleared[r["source"]] = max(cleared.get(r["source"], 0.0), float(r.get("t", 0.0)))
        failures = sorted(
            (r for r in records if r.get("kind") == FAILURE and r["key"] not in taken_back),
            key=lambda r: float(r.get("t", 0.0)),
        )
        recent = [r for r in failures if float(r.get("t", 0.0)) > now - self.window]
        self._server = deque(float(r["t"]) for r in recent)
        self._sources = {}
        for r in recent:
            source, t = r.get("source"), float(r["t"])
            if source and t > cleared.get(source, 0.0):
                count = self._sources.setdefault(source, Count())
                count.failures += 1
                count.last_failure = t


_SHARED: dict[tuple[int, str], SharedThrottle] = {}
_SHARED_LOCK = threading.Lock()


def shared_throttle(storage, study_id: str) -> SharedThrottle:
    """One per store and study in this process (every session uses it)."""
    with _SHARED_LOCK:
        key = (id(storage), study_id)
        if key not in _SHARED:
            _SHARED[key] = SharedThrottle(storage, study_id, **SETTINGS)
        return _SHARED[key]
