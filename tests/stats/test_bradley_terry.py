"""Bradley–Terry/Davidson rankings: the fit, the bootstrap, and the acceptance simulations with known truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from infact.results.ranking.analysis import analyze_votes
from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as ranking
from simulations.votes import PLANTED, PLANTED_NU, simulate_style_votes, simulate_votes

NAMES = [f"S{i + 1}" for i in range(len(PLANTED))]


def strengths(result: dict, key: str = "ranking") -> dict[str, float]:
    return {r["system"]: r["strength"] for r in result[key]}


@pytest.fixture(scope="module")
def planted():
    votes = simulate_votes(PLANTED, PLANTED_NU, 2000, 100, seed=7)
    return votes, analyze_votes(votes, n_boot=300, seed=1)


def test_2000_votes_recover_the_planted_order(planted):
    _, res = planted
    got = strengths(res)
    tau = kendalltau([got[n] for n in NAMES], PLANTED).statistic
    assert tau >= 0.9
    assert [r["rank"] for r in res["ranking"]] == [1, 2, 3, 4, 5, 6]
    # strengths are log-strengths centred to mean 0, close to the truth
    assert abs(sum(got.values())) < 1e-9
    assert max(abs(got[n] - t) for n, t in zip(NAMES, PLANTED)) < 0.3


def test_davidson_tie_parameter_is_recovered_with_an_interval(planted):
    _, res = planted
    lo, hi = res["tie_parameter_ci95"]
    assert lo < PLANTED_NU < hi
    assert abs(res["tie_parameter"] - PLANTED_NU) < 0.1


def test_intervals_contain_the_estimate_and_rank_ranges_follow_them(planted):
    _, res = planted
    rows = res["ranking"]
    for r in rows:
        assert r["ci95"][0] < r["strength"] < r["ci95"][1]
        assert r["rank_range"][0] <= r["rank"] <= r["rank_range"][1]
    for r in rows:
        stronger = sum(o["ci95"][0] > r["ci95"][1] for o in rows)
        weaker = sum(o["ci95"][1] < r["ci95"][0] for o in rows)
        assert r["rank_range"] == [1 + stronger, len(rows) - weaker]


def test_bootstrap_is_seeded(planted):
    votes, res = planted
    again = analyze_votes(votes, n_boot=300, seed=1)
    other = analyze_votes(votes, n_boot=300, seed=2)
    assert again["ranking"] == res["ranking"]
    assert other["ranking"][0]["ci95"] != res["ranking"][0]["ci95"]


def test_stacked_bootstrap_fit_equals_one_fit_per_replicate():
    votes = simulate_votes(PLANTED, PLANTED_NU, 600, 40, seed=3)
    d = pt.votes_design(votes)
    w = ranking.boot_weights(len(d.clusters), 6, seed=0)
    counts = np.asarray((d.cluster_counts.T @ w.T).T).reshape(-1, len(d.a), 3)
    stacked = ranking.fit(d, counts)
    single = np.vstack([ranking.fit(d, counts[i : i + 1]) for i in range(len(counts))])
    assert np.abs(stacked - single).max() < 1e-4


def test_without_ties_it_is_plain_bradley_terry_as_in_choix():
    import choix

    votes = simulate_votes(PLANTED, 0.0, 1500, 60, seed=4)
    assert (votes["winner"] != "tie").all()
    d = pt.votes_design(votes)
    assert not d.with_ties
    ours = ranking.fit(d)[0][: len(d.systems)]
    idx = {s: i for i, s in enumerate(d.systems)}
    data = [(idx[w], idx[b if w == a else a]) for a, b, w in zip(votes["system_a"], votes["system_b"], votes["winner"])]
    theirs = choix.opt_pairwise(len(d.systems), data, alpha=ranking.RIDGE)
    assert np.allclose(ours, theirs - theirs.mean(), atol=1e-3)


def test_rank_ranges_from_overlapping_intervals():
    lo = np.array([2.0, 1.5, 0.0, -1.0])
    hi = np.array([3.0, 2.5, 1.0, 0.5])
    assert ranking.rank_ranges(lo, hi) == [[1, 2], [1, 2], [3, 4], [3, 4]]


def test_settled_only_when_every_adjacent_pair_is_separated():
    rows = [{"system": "A", "ci95": [2, 3]}, {"system": "B", "ci95": [1, 1.5]}, {"system": "C", "ci95": [0, 1.2]}]
    s = ranking.settled(rows)
    assert not s["settled"]
    assert [g["separated"] for g in s["adjacent"]] == [True, False]
    rows[2]["ci95"] = [0, 0.9]
    assert ranking.settled(rows)["settled"]


def test_a_system_that_never_wins_gets_a_finite_strength():
    votes = pd.DataFrame(
        {
            "participant": ["p1", "p2", "p3"] * 4,
            "system_a": ["A", "B", "C"] * 4,
            "system_b": ["C", "C", "A"] * 4,
            "winner": ["A", "B", "A"] * 4,
        }
    )
    res = analyze_votes(votes, n_boot=100)
    bottom = res["ranking"][-1]
    assert bottom["system"] == "C"
    assert np.isfinite(bottom["strength"]) and np.isfinite(bottom["ci95"][0])


def test_style_control_removes_an_injected_length_preference():
    # S5 is truly the second-weakest but writes ~3x longer responses, and raters like length.
    votes = simulate_style_votes(PLANTED, PLANTED_NU, 2.0, 4000, 200, long_system=4, seed=3)
    res = analyze_votes(votes, covariates=("length", "items"), n_boot=100, seed=0)
    plain, styled = strengths(res), strengths(res["style_controlled"])
    truth = dict(zip(NAMES, PLANTED))
    assert plain["S5"] - truth["S5"] > 0.5  # the bias is there without control
    assert abs(styled["S5"] - truth["S5"]) < 0.25  # and gone with it
    assert [r["system"] for r in res["style_controlled"]["ranking"]] == NAMES
    cov = res["style_controlled"]["covariates"]
    assert cov["length"]["ci95"][0] > 0  # length preference detected
    assert cov["items"]["ci95"][0] < 0 < cov["items"]["ci95"][1]  # items have no effect


def test_covariates_need_their_columns():
    votes = simulate_votes(PLANTED, PLANTED_NU, 100, 10, seed=1)
    from infact.errors import InfactError

    with pytest.raises(InfactError, match="length_a"):
        analyze_votes(votes, covariates=("length",), n_boot=100)
