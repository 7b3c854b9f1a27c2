"""Provisional systems: fewer decisive votes than min_votes — counted in the fit, listed apart, never in 'settled'."""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.results.ranking.analysis import analyze_votes
from infact.results.ranking.provisional import MIN_VOTES
from infact.results.reports.preferences import render_markdown
from simulations.votes import simulate_votes


def with_newcomer(n_decisive: int, seed: int = 0) -> pd.DataFrame:
    """Four clearly separated systems, then NEW: a strong newcomer with n decisive wins and two ties."""
    base = simulate_votes([1.5, 0.5, -0.5, -1.5], 0.3, 1200, 60, seed=seed)
    rng = np.random.default_rng(seed)
    opp = [f"S{i}" for i in rng.integers(1, 5, n_decisive + 2)]
    extra = pd.DataFrame(
        {
            "participant": [f"p{i:04d}" for i in rng.integers(0, 60, len(opp))],
            "situation_id": "s00",
            "criterion": "meaningful",
            "system_a": "NEW",
            "system_b": opp,
            "winner": ["NEW"] * n_decisive + ["tie", "tie"],
        }
    )
    return pd.concat([base, extra], ignore_index=True)


def test_a_system_below_min_votes_is_provisional_counted_and_left_out_of_settled():
    votes = with_newcomer(8)
    res = analyze_votes(votes, n_boot=200, seed=0)
    rows = {r["system"]: r for r in res["ranking"]}
    assert rows["NEW"]["provisional"] and rows["NEW"]["n_decisive"] == 8
    assert res["min_votes"] == MIN_VOTES
    decisive = votes[votes["winner"] != "tie"]
    for s in ("S1", "S2", "S3", "S4"):
        assert not rows[s]["provisional"]
        assert rows[s]["n_decisive"] == int(((decisive["system_a"] == s) | (decisive["system_b"] == s)).sum())
    # its votes are counted: NEW won all 8, so it tops the joint fit, but nothing settled or fragile speaks of it
    assert res["ranking"][0]["system"] == "NEW"
    assert all("NEW" not in (g["higher"], g["lower"]) for g in res["settled"]["adjacent"])
    assert res["settled"]["provisional"] == ["NEW"] and res["settled"]["settled"]
    assert res["fragility"]["top"]["system"] == "S1"
    md = render_markdown(res)
    assert md.index("Provisional (fewer than 30 decisive votes") < md.index("| NEW |")
    assert "settled (provisional systems left out)" in md


def test_enough_decisive_votes_or_min_votes_zero_make_it_established():
    res = analyze_votes(with_newcomer(35), n_boot=200, seed=0)
    assert not any(r["provisional"] for r in res["ranking"])
    res = analyze_votes(with_newcomer(8), n_boot=200, seed=0, min_votes=0)
    assert not any(r["provisional"] for r in res["ranking"])
    assert any("NEW" in (g["higher"], g["lower"]) for g in res["settled"]["adjacent"])
