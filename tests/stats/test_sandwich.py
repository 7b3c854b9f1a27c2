"""The closed-form participant-cluster covariance is what the cluster bootstrap estimates."""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.results.tables import comparisons as pt
from infact.scheduling.pairs import adjacent_contrasts, robust_inflation
from infact.stats import bradley_terry as ranking
from infact.stats.sandwich import covariances
from simulations.votes import PLANTED, PLANTED_NU, simulate_votes


def sd(cov: np.ndarray, contrasts: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ak,kl,al->a", contrasts, cov, contrasts))


def fitted(votes: pd.DataFrame):
    d = pt.votes_design(votes)
    return d, ranking.fit(d)[0]


def test_sandwich_matches_the_participant_bootstrap():
    d, x = fitted(simulate_votes(PLANTED, PLANTED_NU, 1500, 120, seed=3))
    k = len(d.systems)
    a = adjacent_contrasts(x[:k])
    model, robust = covariances(d, x)
    boot = np.cov((ranking.bootstrap(d, 2000, 0, x)[:, :k] @ a.T).T)
    assert np.allclose(sd(robust, a), np.sqrt(np.diag(boot)), rtol=0.08)
    # independent votes from a correct model: both agree with the model on average
    assert 0.85 < np.mean(sd(robust, a) / sd(model, a)) < 1.15


def test_a_participant_counted_twice_is_not_twice_the_evidence():
    votes = simulate_votes(PLANTED, PLANTED_NU, 900, 90, seed=5)
    d1, x1 = fitted(votes)
    d2, x2 = fitted(pd.concat([votes, votes]))  # every vote repeated by the same participant
    k = len(d1.systems)
    a = adjacent_contrasts(x1[:k])
    (m1, r1), (m2, r2) = covariances(d1, x1), covariances(d2, x2)
    assert np.allclose(sd(m2, a), sd(m1, a) / np.sqrt(2), rtol=0.02)  # the model believes the copies
    assert np.allclose(sd(r2, a), sd(r1, a), rtol=0.02)  # the clusters do not
    ratio = (sd(r2, a) / sd(m2, a)) ** 2 / (sd(r1, a) / sd(m1, a)) ** 2
    assert np.allclose(ratio, 2.0, rtol=0.05)
    assert robust_inflation(x2[:k], m2, r2).max() <= 2.0  # kept within [1/2, 2]


def test_without_ties_the_tie_parameter_is_left_out():
    votes = simulate_votes(PLANTED, 0.0, 600, 60, seed=1)
    assert not (votes["winner"] == "tie").any()
    d, x = fitted(votes)
    model, robust = covariances(d, x)
    assert np.isfinite(robust).all() and np.allclose(robust.sum(axis=1), 0, atol=1e-9)  # centred
