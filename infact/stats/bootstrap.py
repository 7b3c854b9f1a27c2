"""The participant-cluster bootstrap, as weights: every interval on ratings and annotations draws from it.

A replicate redraws participants (not single answers) with replacement, because one person's answers
are not independent; each replicate is a row of counts, so a statistic is a weighted sum over people.
"""

from __future__ import annotations

import numpy as np


def boot_weights(n: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n) counts: how often each participant is drawn in each replicate."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n)) + (np.arange(n_boot) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=n_boot * n).reshape(n_boot, n).astype(float)


def percentile_ci(samples: np.ndarray) -> np.ndarray:
    return np.nanpercentile(samples, [2.5, 97.5], axis=0)
