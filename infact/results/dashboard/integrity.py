"""A ranking's vote-integrity checks (infact/results/ranking/integrity.py) as the dashboard shows them: each
flagged vote with its reasons, each participant's anomaly score, and the ranking with and without the flagged
votes, plus what was left out and why (plain data; infact/ui/rankings.py draws it).

The dashboard runs `analyze`'s own checks with its defaults, once per data version: the anomaly score is
skipped above ANOMALY_MAX_PARTICIPANTS participants, and the ranking without the flagged votes has
INTEGRITY_BOOT bootstrap replicates. Both are said on screen.
"""

from __future__ import annotations

from infact.results.ranking.analysis import INTEGRITY_BOOT
from infact.results.ranking.integrity import ANOMALY_MAX_PARTICIPANTS

SHOWN_VOTES = 200  # flagged votes listed on the page (all of them are in `analyze --json`)
SHOWN_PARTICIPANTS = 10  # anomaly scores listed: the flagged ones and the least likely others


def integrity_view(result: dict) -> dict | None:
    """{summary, notes, votes, participants, comparison, order_changed} for a ranking result; None without checks."""
    checks = result.get("integrity")
    if not checks:
        return None
    found = [f"{reason}: {n}" for reason, n in checks["reasons"].items() if n]
    summary = (
        f"Vote integrity: {checks['n_flagged']} of {result.get('n_votes')} votes flagged ({'; '.join(found)})."
        if checks["n_flagged"]
        else f"Vote integrity: no vote flagged among {result.get('n_votes')}."
    )
    return {
        "summary": summary,
        "notes": _notes(result, checks),
        "votes": [_vote_row(v) for v in checks["flagged"][:SHOWN_VOTES]],
        "participants": _anomaly_rows(checks["participants"]),
        "comparison": _comparison(result["ranking"], checks["without_flagged"]),
        "order_changed": bool(checks["order_changed"]),
    }


def _notes(result: dict, checks: dict) -> list[str]:
    """What the checks were, what was skipped or cut for the dashboard, and why."""
    cap, seconds = checks["repeat_cap"], checks.get("min_seconds")
    notes = [
        f"Checked: repeated situations (or live openings) beyond {cap} per participant"
        + (f", votes faster than {seconds:g} s" if seconds else "")
        + ", and each participant's anomaly score (docs/ranking.md, 'Vote integrity')."
    ]
    if leaks := result.get("identity_leak_votes_left_out"):
        notes.append(f"Identity leaks: {leaks} votes where a system named itself are left out of this ranking.")
    if checks.get("anomaly_skipped"):
        notes.append(
            f"Anomaly score skipped: {result.get('n_participants')} participants, over the "
            f"{ANOMALY_MAX_PARTICIPANTS} up to which the dashboard computes it (it refits the model once per "
            "participant). `python -m infact analyze pairwise.csv --anomaly-max-participants 0` computes it."
        )
    elif not checks["participants"]:
        notes.append("Anomaly score: no participant has enough votes (5) to be scored.")
    if len(checks["flagged"]) > SHOWN_VOTES:
        notes.append(f"The first {SHOWN_VOTES} of {len(checks['flagged'])} flagged votes are listed (all: analyze).")
    if checks["n_flagged"] and checks["without_flagged"] is None:
        notes.append("No ranking without the flagged votes: fewer than two participants would be left.")
    elif checks["without_flagged"] is not None:
        notes.append(
            f"The ranking without the flagged votes has {INTEGRITY_BOOT} bootstrap replicates (its order and "
            "strengths are what is compared; the main ranking's intervals have more)."
        )
    return notes


def _vote_row(vote: dict) -> dict:
    return {
        "line": vote.get("line"),
        "participant": vote.get("participant"),
        "situation": vote.get("situation_id"),
        "pair": f"{vote.get('system_a')} vs {vote.get('system_b')}",
        "reasons": vote["reasons"],
    }


def _anomaly_rows(scores: list[dict]) -> list[dict]:
    """The flagged participants and the least likely others (scores come lowest p first)."""
    flagged = [s for s in scores if s["flagged"]]
    shown = flagged + [s for s in scores if not s["flagged"]][: max(0, SHOWN_PARTICIPANTS - len(flagged))]
    return [
        {
            "participant": s["participant"],
            "votes": s["n_votes"],
            "log-likelihood per vote": round(s["loglik_per_vote"], 3),
            "p (simulated as unlikely)": round(s["p"], 3),
            "flagged": "anomalous participant" if s["flagged"] else "",
        }
        for s in shown
    ]


def _comparison(ranking: list[dict], without: dict | None) -> list[dict]:
    """Per system: rank and strength with every vote, and without the flagged ones."""
    if without is None:
        return []
    other = {r["system"]: r for r in without["ranking"]}
    rows = []
    for r in ranking:
        o = other.get(r["system"])
        rows.append(
            {
                "system": r["system"],
                "rank": r["rank"],
                "strength": round(r["strength"], 2),
                "rank without flagged": o["rank"] if o else None,
                "strength without flagged": round(o["strength"], 2) if o else None,
            }
        )
    return rows
