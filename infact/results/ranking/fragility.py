"""How few votes, or participants, decide the ranking: the smallest removal that changes the top or an adjacent order.

Huang et al. (2025) showed that dropping a handful of Chatbot Arena's votes can change its top
model. For one question ("does the top stay on top?", "does the upper of two neighbours stay
above?") this module finds a smallest set of *units* — votes, or whole participants — whose
removal, refitted, answers "no", and names them: votes by their line in the input file (header =
line 1), participants by id. The search (infact/results/ranking/removal.py) orders the units by
their first-order influence on the margin (Broderick, Giordano & Meager's approximate maximum
influence perturbation), refits a batch of candidate sets around the predicted size, linearises again
at the refitted point nearest the boundary until no smaller set is found, and prunes; then every
removal of 1, 2, … units is refitted while within `BUDGET` refits, which makes small sets exact. Each
answer says which it is: `exact` (every smaller set refitted without a change) or `approximate` (an
upper bound confirmed by a refit, with every set up to `ruled_out_up_to` units ruled out).

A removal that leaves an exact tie (margin within 1e-9) does not count as a change: another system
must end strictly above.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd

from infact.results.ranking import removal
from infact.results.ranking.removal import Question, Units
from infact.stats import bradley_terry as ranking

BUDGET = 8000  # smaller sets refitted (shared by all questions) before a size is called exact
FRAGILE_SHARE = 0.01  # a top that falls to fewer than 1% of the votes (or one participant) is fragile

__all__ = ["BUDGET", "Question", "Units", "fragility", "in_words", "smallest_removals"]


def smallest_removals(
    d: ranking.Design, units: Units, questions: list[Question], start: np.ndarray, budget: int = BUDGET, stage: str = ""
) -> list[dict]:
    """Per question {removed: (U,) counts or None, exact, ruled_out_up_to, refits, search_refits} for one kind
    of unit: the influence-ordered search's set, replaced by a smaller one if the exhaustive check finds it."""
    searched, search_refits = removal.influence_search(d, units, questions, start, stage)
    sizes = [int(units.cap.sum()) + 1 if r is None else int(r.sum()) for r in searched]
    ex = removal.exhaustive(d, units, questions, start, sizes, budget, stage)
    out = []
    for i, removed in enumerate(searched):
        if i in ex["found"]:
            removed = ex["found"][i]
        size = None if removed is None else int(removed.sum())
        checked = min(ex["checked"], (size or sizes[i]) - 1)
        out.append(
            {
                "removed": removed,
                "exact": size is not None and checked >= size - 1,
                "ruled_out_up_to": checked,
                "refits": ex["refits"],
                "search_refits": search_refits,
            }
        )
    return out


# --------------------------------------------------------------------------- naming and reporting


def vote_cells_of_rows(votes: pd.DataFrame, d: ranking.Design) -> np.ndarray:
    """Flattened pattern × outcome cell of every vote row (design()'s orientation: low system index first)."""
    a, b = (pd.Categorical(votes[c], categories=d.systems).codes.astype(np.int64) for c in ("system_a", "system_b"))
    out = np.where(votes["winner"] == votes["system_a"], 0, np.where(votes["winner"] == votes["system_b"], 1, 2))
    swap = a > b
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    out = np.where(swap & (out < 2), 1 - out, out)
    k = len(d.systems)
    pattern = np.full(k * k, -1)
    pattern[d.a * k + d.b] = np.arange(len(d.a))
    return pattern[lo * k + hi] * 3 + out


def _name_votes(removed: np.ndarray, cells: np.ndarray, row_cells: np.ndarray, lines: np.ndarray) -> list[int]:
    picked = []
    for u in np.flatnonzero(removed > 0):
        rows = np.flatnonzero(row_cells == cells[u])  # interchangeable for the fit: the first by line
        picked += [int(v) for v in np.sort(lines[rows])[: int(removed[u])]]
    return sorted(picked)


def _new_top(d, total, units, removed, start, among: list[int]) -> str:
    x = removal.refit(d, removal.counts_after(total, units, removed[None]), start)[0]
    return d.systems[among[int(np.argmax(x[among]))]]


def _method(res: dict, unit: str) -> dict:
    n, up = res["refits"], res["ruled_out_up_to"]
    if res["removed"] is None:
        text = f"no removal of {unit}s found that changes it (influence-ordered search, refitted)"
    elif res["exact"]:
        text = (
            f"exact: the set was found by the influence-ordered search and refitted, and all {n} smaller sets of "
            f"{unit}s were refitted without a change"
            if n
            else "exact: a single " + unit + " changes it"
        )
    else:
        text = (
            f"approximate: {unit}s ordered by their first-order influence on the margin, candidate sets refitted "
            f"and the influence re-estimated at each refitted point, pruned, confirmed by a refit without the set; "
            f"every set of up to {up} {unit}(s) ({n} refits) was ruled out, larger ones not searched"
        )
    return {
        "search": "none found" if res["removed"] is None else ("exact" if res["exact"] else "approximate"),
        "ruled_out_up_to": up,
        "refits": n,
        "search_refits": res["search_refits"],
        "description": text,
    }


def fragility(votes: pd.DataFrame, d: ranking.Design, order: list[str], budget: int = BUDGET) -> dict | None:
    """Fragility of the top of `order` (system names best first, the compared ones) and of each adjacent pair.

    `votes` are the rows behind `d` (their index + 2 is the line in the input file)."""
    if len(order) < 2 or d.z.shape[1]:
        return None
    idx = [d.systems.index(s) for s in order]
    start = ranking.quick_fit(d)
    cells_units, cells = Units.vote_cells(d)
    row_cells, lines = vote_cells_of_rows(votes, d), votes.index.to_numpy() + 2
    questions = [Question(idx[0], idx[1:])] + [Question(hi, [lo]) for hi, lo in pairwise(idx)]
    answers = [{"method": {}} for _ in questions]
    for unit, units in (("vote", cells_units), ("participant", Units.participants(d))):
        for a, res in zip(answers, smallest_removals(d, units, questions, start, budget, f"fragility by {unit}s")):
            removed = res["removed"]
            a[unit + "s"] = (
                None
                if removed is None
                else (
                    _name_votes(removed, cells, row_cells, lines)
                    if unit == "vote"
                    else [d.clusters[u] for u in np.flatnonzero(removed > 0)]
                )
            )
            a["method"][unit + "s"] = _method(res, unit)
            if removed is not None and a is answers[0]:
                a.setdefault("becomes", {})[unit + "s"] = _new_top(d, d.counts, units, removed, start, idx)
    n_votes, n_people = int(d.counts.sum()), len(d.clusters)
    top = {"system": order[0], **answers[0]}
    top.setdefault("becomes", {})
    top.update(_sizes(top, n_votes, n_people))
    adjacent = [
        {"higher": d.systems[q.upper], "lower": d.systems[q.rivals[0]], **a} for q, a in zip(questions[1:], answers[1:])
    ]
    adjacent = [{**a, **_sizes(a, n_votes, n_people)} for a in adjacent]
    return {
        "top": top,
        "adjacent": adjacent,
        "n_votes": n_votes,
        "n_participants": n_people,
        "fragile_share": FRAGILE_SHARE,
    }


def _sizes(row: dict, n_votes: int, n_people: int) -> dict:
    nv = None if row["votes"] is None else len(row["votes"])
    npp = None if row["participants"] is None else len(row["participants"])
    fragile = (nv is not None and nv < FRAGILE_SHARE * n_votes) or npp == 1
    below = int(np.ceil(FRAGILE_SHARE * n_votes)) - 1  # the largest vote count under 1%
    checked = (
        row["method"]["votes"]["ruled_out_up_to"] >= below and row["method"]["participants"]["ruled_out_up_to"] >= 1
    )
    return {
        "n_votes": nv,
        "share_votes": None if nv is None else nv / n_votes,
        "n_participants": npp,
        "share_participants": None if npp is None else npp / n_people,
        "fragile": bool(fragile),
        "robustness_checked": bool(checked and not fragile),
    }


def in_words(frag: dict | None) -> str:
    """One or two sentences on the top's fragility, for the report and the dashboard."""
    if not frag:
        return ""
    t = frag["top"]
    parts = []
    if t["n_votes"] is not None:
        parts.append(
            f"removing {t['n_votes']} of {frag['n_votes']} votes ({t['share_votes']:.1%}) makes "
            f"{t['becomes'].get('votes', '?')} the top"
        )
    if t["n_participants"] is not None:
        parts.append(
            f"removing {t['n_participants']} of {frag['n_participants']} participants makes "
            f"{t['becomes'].get('participants', '?')} the top"
        )
    if not parts:
        return f"No removal of votes or participants that changes the top ({t['system']}) was found."
    how = f"{'; '.join(parts)} instead of {t['system']}."
    if t["fragile"]:
        return f"The top is **fragile**: {how}"
    if t["robustness_checked"]:
        return (
            f"The top is not fragile: every set of fewer than 1% of the votes and every single participant was "
            f"removed and refitted without changing it; {how}"
        )
    up = t["method"]["votes"]["ruled_out_up_to"]
    return (
        f"No set of fewer than 1% of the votes, nor a single participant, that changes the top was found "
        f"(every set of up to {up} votes was refitted; larger sets were searched greedily, so a smaller one "
        f"may exist); {how}"
    )
