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
PostgreSQL): `ConsentGate` admits at most `CONSENTS_PER_SOURCE` consents a minute from one
source (the client's address) and `CONSENTS_PER_MINUTE` a minute in the whole process. Past
either, the consent page says calmly to wait a minute and press Start again; nothing is stored
for the refused ones. Like every per-process count, replicas each have their own allowance.

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
from collections import OrderedDict, deque
from collections.abc import Callable
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
# Consents a minute: from one source (a lab or class behind one address is a few dozen at most), and in
# the whole process (a busy Prolific launch is a few a second). Beyond them, the consent page asks to wait.
# Environment variables INFACT_CONSENTS_PER_SOURCE / INFACT_CONSENTS_PER_MINUTE change them (0: no bound),
# e.g. for a load test whose participants all come from one address.
CONSENTS_PER_SOURCE = 30
CONSENTS_PER_MINUTE = 120


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


class ConsentGate:
    """Consents admitted in the last minute, per source and in the process (thread-safe). Only
    admitted consents count: a refused one stores nothing, so it takes no room in the bound."""

    WINDOW = 60.0

    def __init__(
        self, per_source: int | None = None, per_minute: int | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_source = (
            _bound("INFACT_CONSENTS_PER_SOURCE", CONSENTS_PER_SOURCE) if per_source is None else per_source
        )
        self.per_minute = (
            _bound("INFACT_CONSENTS_PER_MINUTE", CONSENTS_PER_MINUTE) if per_minute is None else per_minute
        )
        self.clock = clock
        self._lock = threading.Lock()
        self._all: deque[float] = deque()
        self._by_source: OrderedDict[str, deque[float]] = OrderedDict()
        self.refused = 0  # for the log and the tests

    def admit(self, source: str | None) -> bool:
        """Count a consent from `source` (None: unknown, the process bound only) if both bounds allow it."""
        with self._lock:
            now = self.clock()
            self._expire(self._all, now)
            mine = self._by_source.get(source) if source else None
            if mine is not None:
                self._expire(mine, now)
            full = 0 < self.per_minute <= len(self._all) or (mine is not None and 0 < self.per_source <= len(mine))
            if full:
                self.refused += 1
                return False
            self._all.append(now)
            if source:
                if mine is None:
                    mine = self._by_source[source] = deque()
                mine.append(now)
                self._by_source.move_to_end(source)
                while len(self._by_source) > REMEMBERED:  # bounded memory: the oldest sources are forgotten
                    self._by_source.popitem(last=False)
            return True

    def _expire(self, times: deque[float], now: float) -> None:
        while times and now - times[0] >= self.WINDOW:
            times.popleft()


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
