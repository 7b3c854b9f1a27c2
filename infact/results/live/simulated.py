"""Simulated participants (`bots --strategy llm`) beside the humans, on the same systems.

Simulated data is left out of every human table (infact/results/export.py); this compares
the two groups directly from the records: per system, the arena win rate (ties count half;
forfeits left out) and the satisfaction rate (chats ended satisfied among those ended satisfied or
frustrated), and how well the simulated ranking agrees with the human one (Kendall τ of win rates).
"""

from __future__ import annotations

import numpy as np


def _group_stats(records: list[dict], members: set[str]) -> dict:
    systems_of = {
        r["participant"]: r["systems"]
        for r in records
        if r.get("kind") == "chat_assignment" and r["participant"] in members
    }
    wins: dict[str, float] = {}
    shown: dict[str, int] = {}
    for v in records:
        if v.get("kind") != "chat_vote" or v["participant"] not in members or v.get("forfeit"):
            continue
        for s in systems_of.get(v["participant"], []):
            shown[s] = shown.get(s, 0) + 1
            wins[s] = wins.get(s, 0.0) + (
                1.0 if v["winner"] == s else 0.5 if v["winner"] in ("tie", "both_bad") else 0.0
            )
    ended = [
        r
        for r in records
        if r.get("kind") == "chat_end"
        and r["participant"] in members
        and r.get("ended_by") in ("satisfied", "frustrated")
    ]
    satisfied = {
        s: [r["ended_by"] == "satisfied" for r in ended if r.get("system") == s]
        for s in {r.get("system") for r in ended}
    }
    return {
        "participants": len(members),
        "votes": sum(1 for r in records if r.get("kind") == "chat_vote" and r["participant"] in members),
        "win_rate": {s: wins.get(s, 0.0) / n for s, n in shown.items()},
        "satisfaction_rate": {s: float(np.mean(v)) for s, v in satisfied.items() if v},
    }


def simulated_vs_human(records: list[dict]) -> dict | None:
    """None when no participant is simulated."""
    from scipy.stats import kendalltau

    previews = {r["participant"] for r in records if r.get("preview")}
    simulated = {r["participant"] for r in records if r.get("kind") == "simulated"} - previews
    if not simulated:
        return None
    everyone = {r["participant"] for r in records if r.get("kind") == "arrival"} - previews
    human, sim = _group_stats(records, everyone - simulated), _group_stats(records, simulated)
    both = sorted(set(human["win_rate"]) & set(sim["win_rate"]))
    tau = None
    if len(both) >= 2:
        value = kendalltau([human["win_rate"][s] for s in both], [sim["win_rate"][s] for s in both]).statistic
        tau = None if np.isnan(value) else float(value)
    return {"human": human, "simulated": sim, "kendall_tau_win_rates": tau, "systems_compared": both}


def render_markdown(result: dict) -> str:
    h, s = result["human"], result["simulated"]
    systems = sorted(
        set(h["win_rate"]) | set(s["win_rate"]) | set(h["satisfaction_rate"]) | set(s["satisfaction_rate"])
    )

    def pct(d, k):
        return "–" if k not in d else f"{d[k]:.0%}"

    tau = result["kendall_tau_win_rates"]
    lines = [
        "## Simulated participants vs humans",
        "",
        f"{s['participants']} simulated and {h['participants']} human participants; ranking agreement "
        f"(Kendall τ of arena win rates): {'–' if tau is None else f'{tau:.2f}'}.",
        "",
        "| system | human win rate | simulated win rate | human satisfied | simulated satisfied |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {x} | {pct(h['win_rate'], x)} | {pct(s['win_rate'], x)} | {pct(h['satisfaction_rate'], x)} | "
        f"{pct(s['satisfaction_rate'], x)} |"
        for x in systems
    ]
    return "\n".join(lines) + "\n"
