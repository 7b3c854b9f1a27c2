"""Assignment for comparison protocols: which systems each assigned situation shows.

The balanced assignment (assignment.py) picks a participant's situations and the check's
position as for ratings; here each of those steps becomes a `pairwise` step showing two
systems (from pair_schedule: balanced or adaptive) or a `best_worst` step showing
`protocol.set_size` systems, the least-shown first. Pairs already handed out to others
(their assignment records) count as compared, so simultaneous arrivals spread over pairs;
assignment runs under the store's lock, so the next consent sees them. In adaptive mode only
participants still within their lease count as working on a pair: the pairs of someone who
left or withdrew are free again, as their situations are (situation_load.py).
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from datetime import datetime

from infact.scheduling import pairs as pair_schedule
from infact.storage import Storage
from infact.study.loader import Study
from infact.study.protocol_config import PAIRWISE_KINDS


class History:
    """Comparison orders handed out (assignment records) and pairwise votes (first criterion),
    kept up to date from the store's change feed like situation_load: a consent reads only
    what arrived since the previous one. One per (store, study) via `for_store`."""

    def __init__(self, study_id: str, storage: Storage | None = None, condition: str | None = None) -> None:
        self.study_id, self.storage = study_id, storage
        # A between-subjects condition's history holds only its own participants' orders and votes: each condition
        # covers its pairs and sets alike, as its situations (situation_load.py).
        self.condition = condition
        self.orders: dict[str, list[tuple[str, list[str]]]] = {}  # participant → [(kind, order)]
        self.votes: list[tuple[str, str, dict, str]] = []  # (left, right, choices, participant)
        self.leases: dict[str, datetime] = {}  # participant → end of their lease
        self.withdrawn: set[str] = set()
        self.now: datetime | None = None  # the clock of the last update
        self._cursor = None
        self._lock = threading.Lock()

    @classmethod
    def of(
        cls, records: list[dict], study_id: str, now: datetime | None = None, condition: str | None = None
    ) -> History:
        h = cls(study_id, condition=condition)
        h.now = now
        for rec in records:
            h._take(rec)
        return h

    @classmethod
    def for_store(cls, storage: Storage, study_id: str, condition: str | None = None) -> History:
        from infact.participation.situation_load import one_per_store

        return one_per_store(storage, (study_id, condition), _history)

    def current(self, now: datetime | None = None) -> History:
        with self._lock:
            self.now = now
            new, self._cursor = self.storage.changes(self._cursor)
            for rec in new:
                self._take(rec)
        return self

    def _take(self, rec: dict) -> None:
        if rec.get("study") != self.study_id or rec.get("preview"):
            return
        mine = rec.get("condition") == self.condition  # another condition's orders and votes do not count here
        if rec.get("kind") == "assignment" and mine:
            self.orders[rec["participant"]] = [
                (s.get("kind", "situation"), s["order"]) for s in rec.get("steps", []) if not s.get("attention_check")
            ]
            if rec.get("lease_until"):
                self.leases[rec["participant"]] = datetime.fromisoformat(rec["lease_until"])
        elif rec.get("kind") == "withdraw":
            self.withdrawn.add(rec["participant"])
        elif rec.get("kind") in PAIRWISE_KINDS and not rec.get("attention_check") and mine:
            left, right = (x["system"] for x in rec["responses"][:2])
            self.votes.append((left, right, rec["choices"], rec["participant"]))

    def assigned(self, kind: str) -> list[list[str]]:
        return [order for steps in self.orders.values() for k, order in steps if k == kind]

    def decided(self, criterion: str) -> list[tuple[str, str, str, str]]:
        """(left, right, winner, participant) of every vote on `criterion`."""
        return [(a, b, choices.get(criterion, "tie"), who) for a, b, choices, who in self.votes]

    def pending(self, kind: str) -> list[tuple[str, str]]:
        """Pairs handed out and not voted on yet by participants still working on them: within
        their lease (as of `now`, when known) and not withdrawn. Someone who left frees their pairs."""
        voted = Counter((who, tuple(sorted((a, b)))) for a, b, _choices, who in self.votes)
        out = []
        for who, steps in self.orders.items():
            until = self.leases.get(who)
            if who in self.withdrawn or (self.now is not None and until is not None and until <= self.now):
                continue
            for k, order in steps:
                key = (who, tuple(sorted(order[:2])))
                if k != kind:
                    continue
                if voted[key] > 0:
                    voted[key] -= 1
                else:
                    out.append(key[1])
        return out


def _history(storage: Storage, key: tuple[str, str | None]) -> History:
    study_id, condition = key
    return History(study_id, storage, condition)


def compare_steps(
    study: Study, history: History | None, steps: list[dict], rng: random.Random, kind: str | None = None
) -> list[dict]:
    """`steps` (the assigned situations) as steps of comparison protocol `kind` (default: [protocol] kind)."""
    cfg = study.config
    history = history or History(study.id)
    proto = cfg.protocol
    systems = list(cfg.study.systems)
    regular = [s for s in steps if not s.get("attention_check")]
    kind = kind or proto.kind
    if kind in PAIRWISE_KINDS:
        if proto.pairs == "adaptive":  # votes so far, and pairs others are working on count as compared
            votes, pending = history.decided(cfg.criteria[0].id), history.pending(kind)
        else:
            votes, pending = [(a, b, "") for a, b in (o[:2] for o in history.assigned(kind))], []
        orders = [
            list(p)
            for p in pair_schedule.choose_pairs(
                systems, votes, len(regular), mode=proto.pairs, rng=rng, pending=pending
            )
        ]
        rng.shuffle(orders)  # a participant's pairs in random order across their situations
    else:
        shown = Counter(s for order in history.assigned(kind) for s in order)
        size = min(proto.set_size or len(systems), len(systems))
        orders = []
        for _ in regular:
            pool = sorted(systems, key=lambda s: (shown[s], rng.random()))[:size]
            rng.shuffle(pool)
            shown.update(pool)
            orders.append(pool)
    out, it = [], iter(orders)
    for s in steps:
        s = {**s, "kind": kind, "step": f"{kind.replace('_', '-')}-{s['index']}"}
        if s.get("attention_check"):
            size = 2 if kind in PAIRWISE_KINDS else min(proto.set_size or len(systems), len(systems))
            order = rng.sample(systems, size)
            s.update(order=order, instructed_system=rng.choice(order))
        else:
            s["order"] = next(it)
        out.append(s)
    return out
