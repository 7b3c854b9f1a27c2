"""The influence-ordered search finds the sets the exact search finds on small studies, and fragility says which
answers are exact and which approximate."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from infact.results.ranking import fragility as ranking_fragility
from infact.results.ranking import removal
from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as ranking
from simulations.votes import simulate_votes

STUDIES = [
    ([0.3, 0.1, -0.4], 0.5, 30, 8, 5),
    ([0.45, 0.40, 0.0], 0.6, 30, 10, 11),
    ([0.6, 0.2, -0.2, -0.6], 0.0, 36, 9, 3),
    ([0.2, 0.15, -0.35], 0.8, 45, 9, 7),
]


def questions(d, order):
    idx = [d.systems.index(s) for s in order]
    return [removal.Question(idx[0], idx[1:])] + [removal.Question(hi, [lo]) for hi, lo in pairwise(idx)]


@pytest.mark.parametrize("study", STUDIES, ids=[f"seed{s[-1]}" for s in STUDIES])
def test_influence_search_finds_sets_of_the_exact_size(study):
    strengths, nu, n_votes, n_people, seed = study
    votes = simulate_votes(strengths, nu, n_votes, n_people, seed=seed)
    d = pt.votes_design(votes)
    start = ranking.quick_fit(d)
    order = [d.systems[i] for i in np.argsort(-start[: len(d.systems)], kind="stable")]
    qs = questions(d, order)
    for units in (removal.Units.vote_cells(d)[0], removal.Units.participants(d)):
        found, _ = removal.influence_search(d, units, qs, start)
        sizes = [units.cap.sum() + 1 if f is None else int(f.sum()) for f in found]
        # every smaller set refitted, without a budget: the true smallest sizes
        exact = removal.exhaustive(d, units, qs, start, sizes, budget=10**9)
        for i, f in enumerate(found):
            assert f is not None, (i, "the search found no set")
            assert i not in exact["found"], (i, "a smaller set exists", int(exact["found"][i].sum()), sizes[i])
            assert exact["checked"] >= sizes[i] - 1  # every smaller size was refitted
            # the named set really flips the order under a refit
            x = removal.refit(d, removal.counts_after(d.counts, units, f[None]), start)
            assert qs[i].margins(x)[0] < 0


def test_fragility_states_exact_and_approximate():
    votes = simulate_votes([0.45, 0.40, 0.0, -0.3, -0.55], 0.6, 400, 40, seed=11)
    d = pt.votes_design(votes)
    order = [r["system"] for r in ranking.rank_systems(d, n_boot=0)["ranking"]]
    exact = ranking_fragility.fragility(votes, d, order)
    small = ranking_fragility.fragility(votes, d, order, budget=0)  # no exhaustive check: nothing proven
    for full, cheap in zip([exact["top"], *exact["adjacent"]], [small["top"], *small["adjacent"]]):
        for unit in ("votes", "participants"):
            m, c = full["method"][unit], cheap["method"][unit]
            assert len(full[unit]) == len(cheap[unit])  # the check found nothing smaller than the search
            assert c["search"] == ("exact" if len(cheap[unit]) == 1 else "approximate")
            assert c["ruled_out_up_to"] == 0 and c["description"].startswith(c["search"])
            if m["search"] == "exact":
                assert m["ruled_out_up_to"] == len(full[unit]) - 1 and "smaller sets" in m["description"]
            else:
                assert m["search"] == "approximate" and m["ruled_out_up_to"] < len(full[unit]) - 1
    assert exact["top"]["method"]["participants"]["search"] == "exact"  # both states occur here
    assert exact["top"]["method"]["votes"]["search"] == "approximate"
