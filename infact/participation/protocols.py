"""Assignment for comparison protocols: which systems each assigned situation shows.

The balanced assignment (assignment.py) picks a participant's situations and the check's
position as for ratings; here each of those steps becomes a `pairwise` step showing two
systems (from pair_schedule: balanced or adaptive) or a `best_worst` step showing
`protocol.set_size` systems, the least-shown first. Pairs already handed out to others
(their assignment records) count as compared, so simultaneous arrivals spread over pairs.
"""

from __future__ import annotations

import random
from collections import Counter

from infact.participation import pair_schedule
from infact.study.loader import Study


def _assigned(records: list[dict], kind: str) -> list[list[str]]:
    return [s["order"] for r in records if r.get("kind") == "assignment" and not r.get("preview")
            for s in r.get("steps", []) if s.get("kind") == kind and not s.get("attention_check")]


def _votes(records: list[dict], criterion: str) -> list[tuple[str, str, str]]:
    """Stored pairwise answers (first criterion) as (left, right, winner) for the adaptive fit."""
    out = []
    for r in records:
        if r.get("kind") == "pairwise" and not r.get("preview") and not r.get("attention_check"):
            left, right = (x["system"] for x in r["responses"][:2])
            out.append((left, right, r["choices"].get(criterion, "tie")))
    return out


def compare_steps(study: Study, records: list[dict], steps: list[dict], rng: random.Random) -> list[dict]:
    cfg = study.config
    proto = cfg.protocol
    systems = list(cfg.study.systems)
    regular = [s for s in steps if not s.get("attention_check")]
    kind = proto.kind
    if kind == "pairwise":
        answered = _votes(records, cfg.criteria[0].id)
        votes = answered if proto.pairs == "adaptive" else [(a, b, "") for a, b in (o[:2] for o in _assigned(records, kind))]
        orders = [list(p) for p in pair_schedule.choose_pairs(systems, votes, len(regular), mode=proto.pairs, rng=rng)]
        rng.shuffle(orders)  # a participant's pairs in random order across their situations
    else:
        shown = Counter(s for order in _assigned(records, kind) for s in order)
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
            size = 2 if kind == "pairwise" else min(proto.set_size or len(systems), len(systems))
            order = rng.sample(systems, size)
            s.update(order=order, instructed_system=rng.choice(order))
        else:
            s["order"] = next(it)
        out.append(s)
    return out
