"""Visits to the study page: counted honestly, stored apart from participants, and cheaply.

Nothing about a participant is stored before consent, yet the funnel's *visited* must
say how many opened the link, not only how many consented. So each visit stores one
small record under the researcher-style name `_visits` (tables, exports, analysis and
the participant's own state skip `_…` names): the visit id and the time — no platform
ID, no answers. At consent a second record names the participant the visit became; it
sits with the visits, not in the participant's file, so a withdrawal with deletion does
not turn that participant into a second visitor.

A visit costs a line, not a file: every visit record goes under the one name `_visits`,
which the TinyDB store keeps in its append-only log (infact.stores.tinydb.chat_log) and
PostgreSQL in its one table. And a flood of visits (a crawler, a client that keeps no
cookies, random Prolific ID pairs) cannot grow the store without bound: each process
records at most `PER_MINUTE` visits a minute individually (`VisitRecorder`) and only
counts the rest, one `aggregated` record per busy minute. Consents are always stored
individually. The counts of the last busy minute are written when the minute is over
(a timer, or the next visit): a process killed in that minute loses them.

Older stores hold one `_v<visit id>` name per visit; both are read the same way.

Consents are bounded too, since each one makes a participant (files on TinyDB, rows on
PostgreSQL) and reserves situations: `ConsentGate` keeps one token bucket per source (the
client's address) and one for the whole process. A bucket holds `CONSENT_BURST` starts (the
process's twice as many) and refills at `CONSENTS_PER_SOURCE` / `CONSENTS_PER_MINUTE` a minute,
so a launch's crowd starts at once while a script that consents in a loop still gets only the
rate. Nobody is refused: past a bucket, the consent gets a later place and the consent page
waits for it by itself, with a short message; nothing is stored until then. Like every
per-process count, replicas each have their own allowance.

One visit is one browser (a cookie the page sets, so Back, Forward and a reload are the
same visit) or, with a platform, one platform session (ID + SESSION_ID / assignmentId,
hashed: the same session on a second device is still one visit). A signed-in
researcher's preview stores none. The funnel counts them in infact.results.quality.funnel
(`Visits`, `funnel_counts`, `visits_table`): visited = participants + visits that never
consented.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from infact.participation.flow import iso
from infact.participation.platforms import Arrival
from infact.storage import Storage
from infact.study.loader import Study

log = logging.getLogger(__name__)

COOKIE_MAX_AGE = 24 * 3600  # a visit remembered by the browser for a day
VISIT_ID = re.compile(r"^[bs][0-9a-f]{24}$")
VISITS = "_visits"  # the one store name of every visit record
PER_MINUTE = 60  # visits a process records individually per minute; the rest are counted
REMEMBERED = 10_000  # visit ids a process remembers, so a reload in a busy minute is not counted twice
# Consents a minute, sustained: from one source, and in the whole process. Beyond them (and beyond the
# burst below), the consent page waits for the participant's turn by itself; nobody is turned away.
# Environment variables INFACT_CONSENTS_PER_SOURCE / INFACT_CONSENTS_PER_MINUTE change them (0: no bound).
CONSENTS_PER_SOURCE = 30
CONSENTS_PER_MINUTE = 120
# Starts a source may make at once before its rate applies (the process: PROCESS_BURST_FACTOR times as many):
# a launch's first minute, or a class behind one address. INFACT_CONSENT_BURST changes it.
CONSENT_BURST = 200
PROCESS_BURST_FACTOR = 2


def cookie_name(study: Study) -> str:
    return f"infact-{study.id}-visit"


def visit_id(study: Study, arrival: Arrival, remembered: str | None) -> str:
    """The id of this visit: the platform session's (hashed), else the one this browser
    remembers (cookie), else a new one."""
    if arrival.platform_id and arrival.session_id:
        text = f"{study.id}\0{arrival.platform_id.casefold()}\0{arrival.session_id.casefold()}"
        return "s" + hashlib.sha256(text.encode()).hexdigest()[:24]
    if isinstance(remembered, str) and VISIT_ID.match(remembered):
        return remembered
    return "b" + secrets.token_hex(12)


def _record(study: Study, visit: str, at: datetime, became: str | None) -> dict:
    rec = {
        "key": f"{study.id}/visit/{visit}" + (f"/{became}" if became else ""),
        "study": study.id,
        "dataset_version": study.dataset_version,
        "participant": VISITS,
        "kind": "visit",
        "at": iso(at),
        "preview": False,
        "visit": visit,
    }
    return {**rec, "became": became} if became else rec


def aggregate_record(study: Study, minute: datetime, count: int, writer: str) -> dict:
    """`count` visits of one minute that were counted, not recorded one by one (`writer`: unique
    per process and flush, so two records of one minute are both kept)."""
    return {
        "key": f"{study.id}/visit/aggregated/{iso(minute)}/{writer}",
        "study": study.id,
        "dataset_version": study.dataset_version,
        "participant": VISITS,
        "kind": "visit",
        "at": iso(minute),
        "preview": False,
        "aggregated": True,
        "count": int(count),
        "minute": iso(minute),
    }


def store_visit(storage: Storage, study: Study, visit: str, at: datetime) -> bool:
    """Store the visit (once: its key makes a second store of the same visit a no-op),
    within this process's per-minute bound (`VisitRecorder`): False if it was only counted."""
    return recorder(storage, study).record(visit, at)


def store_consent(storage: Storage, study: Study, visit: str, participant: str, at: datetime) -> bool:
    """The visit became `participant` by consenting (always stored individually)."""
    return storage.append(_record(study, visit, at, participant))


class VisitRecorder:
    """One per (store, study) per process: the first `per_minute` visits of each minute are
    stored as records, the others counted and stored as one aggregated record per minute."""

    def __init__(self, storage: Storage, study: Study, per_minute: int | None = None) -> None:
        self.storage, self.study = storage, study
        self.per_minute = PER_MINUTE if per_minute is None else per_minute
        self.writer = secrets.token_hex(4)  # several processes may aggregate the same minute
        self._flushes = 0
        self._lock = threading.Lock()
        self._individual: dict[datetime, int] = {}
        self._counted: dict[datetime, int] = {}
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._timer: threading.Timer | None = None

    def record(self, visit: str, at: datetime) -> bool:
        minute = at.replace(second=0, microsecond=0)
        self.flush(before=minute)
        with self._lock:
            if visit in self._seen:  # a reload of a visit this process saw: never two
                self._seen.move_to_end(visit)
                return False
            self._seen[visit] = None
            if len(self._seen) > REMEMBERED:
                self._seen.popitem(last=False)
            for old in [m for m in self._individual if m < minute]:
                del self._individual[old]
            individual = self._individual.get(minute, 0) < self.per_minute
            if individual:
                self._individual[minute] = self._individual.get(minute, 0) + 1
            else:
                self._counted[minute] = self._counted.get(minute, 0) + 1
                self._arm_timer()
        if individual:
            return self.storage.append(_record(self.study, visit, at, None))
        return False

    def flush(self, before: datetime | None = None) -> int:
        """Store the aggregated counts of the minutes before `before` (all: None); returns
        how many visits they hold. A count that cannot be stored is kept for the next try."""
        with self._lock:
            due = {m: n for m, n in self._counted.items() if before is None or m < before}
            for m in due:
                del self._counted[m]
        for minute, count in sorted(due.items()):
            with self._lock:
                self._flushes += 1
                writer = f"{self.writer}-{self._flushes}"
            try:
                self.storage.append(aggregate_record(self.study, minute, count, writer))
            except Exception:
                log.warning("INFACT: %d aggregated visits of %s could not be stored yet", count, minute, exc_info=True)
                with self._lock:
                    self._counted[minute] = self._counted.get(minute, 0) + count
        return sum(due.values())

    def _arm_timer(self) -> None:
        """After the busy minute, store its count even if no later visit comes. Holds _lock."""
        if self._timer is not None and self._timer.is_alive():
            return
        end = min(self._counted) + timedelta(minutes=1)
        delay = max(1.0, (end - datetime.now(end.tzinfo)).total_seconds() + 1.0)
        self._timer = threading.Timer(min(delay, 61.0), self._on_timer)
        self._timer.daemon = True
        self._timer.start()

    def _on_timer(self) -> None:
        with self._lock:
            zone = min(self._counted).tzinfo if self._counted else None
        self.flush(before=datetime.now(zone).replace(second=0, microsecond=0))  # the minutes that are over
        with self._lock:
            if self._counted:
                self._timer = None
                self._arm_timer()


_recorders: weakref.WeakKeyDictionary[object, dict[str, VisitRecorder]] = weakref.WeakKeyDictionary()
_recorders_lock = threading.Lock()


def recorder(storage: Storage, study: Study) -> VisitRecorder:
    """The one VisitRecorder of this store object and study in this process."""
    with _recorders_lock:
        try:
            per_study = _recorders.setdefault(storage, {})
        except TypeError:  # a store object that cannot be weakly referenced: no sharing
            return VisitRecorder(storage, study)
        found = per_study.get(study.id)
        if found is None or found.study.dataset_version != study.dataset_version:
            found = per_study[study.id] = VisitRecorder(storage, study)
        return found


@dataclass
class Place:
    """A consent's place in the queue: start at `due` (the gate's clock), or give the place back."""

    gate: ConsentGate
    source: str | None
    due: float

    def wait(self) -> float:
        """Seconds until this consent may be stored (0: now)."""
        return max(0.0, self.due - self.gate.clock())

    def give_back(self) -> None:
        """The participant left before their turn: the place goes to the next one."""
        self.gate.give_back(self)


class ConsentGate:
    """Consents a process stores, per source and in all, as token buckets (thread-safe).

    Each bucket holds `burst` starts and refills at its rate a minute: a Prolific launch, dozens in
    the same minute, starts at once; a script that consents in a loop gets the burst once and then the
    rate, as before. Nobody is turned away: past a bucket, `admit` gives a later place (`Place.due`)
    and the consent page waits for it by itself (infact.ui.participant_page)."""

    def __init__(
        self,
        per_source: int | None = None,
        per_minute: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        burst: int | None = None,
    ) -> None:
        self.per_source = (
            _bound("INFACT_CONSENTS_PER_SOURCE", CONSENTS_PER_SOURCE) if per_source is None else per_source
        )
        self.per_minute = (
            _bound("INFACT_CONSENTS_PER_MINUTE", CONSENTS_PER_MINUTE) if per_minute is None else per_minute
        )
        self.burst = _bound("INFACT_CONSENT_BURST", CONSENT_BURST) if burst is None else burst
        self.clock = clock
        self._lock = threading.Lock()
        self._all = _Bucket(PROCESS_BURST_FACTOR * self.burst, self.per_minute, clock())
        self._by_source: OrderedDict[str, _Bucket] = OrderedDict()
        self.waited = 0  # consents given a later place (for the log and the tests)

    def admit(self, source: str | None) -> Place:
        """Take a place for a consent from `source` (None: unknown, the process bucket only)."""
        with self._lock:
            now = self.clock()
            due = self._all.take(now)
            if source and self.per_source > 0:
                mine = self._by_source.get(source)
                if mine is None:
                    mine = self._by_source[source] = _Bucket(self.burst, self.per_source, now)
                self._by_source.move_to_end(source)
                due = max(due, mine.take(now))
                while len(self._by_source) > REMEMBERED:  # bounded memory: the oldest sources are forgotten
                    self._by_source.popitem(last=False)
            if due > now:
                self.waited += 1
            return Place(self, source, due)

    def give_back(self, place: Place) -> None:
        with self._lock:
            now = self.clock()
            if place.due <= now:
                return  # its time has come: the place was used (or is about to be)
            self._all.give_back(now)
            mine = self._by_source.get(place.source) if place.source else None
            if mine is not None:
                mine.give_back(now)
            place.due = now


class _Bucket:
    """`capacity` tokens refilled at `per_minute` a minute (0: unbounded). Taking from an empty bucket
    goes into debt: the debt is the queue, and a place is due when the refill has paid it."""

    def __init__(self, capacity: int, per_minute: int, now: float) -> None:
        self.capacity, self.rate = max(1, capacity), per_minute / 60.0
        self.tokens, self.at = float(self.capacity), now

    def _refill(self, now: float) -> None:
        if now > self.at:
            self.tokens = min(self.capacity, self.tokens + (now - self.at) * self.rate)
            self.at = now

    def take(self, now: float) -> float:
        """Take one token; when it is due."""
        if self.rate <= 0:
            return now
        self._refill(now)
        self.tokens -= 1.0
        return now if self.tokens >= 0 else now + -self.tokens / self.rate

    def give_back(self, now: float) -> None:
        if self.rate > 0:
            self._refill(now)
            self.tokens = min(self.capacity, self.tokens + 1.0)


def _bound(variable: str, default: int) -> int:
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    try:
        return max(0, int(value))
    except ValueError:
        log.warning("INFACT: %s=%r is not a whole number; using %d", variable, value, default)
        return default


_gates: dict[str, ConsentGate] = {}


def consent_gate(study: Study) -> ConsentGate:
    """This process's ConsentGate of `study`."""
    with _recorders_lock:
        return _gates.setdefault(study.id, ConsentGate())
