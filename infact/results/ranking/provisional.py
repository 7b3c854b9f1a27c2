"""Provisional systems: too few decisive votes for their interval and rank to be read yet.

LMArena lists a model only after enough votes and marks newer scores "preliminary". Here a
system with fewer decisive votes (wins and losses; ties carry no order) than `min_votes` is
*provisional*: its votes stay in the fit — its opponents' strengths use them — but it is
listed apart, strengths are centred on the others (its wide uncertainty would otherwise widen
every interval), and "settled" and the fragility of the top speak only of the others.

`MIN_VOTES` comes from bench/min_votes.py (docs/ranking.md): a newcomer among six planted
systems, 100 simulated studies per vote count; from 30 decisive votes on, its 95% interval
covered the truth in at least 90% of studies *and* its rank was off by two or more places in at
most 10% of them, at every larger count measured (at 10 votes: 19% off by two places).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.stats import bradley_terry

MIN_VOTES = 30


def _decisive(d: bradley_terry.Design) -> np.ndarray:
    """Per system, its decisive votes (a tie or both bad is neither side's win), from the design's counts."""
    c = d.counts
    return np.bincount(d.a, c[:, 0] + c[:, 1], len(d.systems)) + np.bincount(d.b, c[:, 0] + c[:, 1], len(d.systems))


def established(d: bradley_terry.Design, min_votes: int = MIN_VOTES) -> list[int]:
    """Indices of the systems with at least `min_votes` decisive votes, from the design's counts."""
    per = _decisive(d)
    return [i for i in range(len(d.systems)) if per[i] >= min_votes]


def decisive_votes(votes: pd.DataFrame, systems: list[str]) -> dict[str, int]:
    """Per system, the votes it took part in that were not ties (nor both bad)."""
    decisive = votes[~votes["winner"].isin(("tie", "both_bad"))]
    counts = pd.concat([decisive["system_a"], decisive["system_b"]]).value_counts()
    return {s: int(counts.get(s, 0)) for s in systems}


def mark(
    result: dict, votes: pd.DataFrame, min_votes: int = MIN_VOTES, d: bradley_terry.Design | None = None
) -> list[str]:
    """Flag `result["ranking"]` rows (`provisional`, `n_decisive`), recompute `settled` over the established
    systems only, and return those systems best first (what the fragility of the top is about). `d`: the
    design of `votes` without covariates, whose counts give the decisive votes without reading the table again."""
    rows = result["ranking"]
    if d is not None:
        n = {s: int(k) for s, k in zip(d.systems, _decisive(d))}
    else:
        n = decisive_votes(votes, [r["system"] for r in rows])
    for r in rows:
        r["n_decisive"] = n[r["system"]]
        r["provisional"] = n[r["system"]] < min_votes
    established = [r for r in rows if not r["provisional"]]
    result["settled"] = bradley_terry.settled(established)
    result["settled"]["provisional"] = [r["system"] for r in rows if r["provisional"]]
    result["min_votes"] = min_votes
    return [r["system"] for r in established]
