"""Balanced assignment: each new participant gets the least-rated situations.

A situation's load counts its stored ratings plus the situations reserved by
participants still working within their lease. Withdrawn participants and
previews count for nothing; an unfinished participant whose lease expired keeps
only what they already answered. The caller holds `storage.lock()`, so twenty
participants arriving at once see each other's reservations and never over-fill
a situation. `load()` counts from a list of records (the dashboard's coverage);
a consent takes the same counts, kept up to date, from
infact.participation.situation_load.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from datetime import datetime

from infact.participation.steps.registry import situation_kinds
from infact.study.loader import Study


def _participants(records: list[dict]) -> dict[str, dict]:
    by: dict[str, dict] = {}
    for rec in records:
        if rec.get("preview"):
            continue
        p = by.setdefault(
            rec["participant"], {"assignment": None, "answered": set(), "complete": None, "withdrawn": False}
        )
        kind = rec.get("kind")
        if kind == "assignment":
            p["assignment"] = rec
        elif kind in situation_kinds() and not rec.get("attention_check"):
            p["answered"].add(rec["situation_id"])
        elif kind == "complete":
            p["complete"] = rec
        elif kind == "withdraw":
            p["withdrawn"] = True
        elif kind == "lease_end":  # Prolific says the place was returned or timed out (infact.prolific.sync)
            ends = (p.get("lease_end"), rec["lease_until"])
            p["lease_end"] = min(filter(None, ends), key=datetime.fromisoformat)
    return by


def load(study: Study, records: list[dict], now: datetime) -> tuple[Counter, Counter]:
    """(answered, reserved) counts per situation_id from all stored records."""
    answered: Counter = Counter()
    reserved: Counter = Counter()
    for p in _participants(records).values():
        if p["withdrawn"]:
            continue
        for sid in p["answered"]:
            answered[sid] += 1
        a = p["assignment"]
        if a is None or p["complete"] is not None:
            continue
        ends = min(filter(None, (a["lease_until"], p.get("lease_end"))), key=datetime.fromisoformat)
        if datetime.fromisoformat(ends) <= now:
            continue
        for s in a["steps"]:
            if not s.get("attention_check") and s["situation_id"] not in p["answered"]:
                reserved[s["situation_id"]] += 1
    return answered, reserved


def plan_assignment(study: Study, records: list[dict], *, rng: random.Random, now: datetime) -> list[dict]:
    """The situation steps for a new participant, planned from stored records."""
    answered, reserved = load(study, records, now)
    from infact.participation.protocols import History

    return plan_from_load(study, answered, reserved, rng=rng, history=History.of(records, study.id, now))


def plan_from_load(
    study: Study, answered: Mapping[str, int], reserved: Mapping[str, int], *, rng: random.Random, history=None
) -> list[dict]:
    """The situation steps for a new participant (stored in their assignment record),
    given each situation's (answered, reserved) counts; for comparison protocols also the
    pairs handed out and votes so far (`protocols.History`)."""
    cfg = study.config
    chosen = _least_loaded(study, answered, reserved, rng)
    if cfg.protocol.kind == "conversation":  # one system's conversation per step, a gold one mixed in
        from infact.participation.steps.conversation import conversation_steps

        return conversation_steps(study, chosen, rng)
    steps = _situation_steps(study, chosen, rng)
    if cfg.blocks == ("rating",):
        return steps
    from infact.participation.protocols import compare_steps

    # the same situations, compared instead of (or, in a further block, as well as) rated; numbered on
    # across blocks, so "Situation 4 of 6" follows "Situation 3 of 6" and every step name is unique
    out, n = [], cfg.study.situations_per_participant
    for b, kind in enumerate(cfg.blocks):
        block = [{**s, "index": s["index"] + b * n, "step": f"situation-{s['index'] + b * n}"} for s in steps]
        out += block if kind == "rating" else compare_steps(study, history, block, rng, kind=kind)
    return out


def _least_loaded(study: Study, answered: Mapping[str, int], reserved: Mapping[str, int], rng: random.Random) -> list:
    """The participant's regular situations: always the least-loaded first (this keeps max - min <= 1), shuffled."""
    n = study.config.regular_per_participant
    pool = list(study.situations)
    rng.shuffle(pool)  # random tie-break among equally loaded situations
    levels: dict[int, list] = {}
    for s in pool:
        levels.setdefault(answered.get(s.situation_id, 0) + reserved.get(s.situation_id, 0), []).append(s)
    # Always the least-loaded situations first (this keeps max - min <= 1); within one
    # load level prefer dialogs not chosen yet: the same conversation twice primes the reader.
    chosen, dialogs = [], set()
    for level in sorted(levels):
        remaining = list(levels[level])
        while remaining and len(chosen) < n:
            # re-checked after every pick: two situations of one dialog in the same level
            # must not both be taken while another dialog is available
            s = next((s for s in remaining if s.dialog_id not in dialogs), remaining[0])
            remaining.remove(s)
            chosen.append(s)
            dialogs.add(s.dialog_id)
        if len(chosen) == n:
            break
    rng.shuffle(chosen)
    return chosen


def _situation_steps(study: Study, chosen: list, rng: random.Random) -> list[dict]:
    """One rated step per situation, each with its own order of systems; the attention check at its drawn place."""
    cfg = study.config
    systems = list(cfg.study.systems)
    steps = []
    check_at = None
    if cfg.attention_check.enabled and study.attention_situation is not None:
        lo, hi = cfg.attention_check.positions
        check_at = rng.randint(lo, hi)
    regular = iter(chosen)
    for index in range(1, cfg.study.situations_per_participant + 1):
        order = systems[:]
        rng.shuffle(order)
        if index == check_at:
            steps.append(
                {
                    "step": f"situation-{index}",
                    "index": index,
                    "situation_id": study.attention_situation.situation_id,
                    "order": order,
                    "attention_check": True,
                    "instructed_system": rng.choice(systems),
                }
            )
        else:
            s = next(regular)
            steps.append(
                {
                    "step": f"situation-{index}",
                    "index": index,
                    "situation_id": s.situation_id,
                    "order": order,
                    "attention_check": False,
                }
            )
    return steps


def coverage(study: Study, records: list[dict], now: datetime) -> list[dict]:
    """Per situation: ratings stored, reserved by active participants, and the target."""
    answered, reserved = load(study, records, now)
    k = study.config.assignment.ratings_per_situation
    return [
        {
            "situation_id": s.situation_id,
            "dialog_id": s.dialog_id,
            "ratings": answered[s.situation_id],
            "reserved": reserved[s.situation_id],
            "target": k,
            "missing": max(0, k - answered[s.situation_id]),
        }
        for s in study.situations
    ]
