"""Fragility: the named votes and participants, removed and refitted here by an independent Davidson fit,
really change the top (or an adjacent order); a clear top needs many; the exact search is exact."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize

from infact.results.ranking import fragility as ranking_fragility
from infact.results.ranking.analysis import analyze_votes
from infact.results.reports.preferences import render_markdown
from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as ranking
from simulations.votes import simulate_votes


def independent_strengths(votes: pd.DataFrame) -> dict[str, float]:
    """Davidson maximum likelihood written out from the formula (not INFACT's code), same weak N(0, 100) prior."""
    systems = sorted(set(votes["system_a"]) | set(votes["system_b"]))
    ix = {s: i for i, s in enumerate(systems)}
    a = votes["system_a"].map(ix).to_numpy()
    b = votes["system_b"].map(ix).to_numpy()
    win_a = (votes["winner"] == votes["system_a"]).to_numpy()
    win_b = (votes["winner"] == votes["system_b"]).to_numpy()
    tie = ~(win_a | win_b)

    k = len(systems)

    def nll(p):
        th, log_nu = p[:-1], p[-1]
        pa, pb = np.exp(th[a]), np.exp(th[b])
        mid = np.exp(log_nu) * np.sqrt(pa * pb)
        den = pa + pb + mid
        ll = np.log(np.where(win_a, pa, np.where(win_b, pb, mid)) / den)
        # gradient: d log(numerator) − d log(denominator), per vote, summed onto θ_a, θ_b and log ν
        ga = win_a + 0.5 * tie - (pa + 0.5 * mid) / den
        gb = win_b + 0.5 * tie - (pb + 0.5 * mid) / den
        grad = np.bincount(a, ga, k) + np.bincount(b, gb, k)
        g_nu = (tie - mid / den).sum()
        return -ll.sum() + 0.5 * 0.01 * (th**2).sum(), np.append(-grad + 0.01 * th, -g_nu)

    x0 = np.zeros(k + 1)
    if not tie.any():
        x0[-1] = -30.0
    res = minimize(nll, x0, jac=True, method="BFGS", options={"gtol": 1e-10})
    return dict(zip(systems, res.x[:-1]))


def top_of(votes: pd.DataFrame) -> str:
    s = independent_strengths(votes)
    return max(s, key=s.get)


def without_lines(votes: pd.DataFrame, lines) -> pd.DataFrame:
    return votes.drop(index=[line - 2 for line in lines])


@pytest.fixture(scope="module")
def near_tie():
    votes = simulate_votes([0.45, 0.40, 0.0, -0.3, -0.55], 0.6, 400, 40, seed=11)
    return votes, analyze_votes(votes, n_boot=200, seed=0)


def test_removing_the_named_votes_or_participants_changes_a_near_tied_top(near_tie):
    votes, res = near_tie
    top = res["fragility"]["top"]
    assert top["system"] == res["ranking"][0]["system"] == top_of(votes)
    assert 1 <= top["n_votes"] < 0.05 * len(votes)
    assert top_of(without_lines(votes, top["votes"])) != top["system"]
    assert top_of(without_lines(votes, top["votes"])) == top["becomes"]["votes"]
    dropped = votes[~votes["participant"].isin(top["participants"])]
    assert top_of(dropped) != top["system"]
    assert top["n_participants"] == len(set(top["participants"])) < len(set(votes["participant"]))


def test_each_adjacent_order_is_swapped_by_its_named_votes(near_tie):
    votes, res = near_tie
    adjacent = res["fragility"]["adjacent"]
    assert [(a["higher"], a["lower"]) for a in adjacent] == [
        (u["system"], v["system"]) for u, v in zip(res["ranking"], res["ranking"][1:])
    ]
    for a in adjacent:
        s = independent_strengths(without_lines(votes, a["votes"]))
        assert s[a["lower"]] > s[a["higher"]], a
        s = independent_strengths(votes[~votes["participant"].isin(a["participants"])])
        assert s[a["lower"]] > s[a["higher"]], a


def test_a_clear_top_needs_a_large_set_and_is_not_called_fragile():
    votes = simulate_votes([2.0, 0.0, -0.5, -1.5], 0.4, 600, 60, seed=3)
    res = analyze_votes(votes, n_boot=200, seed=0)
    top = res["fragility"]["top"]
    assert top["system"] == "S1"
    assert top["n_votes"] >= 0.08 * len(votes) and top["n_participants"] >= 6
    assert not top["fragile"]
    assert top_of(without_lines(votes, top["votes"])) != "S1"
    assert "fragile**" not in ranking_fragility.in_words(res["fragility"])


def tops(votes: pd.DataFrame, tol: float = 1e-6) -> set[str]:
    """Systems whose independent strength is the highest, within the BFGS fit's precision (an exact tie: both)."""
    s = independent_strengths(votes)
    best = max(s.values())
    return {k for k, v in s.items() if v >= best - tol}


def every_removal(votes: pd.DataFrame, key: str, below: int):
    """Every removal of 1 … below−1 rows (key=None) or participants, each distinct one for the fit once.

    Rows with the same pair and winner are interchangeable in the likelihood, so removals that take
    the same multiset of (system_a, system_b, winner) leave the same data and are refitted once."""
    cells = list(zip(votes.index, zip(votes["system_a"], votes["system_b"], votes["winner"])))
    rows_of = {}
    for (row, cell), unit in zip(cells, votes[key] if key else votes.index):
        rows_of.setdefault(unit, []).append((row, cell))
    seen = set()
    for size in range(1, below):
        for picked in combinations(sorted(rows_of), size):
            gone = [rc for u in picked for rc in rows_of[u]]
            sig = tuple(sorted(cell for _, cell in gone))
            if sig not in seen:
                seen.add(sig)
                yield picked, votes.drop(index=[row for row, _ in gone])


@pytest.mark.slow
def test_the_exact_search_is_exact_on_a_small_study():
    """Every smaller removal, refitted independently, keeps the top on top. A removal that leaves an exact tie
    does not count as a change (INFACT asks for another system strictly above), so a tie passes here too."""
    votes = simulate_votes([0.3, 0.1, -0.4], 0.5, 21, 7, seed=5)
    d = pt.votes_design(votes)
    order = [r["system"] for r in ranking.rank_systems(d, n_boot=0)["ranking"]]
    frag = ranking_fragility.fragility(votes, d, order)
    top = frag["top"]
    assert top["method"]["votes"]["search"] == "exact"
    assert top_of(without_lines(votes, top["votes"])) != order[0]
    for rows, left in every_removal(votes, None, top["n_votes"]):
        assert order[0] in tops(left), rows
    assert top["method"]["participants"]["search"] == "exact"
    gone = votes["participant"].isin(top["participants"])
    assert top_of(votes[~gone]) != order[0]
    for people, left in every_removal(votes, "participant", top["n_participants"]):
        assert order[0] in tops(left), people


def test_line_numbers_survive_dropped_flagged_rows_and_the_report_says_fragile():
    votes = simulate_votes([0.31, 0.30, -0.6], 0.5, 120, 12, seed=2)
    flagged = votes.assign(excluded=votes["participant"] == "p0000")
    res = analyze_votes(flagged, n_boot=200, seed=0)
    top = res["fragility"]["top"]
    kept = flagged[~flagged["excluded"]]
    assert set(top["votes"]) <= {i + 2 for i in kept.index}
    s = independent_strengths(without_lines(kept, top["votes"]))
    assert max(s, key=s.get) != top["system"]
    if top["fragile"]:
        assert "**fragile**" in render_markdown(res)
    assert "### Fragility" in render_markdown(res)


def test_one_decisive_participant_makes_the_top_fragile():
    rows = (
        [("p1", "A", "B", "A")] * 3
        + [("p2", "A", "B", "B"), ("p3", "A", "B", "B")]
        + [(f"q{i}", x, "C", x) for i, x in enumerate(["A", "B"] * 4)]
    )
    votes = pd.DataFrame(rows, columns=["participant", "system_a", "system_b", "winner"]).assign(situation_id="s")
    res = analyze_votes(votes, n_boot=200, seed=0)
    top = res["fragility"]["top"]
    assert top["system"] == "A" and top["participants"] == ["p1"] and top["fragile"]
    assert "fragile" in ranking_fragility.in_words(res["fragility"])


def test_on_crs_arena_sized_votes_the_named_sets_flip_the_top_under_an_independent_refit():
    """185 votes among nine close systems with 72 ties (CRS Arena's size; its real votes are not in
    ../shared/data): what the influence-ordered search names really changes the top and each adjacent order."""
    from bench.fragility import crs_arena_like

    votes = crs_arena_like()
    res = analyze_votes(votes, n_boot=200, seed=0)
    top = res["fragility"]["top"]
    assert top["system"] == top_of(votes)
    assert top_of(without_lines(votes, top["votes"])) == top["becomes"]["votes"] != top["system"]
    assert top_of(votes[~votes["participant"].isin(top["participants"])]) != top["system"]
    for a in res["fragility"]["adjacent"]:
        s = independent_strengths(without_lines(votes, a["votes"]))
        assert s[a["lower"]] > s[a["higher"]], a
