"""Is the stopping rule declared in study.toml's `[monitoring]` (infact/study/quality_config.py) met?

Read from an analysis result's `monitoring` sections (infact/results/monitoring/sequences.py): the dashboard
says so when it is, `analyze --study --json` reports it as `stopping_rule`, and `infact prolific pause` pauses
the Prolific study then.
"""

from __future__ import annotations


def sections(result: dict) -> list[tuple[str | None, dict]]:
    """(criterion, monitoring section) of an analysis result, one per criterion that has one."""
    parts = result.get("criteria") or {None: result}
    return [(name, part["monitoring"]) for name, part in parts.items() if part.get("monitoring")]


def widest(mon: dict) -> float | None:
    """The widest half-width among neighbouring pairs (the settled order's, else every pair compared); None while
    one of them has no finite interval yet."""
    pairs = mon["pairs"]
    if mon.get("order"):
        neighbours = set(zip(mon["order"], mon["order"][1:]))
        pairs = [p for p in pairs if (p["higher"], p["lower"]) in neighbours]
    if not pairs or any(None in p["interval"] for p in pairs):
        return None
    return max((p["interval"][1] - p["interval"][0]) / 2 for p in pairs)


def stopping(rule, result: dict, n_participants: int) -> dict:
    """Is the declared stopping rule (`[monitoring]`, infact/study/quality_config.py) met by this analysis?

    Settled and precision must hold for every criterion; the maximum counts the participants analysed."""
    found = sections(result)
    reasons = []
    if rule.stop_when_settled and found and all(m["settled"] for _, m in found):
        maximum = next((m["maximum"] for _, m in found if m.get("maximum")), None)
        scope = f"within the declared maximum of {maximum} participants" if maximum else "(anytime-valid)"
        reasons.append(f"the order is settled {scope}")
    if rule.precision is not None and found:
        widths = [widest(m) for _, m in found]
        if all(w is not None and w <= rule.precision for w in widths):
            reasons.append(f"every neighbouring pair is within ±{max(widths):.3g} (rule: ±{rule.precision:g})")
    if rule.max_participants is not None and n_participants >= rule.max_participants:
        reasons.append(f"{n_participants} participants (rule: at most {rule.max_participants})")
    return {
        "declared": rule.declared,
        "rule": rule.describe(),
        "met": bool(reasons) and rule.declared,
        "reasons": reasons,
        "n_participants": n_participants,
    }
