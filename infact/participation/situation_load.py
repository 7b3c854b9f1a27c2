"""Each situation's load (ratings stored + reserved by participants within their lease),
kept up to date from the store's change feed instead of re-reading the whole study.

A process's first read starts from the store's participant summaries where it keeps them
(TinyDB), so even that costs a few hundred bytes per participant.

Consent used to read every record of the study under the store-wide lock to plan one
assignment: 10,000 participants meant ~300,000 records per consent. `SituationLoad`
asks the store only for what changed since its last call (`Storage.changes`) and keeps
per-participant facts plus two counters; a consent costs what arrived since the
previous one. It gives the same numbers as `assignment.load(records)`
(tests/participation/test_situation_load.py checks that, leases and withdrawals included).

One instance per (store, study) per process — `for_store` — shared by every session
thread. Other processes' writes reach it through `changes()` as well; assignments are
stored under `storage.lock()`, so the next assigner always sees them.
"""

from __future__ import annotations

import heapq
import logging
import threading
import weakref
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from infact.participation.steps.registry import situation_kinds
from infact.storage import Storage

log = logging.getLogger(__name__)


@dataclass
class _Participant:
    assigned: tuple[str, ...] = ()  # regular situation ids of the assignment
    lease_until: datetime | None = None
    answered: set[str] = field(default_factory=set)
    complete: bool = False
    withdrawn: bool = False
    lease_end: datetime | None = None  # a `lease_end` record: the lease ends then, whatever the assignment says
    counted: tuple[frozenset, frozenset] = (frozenset(), frozenset())  # (answered, reserved) in the counters
    condition: str | None = None  # a between-subjects study's condition (of the assignment)


class SituationLoad:
    def __init__(self, storage: Storage, study_id: str, condition: str | None = None) -> None:
        self.storage = storage
        self.study_id = study_id
        # A between-subjects condition's load counts only its own participants: situations are balanced within
        # each condition (infact/participation/conditions.py).
        self.condition = condition
        self.answered: Counter = Counter()
        self.reserved: Counter = Counter()
        self._people: dict[str, _Participant] = {}
        self._expiries: list[tuple[datetime, str]] = []  # (lease end, participant) of counted reservations
        self._cursor = None
        self._now: datetime | None = None
        self._lock = threading.Lock()
        self._warming = False

    def current(self, now: datetime) -> tuple[Counter, Counter]:
        """(answered, reserved) per situation id as of `now`, after reading what changed."""
        with self._lock:
            touched = self._start() if self._cursor is None else set()
            new, self._cursor = self.storage.changes(self._cursor)
            touched |= {token for token in map(self._take, new) if token is not None}
            if self._now is not None and now < self._now:  # a clock that went back: count afresh
                touched = set(self._people)
                self._expiries.clear()
            self._now = now
            while self._expiries and self._expiries[0][0] <= now:
                touched.add(heapq.heappop(self._expiries)[1])
            for token in touched:
                self._recount(token, now)
            return Counter(self.answered), Counter(self.reserved)

    def warm_in_background(self, clock) -> threading.Thread | None:
        """Read the study once, in a daemon thread, so the first consent after a server
        start does not pay for it (with 10,000 participants that read takes seconds).
        Only the first call starts a thread; a failure is logged and the next consent
        simply reads the study itself."""
        with self._lock:
            if self._warming:
                return None
            self._warming = True

        def warm() -> None:
            try:
                self.current(clock())
            except Exception:  # a store problem surfaces at the next consent, with its message
                log.warning("INFACT: reading the situation load ahead of time failed", exc_info=True)

        thread = threading.Thread(target=warm, name="infact-load-warm", daemon=True)
        thread.start()
        return thread

    def _start(self) -> set[str]:
        """A store that keeps participant summaries (TinyDB: infact.stores.tinydb.summaries) gives
        every participant's facts and a change cursor after them: the first read of a study costs
        ~500 bytes per participant instead of all their records. Others start from nothing."""
        since = getattr(self.storage, "summaries_since", None)
        if since is None or self.condition is not None:  # summaries do not keep the condition
            return set()
        summaries, self._cursor = since(self.study_id)
        for token, s in summaries.items():
            if s.preview or token.startswith("_"):
                continue
            self._people[token] = _Participant(
                assigned=tuple(s.situations.values()),
                lease_until=s.lease_until,
                answered={s.situations[step] for step in s.answered if step in s.situations},
                complete=s.outcome is not None,
                withdrawn=s.withdrawn,
            )
        return set(self._people)

    def _take(self, rec: dict) -> str | None:
        """Fold one record into its participant's facts; the participant, if it matters."""
        if rec.get("study") != self.study_id or rec.get("preview"):
            return None
        kind = rec.get("kind")
        p = self._people.setdefault(rec["participant"], _Participant())
        if kind == "assignment":
            p.assigned = tuple(s["situation_id"] for s in rec["steps"] if not s.get("attention_check"))
            p.condition = rec.get("condition")
            p.lease_until = datetime.fromisoformat(rec["lease_until"])
        elif kind in situation_kinds() and not rec.get("attention_check"):
            p.answered.add(rec["situation_id"])
        elif kind == "complete":
            p.complete = True
        elif kind == "withdraw":
            p.withdrawn = True
        elif kind == "lease_end":  # returned or timed out on Prolific: the lease ends now (infact.prolific.sync)
            p.lease_end = datetime.fromisoformat(rec["lease_until"])
        else:
            return None
        return rec["participant"]

    def _recount(self, token: str, now: datetime) -> None:
        p = self._people[token]
        other = self.condition is not None and p.condition != self.condition  # another condition's participant
        answered: frozenset = frozenset() if p.withdrawn or other else frozenset(p.answered)
        reserved: frozenset = frozenset()
        until = p.lease_until if p.lease_end is None or p.lease_until is None else min(p.lease_until, p.lease_end)
        active = until is not None and until > now and not (p.complete or p.withdrawn or other)
        if active:
            reserved = frozenset(s for s in p.assigned if s not in p.answered)
            if reserved:
                heapq.heappush(self._expiries, (until, token))
        old_answered, old_reserved = p.counted
        self.answered.subtract(old_answered)
        self.reserved.subtract(old_reserved)
        self.answered.update(answered)
        self.reserved.update(reserved)
        p.counted = (answered, reserved)


_instances: weakref.WeakKeyDictionary[object, dict] = weakref.WeakKeyDictionary()
_instances_lock = threading.Lock()


def one_per_store(storage: Storage, study_id: str, cls):
    """The one `cls(storage, study_id)` of this store object and study (made on first use);
    also used for the comparison protocols' history (infact/participation/protocols.py)."""
    with _instances_lock:
        try:
            per_study = _instances.setdefault(storage, {})
        except TypeError:  # a store object that cannot be weakly referenced: no sharing
            return cls(storage, study_id)
        if (cls, study_id) not in per_study:
            per_study[(cls, study_id)] = cls(storage, study_id)
        return per_study[(cls, study_id)]


def for_store(storage: Storage, study_id: str, condition: str | None = None) -> SituationLoad:
    """The one SituationLoad of this store object and study (made on first use); of one condition's participants
    when `condition` is given."""
    if condition is None:
        return one_per_store(storage, study_id, SituationLoad)
    return one_per_store(storage, (study_id, condition), _OfCondition)


class _OfCondition(SituationLoad):
    """A condition's SituationLoad, made by `one_per_store` from its (study id, condition) key."""

    def __init__(self, storage: Storage, key: tuple[str, str]) -> None:
        super().__init__(storage, *key)
