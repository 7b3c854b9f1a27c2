"""The numpy sign test and Holm adjustment give scipy's and statsmodels' numbers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from infact.stats.binomial import holm, sign_test_p, wilson_interval


def test_sign_test_equals_scipy_binomtest():
    cases = [(0, 1), (1, 1), (3, 10), (5, 10), (6, 11), (0, 40), (17, 40), (250, 520), (900, 2000), (7, 2000)]
    k, n = np.array(cases).T
    ours = sign_test_p(k, n)
    theirs = [binomtest(int(a), int(b)).pvalue for a, b in cases]
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-300)


def test_no_trials_give_nan():
    assert np.isnan(sign_test_p([0, 2], [0, 4])[0]) and sign_test_p([0, 2], [0, 4])[1] == 1.0


def test_holm_equals_statsmodels_and_skips_nan():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.2, 30) ** 2
    p[[3, 17]] = np.nan
    p[5] = p[6]  # a tie keeps its order
    ok = ~np.isnan(p)
    expected = np.full(len(p), np.nan)
    expected[ok] = multipletests(p[ok], method="holm")[1]
    assert np.allclose(holm(p), expected, equal_nan=True)


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_interval_equals_statsmodels(confidence):
    k = np.array([0, 1, 3, 17, 50, 99, 100])
    n = np.array([5, 1, 10, 40, 100, 100, 100])
    lo, hi = wilson_interval(k, n, confidence)
    want = np.array([proportion_confint(a, b, alpha=1 - confidence, method="wilson") for a, b in zip(k, n)])
    np.testing.assert_allclose(lo, want[:, 0], atol=1e-12)
    np.testing.assert_allclose(hi, want[:, 1], atol=1e-12)
