"""Which between-subjects condition a new participant gets: the one with the fewest completed participants plus
participants still working within their lease, ties drawn at random (as oTree's treatments and JATOS's batches).

A participant holds a place in their condition from consent until they complete (the place is then a completion),
withdraw, are screened out, or their lease ends — the assignment's `lease_until`, before the assignment the
consent time plus `assignment.lease_minutes`, or earlier when Prolific says the place was returned or timed out
(`lease_end`). A place whose lease ended is given again, so the conditions end balanced by *completions*. The group
parameter of the study link (`?q=NAME`) forces a condition. Previews count for nothing.

`ConditionLoad` keeps the per-participant facts up to date from the store's change feed (as situation_load does
for situations), one per (store, study) per process; the caller holds `storage.lock()`, so participants arriving
at once see each other's places. `condition_counts` gives the same figures from a list of records (dashboard).
"""

from __future__ import annotations

import functools
import random
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from infact.participation.platforms import Arrival, broken_link
from infact.participation.situation_load import one_per_store
from infact.storage import Storage
from infact.study.loader import Study


@dataclass
class _Place:
    condition: str | None = None
    started: datetime | None = None  # consent (the arrival record)
    lease_until: datetime | None = None  # the assignment's
    lease_end: datetime | None = None  # returned or timed out on Prolific
    outcome: str | None = None  # "completed" or "screened_out"
    withdrawn: bool = False


def _fold(people: dict[str, _Place], rec: dict, study_id: str) -> None:
    if rec.get("study") != study_id or rec.get("preview") or str(rec.get("participant", "_")).startswith("_"):
        return
    kind = rec.get("kind")
    if kind not in ("arrival", "assignment", "complete", "withdraw", "lease_end"):
        return
    p = people.setdefault(rec["participant"], _Place())
    if kind == "arrival":
        p.condition, p.started = rec.get("condition"), datetime.fromisoformat(rec["at"])
    elif kind == "assignment":
        p.lease_until = datetime.fromisoformat(rec["lease_until"])
    elif kind == "complete":
        p.outcome = rec.get("outcome") or "completed"
    elif kind == "withdraw":
        p.withdrawn = True
    else:
        end = datetime.fromisoformat(rec["lease_until"])
        p.lease_end = end if p.lease_end is None else min(p.lease_end, end)


def _state(p: _Place, now: datetime, lease: timedelta) -> str:
    """completed, active (holds a place), screened_out, withdrawn or abandoned (the lease ended)."""
    if p.withdrawn:
        return "withdrawn"
    if p.outcome is not None:
        return p.outcome
    until = p.lease_until or (p.started + lease if p.started else None)
    if until is not None and p.lease_end is not None:
        until = min(until, p.lease_end)
    return "active" if until is not None and until > now else "abandoned"


def _tally(people: Iterable[_Place], conditions: Sequence[str], now: datetime, lease: timedelta) -> dict:
    out = {c: {"completed": 0, "active": 0, "abandoned": 0, "screened_out": 0, "withdrawn": 0} for c in conditions}
    for p in people:
        if p.condition in out:
            out[p.condition][_state(p, now, lease)] += 1
    return out


def condition_counts(records: list[dict], study_id: str, conditions: Sequence[str], lease_minutes: float, now):
    """{condition: {completed, active, abandoned, screened_out, withdrawn}} from stored records."""
    people: dict[str, _Place] = {}
    for rec in records:
        _fold(people, rec, study_id)
    return _tally(people.values(), conditions, now, timedelta(minutes=lease_minutes))


def choose(counts: dict, rng: random.Random) -> str:
    """The condition with the fewest completions plus places held; ties at random."""
    held = {c: n["completed"] + n["active"] for c, n in counts.items()}
    low = min(held.values())
    return rng.choice([c for c, n in held.items() if n == low])


class ConditionLoad:
    """Per-participant places, kept up to date from `storage.changes` (one per store and study per process). Finished
    participants (completed, screened out, withdrawn) are counted once, as they finish: a consent looks only at the
    participants still open, so its cost does not grow with the completions."""

    def __init__(self, storage: Storage, study_id: str) -> None:
        self.storage = storage
        self.study_id = study_id
        self._open: dict[str, _Place] = {}
        self._finished: dict[str, tuple[str | None, str]] = {}  # token -> (condition, final state)
        self._final_counts: Counter = Counter()  # (condition, final state) -> participants
        self._cursor = None
        self._lock = threading.Lock()

    def _take(self, rec: dict) -> None:
        token = rec.get("participant")
        if token in self._finished:  # e.g. a completed participant who withdraws later
            condition, state = self._finished[token]
            place = _Place(condition=condition, outcome=None if state == "withdrawn" else state)
            place.withdrawn = state == "withdrawn"
        else:
            place = self._open.get(token)
        people = {token: place} if place is not None else {}
        _fold(people, rec, self.study_id)
        if token not in people:
            return
        place = people[token]
        final = "withdrawn" if place.withdrawn else place.outcome
        if final is None:
            self._open[token] = place
            return
        self._open.pop(token, None)
        if token in self._finished:
            self._final_counts[self._finished[token]] -= 1
        self._finished[token] = (place.condition, final)
        self._final_counts[(place.condition, final)] += 1

    def counts(self, conditions: Sequence[str], lease_minutes: float, now: datetime) -> dict:
        with self._lock:
            new, self._cursor = self.storage.changes(self._cursor)
            for rec in new:
                self._take(rec)
            out = _tally(self._open.values(), conditions, now, timedelta(minutes=lease_minutes))
            for (condition, state), n in self._final_counts.items():
                if condition in out:
                    out[condition][state] += n
            return out


def for_store(storage: Storage, study_id: str) -> ConditionLoad:
    return one_per_store(storage, study_id, ConditionLoad)


def check_forced(arrival: Arrival, study: Study) -> None:
    """PlatformError when the link's group parameter names no condition of a between-subjects study."""
    if arrival.group and study.conditions and arrival.group not in study.conditions:
        param = study.config.platform.group_param
        raise broken_link(
            study.config.platform.kind,
            param,
            f"{arrival.group!r} is not a condition of this study ({', '.join(study.conditions)}): "
            "leave it out to assign conditions at random",
        )


def condition_for(arrival: Arrival, flow, now: datetime) -> str:
    """A new participant's condition: the link's (`?q=`), else the one with the fewest completions plus places
    held (drawn with `flow.rng`). The caller holds `flow.storage.lock()`."""
    study = flow.study
    if arrival.group in study.conditions:
        return arrival.group
    counts = for_store(flow.storage, study.id).counts(study.conditions, study.config.assignment.lease_minutes, now)
    return choose(counts, flow.rng)


def of_participant(method):
    """A `Flow` method run by the Flow of its participant's condition (`Flow.of`; the state is its first argument):
    the condition's settings plan, check and store, and its records carry the condition."""

    @functools.wraps(method)
    def run(flow, st, *args, **kwargs):
        return method(flow.of(st), st, *args, **kwargs)

    return run
