"""The exact two-sided sign test (binomial, p = ½) and Holm's adjustment, vectorised, with numpy alone.

`sign_test_p(k, n)` equals `scipy.stats.binomtest(k, n).pvalue` and `holm(p)` equals statsmodels'
`multipletests(p, method="holm")[1]`, and `wilson_interval(k, n)` equals statsmodels'
`proportion_confint(k, n, method="wilson")` (all checked in tests/stats/test_binomial.py). Written here
because the ranking's per-pair sign tests, its position-bias test and its both-bad rates are the only reasons a pairwise
analysis would import scipy.stats and statsmodels (about a second of CPU on this machine before any
work), and because one binomtest call per pair costs more than the whole table at arena scale.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np


def sign_test_p(k, n) -> np.ndarray:
    """Two-sided exact p of k successes in n trials at p = ½ (NaN where n = 0): 2·P(X ≤ min(k, n − k)), at most 1.

    The distribution is symmetric, so "outcomes at most as likely as k" are the two tails beyond
    |k − n/2|; each tail is summed in log space from the log-factorials (no underflow before 1e-308)."""
    k, n = np.atleast_1d(np.asarray(k, dtype=np.int64)), np.atleast_1d(np.asarray(n, dtype=np.int64))
    out = np.full(k.shape, np.nan)
    if not n.size or n.max() <= 0:
        return out
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n.max() + 1)))])
    for i in np.flatnonzero(n > 0):
        m = min(k[i], n[i] - k[i])
        if 2 * m == n[i]:
            out[i] = 1.0
            continue
        j = np.arange(m + 1)
        log_pmf = log_fact[n[i]] - log_fact[j] - log_fact[n[i] - j] - n[i] * np.log(2.0)
        top = log_pmf.max()
        out[i] = min(1.0, 2.0 * np.exp(top + np.log(np.exp(log_pmf - top).sum())))
    return out


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries stay NaN and do not count as tests)."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    if not len(ok):
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out[order] = np.minimum(stepped, 1.0)
    return out


def wilson_interval(k, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (Wilson 1927) of k successes in n > 0 trials, vectorised: (low, high)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p, z2 = k / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
