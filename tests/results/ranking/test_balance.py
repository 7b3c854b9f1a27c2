"""Sampling balance (pair, situation and system counts) and the pair-reweighted fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from infact.results.ranking import balance
from infact.results.ranking.analysis import analyze_votes
from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as bt


def unequal_votes() -> pd.DataFrame:
    """A–B 40 times, A–C 10, B–C 5 (and D only against A, 5 times); A wins 60% everywhere."""
    rows = []
    for (a, b), n in {("A", "B"): 40, ("A", "C"): 10, ("B", "C"): 5, ("A", "D"): 5}.items():
        for i in range(n):
            rows.append(
                {
                    "participant": f"p{i % 7}",
                    "situation_id": f"s{i % 3 if n > 5 else 9}",
                    "system_a": a,
                    "system_b": b,
                    "winner": a if i % 5 < 3 else b,
                }
            )
    return pd.DataFrame(rows)


def test_balance_reports_the_largest_and_smallest_counts():
    b = balance.balance(unequal_votes())
    assert b["pairs"] == {"n": 4, "largest": 40, "smallest": 5, "ratio": 8.0}
    assert b["pairs_never_compared"] == [["B", "D"], ["C", "D"]]
    assert b["systems"]["largest"] == 55 and b["systems"]["smallest"] == 5
    assert b["situations"]["smallest"] == 10 and b["situations"]["ratio"] == pytest.approx(18 / 10)


def test_reweighting_equals_a_fit_in_which_every_pair_was_compared_equally_often():
    votes = unequal_votes()
    d = pt.votes_design(votes)
    weighted = bt.fit(balance.reweighted_design(d))[0]
    # the same shares of wins, each pair replicated to 40 votes
    reps = {("A", "B"): 1, ("A", "C"): 4, ("B", "C"): 8, ("A", "D"): 8}
    copies = pd.concat([g for (a, b), g in votes.groupby(["system_a", "system_b"]) for _ in range(reps[(a, b)])])
    replicated = bt.fit(pt.votes_design(copies))[0]
    k = len(d.systems)
    assert np.allclose(weighted[:k], replicated[:k], atol=0.02)
    assert balance.reweighted_design(d).counts.sum() == pytest.approx(len(votes))


def test_analyze_reports_the_reweighted_ranking_beside_the_plain_one():
    res = analyze_votes(unequal_votes(), n_boot=200, seed=0, reweight=True, min_votes=0)
    assert res["balance"]["pairs"]["ratio"] == 8.0
    assert {r["system"] for r in res["reweighted"]["ranking"]} == {"A", "B", "C", "D"}
    assert res["reweighted"]["ranking"] != res["ranking"]
    assert "reweighted" not in analyze_votes(unequal_votes(), n_boot=200, seed=0)
