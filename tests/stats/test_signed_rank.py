"""The fast signed-rank p-value is scipy's own, for the small tied samples pilots produce."""

import numpy as np
import pytest
from scipy import stats

from infact.stats.signed_rank import signed_rank_p


@pytest.mark.slow  # 3.9 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_p_values_equal_scipy_wilcoxon_on_rating_differences():
    rng = np.random.default_rng(0)
    # scipy's own path is the slow one (2^n statistic calls), so compare on small n plus the limit, 13
    sizes = [2, 3, 4, 5, 6, 7, 8, 8, 9, 13]
    for n in sizes:
        # per-participant mean differences on a 5-point scale: ties and zeros are the rule
        d = rng.integers(-4, 5, size=n) / rng.integers(1, 4)
        d[0] = d[0] or 1.0
        assert signed_rank_p(d) == pytest.approx(stats.wilcoxon(d).pvalue, abs=1e-12), d


def test_untied_and_large_samples_take_scipys_path():
    d = np.arange(1, 9) * np.array([1, -1, 1, 1, -1, 1, 1, 1])  # no ties, no zeros: exact distribution
    assert signed_rank_p(d) == pytest.approx(stats.wilcoxon(d).pvalue)
    big = np.random.default_rng(9).integers(-2, 3, size=60).astype(float)
    assert signed_rank_p(big) == pytest.approx(stats.wilcoxon(big).pvalue)
