"""The confidence sequences behind the dashboard's "settled" (infact/stats/confseq.py): closed forms, the
incremental cluster variance against a brute-force one, and coverage under watching on simulated data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from infact.stats import confseq


def test_the_boundary_is_where_the_mixture_martingale_reaches_one_over_alpha():
    """Howard et al. (2021) eq. (14): √(ρ/(V+ρ))·exp(B²/(2(V+ρ))) = 1/α exactly at the boundary B."""
    for v, rho, alpha in [(100.0, 12.0, 0.05), (2500.0, 60.0, 0.01), (7.0, 1.0, 0.1)]:
        b = confseq.boundary(v, rho, alpha)
        martingale = math.sqrt(rho / (v + rho)) * math.exp(b * b / (2 * (v + rho)))
        assert math.isclose(martingale, 1 / alpha, rel_tol=1e-9)


def test_rho_for_makes_the_boundary_tightest_where_it_is_tuned():
    for v_opt in (50.0, 500.0, 5000.0):
        rho = confseq.rho_for(v_opt, 0.05)
        best = minimize_scalar(lambda r, v=v_opt: confseq.boundary(v, r, 0.05), bounds=(1e-3, v_opt), method="bounded")
        assert confseq.boundary(v_opt, rho, 0.05) <= best.fun * 1.005


def test_the_running_cluster_variance_equals_the_brute_force_one_at_every_look():
    rng = np.random.default_rng(3)
    cluster = rng.integers(0, 30, 400)
    x = rng.choice([-1.0, 0.0, 1.0], 400)
    path = confseq.sequence(cluster, x, min_units=1)
    for t in (25, 150, 399):
        xs, cs = x[: t + 1], cluster[: t + 1]
        mu = xs.mean()
        units = len(set(cs))
        clustered = sum((xs[cs == c] - mu).sum() ** 2 for c in set(cs)) * units / max(units - 1, 1)
        plain = ((xs - mu) ** 2).sum()
        n = t + 1
        expected = (max(clustered, plain) + confseq.PRIOR_UNITS) / (n + confseq.PRIOR_UNITS) * n
        assert math.isclose(path.variance[t], expected, rel_tol=1e-9)
        assert path.units[t] == units and path.n[t] == n


def test_no_interval_before_the_minimum_of_participants():
    x = np.ones(100)  # 100 wins in a row, by 5 participants: no variance to trust yet
    path = confseq.sequence(np.repeat(np.arange(5), 20), x)
    assert not path.separated().any() and np.isinf(path.lo).all()


def _study(rng, n=1500, per=20, tau=0.4, gap=0.0):
    people = n // per
    cluster = np.repeat(np.arange(people), per)
    d = gap + rng.normal(0, tau, people)[cluster]
    x = np.where(rng.random(n) < 1 / (1 + np.exp(-d)), 1.0, -1.0)
    return cluster, x


@pytest.mark.slow
def test_watched_after_every_vote_it_is_rarely_ever_wrong_where_the_fixed_interval_often_is():
    """Two equal systems, heterogeneous participants, 200 studies: the share of studies whose interval *ever*
    excluded the truth stays under 5% for the sequence, and is far above it for the fixed-sample interval."""
    rng = np.random.default_rng(11)
    ever_wrong = fixed_wrong = 0
    for _ in range(200):
        cluster, x = _study(rng)
        path = confseq.sequence(cluster, x)
        ever_wrong += path.separated().any()
        watched = path.units >= confseq.MIN_UNITS
        fixed_wrong += (np.abs(path.mean) > path.fixed_half_width())[watched].any()
    assert ever_wrong / 200 <= 0.05
    assert fixed_wrong / 200 >= 0.15


def test_a_real_difference_is_found_and_the_interval_covers_it():
    rng = np.random.default_rng(5)
    cluster, x = _study(rng, n=3000, gap=0.6)
    path = confseq.sequence(cluster, x)
    true_margin = 2 * (1 / (1 + math.exp(-0.6))) - 1  # about 0.29, a little less with heterogeneity
    assert path.first_separated() is not None and path.lo[-1] > 0
    assert path.lo[-1] < true_margin < path.hi[-1] + 0.05
