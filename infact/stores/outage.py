"""A store that cannot be reached for a while (issue 36, item 10): told as an outage, logged once.

When the database server stops (or a disk fails), every request of every participant fails for the time
it is down. Each one used to be told "we could not find your session" (a read that failed looked like an
unknown participant) and nothing was logged. Now:

* a failure that means "the store is not there right now" is a `StoreUnavailable` (records.py), raised by
  the backends (sql/errors.py: the server is down or unreachable; the TinyDB store: an OSError from the disk);
* the page that meets one calls `OUTAGE.failed(exc)` and tells the participant that saving is paused and
  their answers so far are safe, then carries on by itself once the store answers (infact/ui/outage.py);
* `Outage` logs **one** error line when an outage begins and one line when it ends (with its length and
  the number of requests that met it), never one per request;
* when it ends, the outage is stored as one `store_outage` record under the researcher's name
  (`_researcher`, skipped by tables and exports), so the dashboard of every replica shows it
  (`stored_outages`); while it lasts, the process's own dashboard shows it from memory (`status`).

`OUTAGE` is the process's tracker: every session of a Streamlit server shares it (it is thread-safe).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from infact.stores.records import StoreUnavailable

log = logging.getLogger("infact.stores.outage")
KIND = "store_outage"
RESEARCHER = "_researcher"  # the researcher's records: tables and exports skip them (infact/access/session.py)
KEEP = 20  # outages remembered in memory (the store keeps them all)


@dataclass(frozen=True)
class Spell:
    """One outage: when it began and (once over) ended, the requests that met it, the first reason."""

    started: float
    ended: float | None
    failures: int
    reason: str

    @property
    def seconds(self) -> float | None:
        return None if self.ended is None else self.ended - self.started

    def record(self, study: str) -> dict:
        """The store record of an outage that is over."""
        return {
            "key": f"{study}/{RESEARCHER}/{KIND}/{uuid.uuid4().hex}",
            "study": study,
            "participant": RESEARCHER,
            "kind": KIND,
            "started_at": _iso(self.started),
            "ended_at": _iso(self.ended if self.ended is not None else self.started),
            "seconds": round(self.seconds or 0.0, 1),
            "failed_requests": self.failures,
            "reason": self.reason[:300],
            "process": f"{socket.gethostname()}:{os.getpid()}",
        }


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


def reason_of(exc: BaseException) -> str:
    """One line: the store's own words for a StoreUnavailable (URL masked, fix included), else the OSError."""
    if isinstance(exc, StoreUnavailable):
        return " ".join(str(exc).split())
    return f"{type(exc).__name__}: {exc}"


class Outage:
    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock
        self._lock = threading.Lock()
        self._current: Spell | None = None
        self._over: list[Spell] = []  # ended here, not yet stored (`store_ended`)
        self.recent: list[Spell] = []  # the last KEEP that ended in this process

    @property
    def active(self) -> bool:
        return self._current is not None  # read without the lock: a page asks on every run

    def status(self) -> Spell | None:
        """The outage going on now in this process, or None."""
        return self._current

    def failed(self, exc: BaseException) -> None:
        """A request met the store unavailable: the first one of an outage logs it, the others count."""
        with self._lock:
            if self._current is None:
                self._current = Spell(self.clock(), None, 1, reason_of(exc))
                log.error(
                    "INFACT: the store is unavailable: %s. Participants are told that saving is paused and their "
                    "answers so far are safe; their pages carry on once it is back (logged once per outage).",
                    self._current.reason,
                )
            else:
                c = self._current
                self._current = Spell(c.started, None, c.failures + 1, c.reason)

    def succeeded(self) -> Spell | None:
        """The store answered: an outage going on is over (logged once); it is returned, else None."""
        if self._current is None:  # the usual case, no lock taken
            return None
        with self._lock:
            c = self._current
            if c is None:
                return None
            self._current = None
            over = Spell(c.started, self.clock(), c.failures, c.reason)
            self._over.append(over)
            self.recent = [*self.recent, over][-KEEP:]
        log.warning(
            "INFACT: the store is back after %.0f s; %d request(s) met the outage (each told that saving is paused).",
            over.seconds,
            over.failures,
        )
        return over

    def store_ended(self, storage, study: str) -> None:
        """Store the outages that ended here (one record each), so every replica's dashboard shows them. A
        failure leaves them for the next call."""
        with self._lock:
            pending, self._over = self._over, []
        for i, spell in enumerate(pending):
            try:
                storage.append(spell.record(study))
            except Exception:  # the store went away again: keep them for later, no new log line
                with self._lock:
                    self._over = pending[i:] + self._over
                return


def stored_outages(storage, study: str) -> list[dict]:
    """The outages every process stored for this study, newest first."""
    records = storage.records(study=study, participant=RESEARCHER, kind=KIND)
    return sorted(records, key=lambda r: r.get("started_at", ""), reverse=True)


OUTAGE = Outage()  # the process's tracker, shared by every session
