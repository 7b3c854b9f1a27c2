"""The declared-maximum boundary (infact/stats/horizon.py): its constant, its crossing probability checked on
simulated Brownian paths, the inflation factor, and that nothing is claimed anew beyond the maximum."""

from __future__ import annotations

import numpy as np
import pytest

from infact.stats import confseq, horizon


def _brownian_paths(n_paths: int, steps: int, seed: int, drift: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    increments = rng.normal(drift / steps, np.sqrt(1 / steps), (n_paths, steps))
    return np.cumsum(increments, axis=1)


def test_the_constant_is_the_continuous_obrien_fleming_one():
    assert horizon.constant(0.05) == pytest.approx(2.2414, abs=1e-3)
    assert horizon.sup_crossing(horizon.constant(0.05)) == pytest.approx(0.05, abs=1e-6)
    assert horizon.constant(0.01) > horizon.constant(0.05) > 1.96  # stricter than one look, more so at lower α


def test_brownian_paths_cross_the_boundary_in_alpha_of_runs():
    """4,000 paths on a grid of 4,000 looks (fixed seed): a grid sees slightly fewer crossings than continuous
    time, so the share sits at or a little under α, never over it by more than the simulation's noise."""
    paths = _brownian_paths(4000, 4000, seed=7)
    share = float((np.abs(paths).max(axis=1) >= horizon.constant(0.05)).mean())
    assert 0.035 <= share <= 0.057


def test_the_inflation_factor_gives_the_fixed_designs_power_by_the_maximum():
    """At the maximum N_fixed × inflation, a drift of the fixed design's 80% power reaches the boundary in 80% of
    simulated paths."""
    factor = horizon.inflation(0.05, 0.8)
    assert 1.0 < factor < 1.1
    drift = (1.959964 + 0.841621) * np.sqrt(factor)
    assert horizon.reach(drift, horizon.constant(0.05)) == pytest.approx(0.8, abs=1e-6)
    paths = _brownian_paths(4000, 2000, seed=3, drift=drift)
    assert float((paths.max(axis=1) >= horizon.constant(0.05)).mean()) == pytest.approx(0.8, abs=0.03)


def test_the_half_width_is_constant_on_the_sums_scale_when_the_variance_grows_with_n():
    n = np.array([10, 40, 90])
    h = horizon.half_width(n * 1.0, n, 90, 0.05)
    assert np.allclose(h, horizon.constant(0.05) * np.sqrt(90))


def test_beyond_the_maximum_the_ends_stay_as_they_were_at_it():
    rng = np.random.default_rng(1)
    cluster = np.repeat(np.arange(100), 10)
    x = rng.choice([-1.0, 1.0], len(cluster))
    path = horizon.finite(confseq.sequence(cluster, x, min_units=horizon.MIN_UNITS), cluster + 1, 60, 0.05)
    at_max = np.flatnonzero(cluster + 1 == 60)[-1]
    assert np.all(path.lo[at_max:] == path.lo[at_max]) and np.all(path.hi[at_max:] == path.hi[at_max])
    assert np.isinf(path.lo[: np.flatnonzero(cluster + 1 == horizon.MIN_UNITS)[0]]).all()  # the burn-in stays
    assert np.isfinite(path.lo[at_max])


def test_the_declared_maximum_is_the_plan_times_the_inflation_and_never_under_the_burn_in():
    m = horizon.declared_maximum(667, 20)  # bench/monitoring.py's plan: 667 votes, 20 a participant
    assert m * 20 >= 667 * horizon.inflation(0.05, 0.8, m) and (m - 1) * 20 < 667 * horizon.inflation(0.05, 0.8, m - 1)
    assert horizon.declared_maximum(10, 1) == horizon.MIN_UNITS  # a small plan: the burn-in comes first
