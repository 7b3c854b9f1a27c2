"""Per-system statistics of live chats, from transcripts (docs/live.md, "Analysis").

- satisfaction rate: chats ended "satisfied" among those ended satisfied or frustrated
  (CRS Arena's measure), with a Wilson 95% interval;
- turns to the first accepted recommendation: the first answer with items that the
  participant rated helpful; without quick ratings, the last answer with items of a
  chat ended satisfied. Also the share of chats with an accepted recommendation;
- latency percentiles (p50/p90/p95, ms) of usable answers, and the failure rate of
  answer attempts by kind (timeout, http_status, …);
- identity leaks: chats where the system named itself or a model.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np


def first_accepted_turn(conv: dict) -> int | None:
    answers = [t for t in conv["turns"] if t["role"] == "assistant" and not t.get("error") and t.get("items")]
    ratings = conv.get("turn_ratings") or {}
    if ratings:
        return next((t["turn"] for t in answers if ratings.get(str(t["turn"])) is True), None)
    if conv.get("ended_by") == "satisfied" and answers:
        return answers[-1]["turn"]
    return None


def wilson(k: int, n: int, z: float = 1.96) -> list[float] | None:
    if n == 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "p50": None, "p90": None, "p95": None}
    p50, p90, p95 = np.percentile(values, [50, 90, 95])
    return {"n": len(values), "p50": round(float(p50), 1), "p90": round(float(p90), 1), "p95": round(float(p95), 1)}


def _system_summary(convs: list[dict]) -> dict:
    ended = Counter(c.get("ended_by") or "unfinished" for c in convs)
    judged = ended["satisfied"] + ended["frustrated"]
    accepted = [t for t in (first_accepted_turn(c) for c in convs) if t is not None]
    attempts = [t for c in convs for t in c["turns"] if t["role"] == "assistant"]
    failures = Counter(t["error"]["kind"] for t in attempts if t.get("error"))
    latencies = [t["latency_ms"] for t in attempts if not t.get("error") and t.get("latency_ms") is not None]
    return {
        "conversations": len(convs),
        "ended_by": dict(sorted(ended.items())),
        "satisfaction_rate": round(ended["satisfied"] / judged, 4) if judged else None,
        "satisfaction_ci95": wilson(ended["satisfied"], judged),
        "accepted_share": round(len(accepted) / len(convs), 4) if convs else None,
        "turns_to_first_accepted": {
            "mean": round(float(np.mean(accepted)), 2) if accepted else None,
            "median": float(np.median(accepted)) if accepted else None,
        },
        "user_turns_mean": round(float(np.mean([sum(t["role"] == "user" for t in c["turns"]) for c in convs])), 2),
        "latency_ms": _percentiles(latencies),
        "failure_rate": round(sum(failures.values()) / len(attempts), 4) if attempts else None,
        "failures": dict(sorted(failures.items())),
        "identity_leaks": sum(1 for c in convs if "identity_leak" in (c.get("flags") or [])),
    }


def live_summary(convs: list[dict]) -> dict:
    """{"systems": {name: summary}, "conversations": n}; systems in name order."""
    by_system: dict[str, list[dict]] = defaultdict(list)
    for c in convs:
        by_system[c["system"]].append(c)
    return {"conversations": len(convs), "systems": {s: _system_summary(cs) for s, cs in sorted(by_system.items())}}


def render_markdown(summary: dict) -> str:
    lines = [
        "## Live chats",
        "",
        f"{summary['conversations']} conversations.",
        "",
        "| system | chats | satisfied | 95% CI | accepted | turns to accept | p50 ms | p95 ms | failures | leaks |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summary["systems"].items():
        ci = s["satisfaction_ci95"]
        lines.append(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                name,
                s["conversations"],
                _pct(s["satisfaction_rate"]),
                f"{_pct(ci[0])}–{_pct(ci[1])}" if ci else "–",
                _pct(s["accepted_share"]),
                s["turns_to_first_accepted"]["mean"] or "–",
                s["latency_ms"]["p50"] or "–",
                s["latency_ms"]["p95"] or "–",
                _pct(s["failure_rate"]),
                s["identity_leaks"],
            )
        )
    arena = summary.get("arena")
    if arena:
        lines += [
            "",
            f"Arena votes: {arena['ranked_votes']} ranked; left out: {arena['identity_leak_votes_left_out']} "
            f"with an identity leak, {arena['skipped_system_votes_left_out']} with a skipped system.",
        ]
        if "ranking" in arena:
            lines += ["", "| rank | system | strength (log) | 95% CI |", "|---|---|---|---|"]
            lines += [
                f"| {r['rank']} | {r['system']} | {r['strength']:.2f} | [{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}] |"
                for r in arena["ranking"]
            ]
        else:
            lines.append(f"No ranking yet: {arena.get('problem', 'no votes')}")
    return "\n".join(lines) + "\n"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"
