"""Anytime-valid confidence sequences: intervals that may be looked at after every vote.

A fixed-sample 95% interval is wrong 5% of the time *at one sample size fixed in advance*. Watched
after every vote and acted on the first time it excludes 0, it is wrong far more often (issue 37
measured 38% for two equal systems). A confidence sequence is valid uniformly over time: the chance
that it *ever* excludes the truth is at most α, so stopping the first time it settles keeps α.

The sequence here is the two-sided normal mixture of Howard, Ramdas, McAuliffe & Sekhon (2021,
"Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2), eq. (14)):
mixing exp(λS − λ²V/2) over λ ~ N(0, 1/ρ) gives the martingale √(ρ/(V+ρ)) · exp(S²/(2(V+ρ))), and
Ville's inequality bounds the chance that it ever reaches 1/α, so

    |S_t − t·μ| < √((V_t + ρ) · log((V_t + ρ) / (ρ α²)))      for every t at once, w.p. ≥ 1 − α,

with S_t the running sum of the observations and V_t their variance process. With V_t the empirical
variance this is the asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas
(2024, "Time-uniform central limit theory and asymptotic confidence sequences", Ann. Statist.).

One participant's answers are not independent, so V_t is the *participant-cluster* variance of the
sum, Σ_c (S_c − n_c·μ̂)² (the sandwich variance, participants as the independent units), and never
less than the votes' own variance Σ_t (x_t − μ̂)² (so a handful of participants cannot shrink it).
`PRIOR_UNITS` pseudo-observations of a known variance bound keep the first looks honest when the
empirical variance is still 0, and no sequence is finite before `MIN_UNITS` = 30 participants: a cluster
variance from fewer is the "few clusters" case of cluster-robust inference (Cameron & Miller 2015), and the bench
(bench/monitoring.py) found a burn-in of 30 keeps the error below α at the early looks by itself. An earlier
version also read the boundary as a t quantile with C − 1 degrees of freedom after 20 participants: it was
ever wrong less often, but cost ~10% more votes where decisions are made, while the burn-in alone kept the
error under 5% in every case measured (bench/README.md has both methods' figures).

ρ sets where the sequence is tightest: `rho_for(v)` minimises the boundary at variance v (Howard et al. §3.5),
i.e. at the sample size where the study expects to stop (500 votes of a pair: with the variance known, the votes
to settle a gap of 0.3 were the fewest for ρ tuned to 250–750 votes and rose beyond). The two-sided mixture is
the average of the two one-sided (half-normal) mixtures, so it crosses no later than a one-sided boundary per
direction at α/2 would. Every update is O(1), so a look after every vote costs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

PRIOR_UNITS = 2.0  # pseudo-observations of the variance bound added to the variance estimate
MIN_UNITS = 30  # participants before the sequence is finite: a cluster variance from fewer is too noisy (bench)


def boundary(v, rho, alpha: float):
    """The two-sided normal-mixture boundary on |S_t − tμ| at variance process v (numbers or arrays)."""
    return np.sqrt((v + rho) * np.log((v + rho) / (rho * alpha * alpha)))


def rho_for(v_opt, alpha: float):
    """ρ that makes the boundary tightest at variance v_opt: v_opt / (2 log(1/α) + log(1 + 2 log(1/α)))."""
    c = -2 * math.log(alpha)
    return v_opt / (c + math.log1p(c))


def fixed_half_width(v, confidence: float):
    """The fixed-sample (Wald) half-width z·√v on the sum: valid at one sample size fixed in advance."""
    # statistics.NormalDist, not scipy.stats: a pairwise analysis imports neither scipy.stats nor statsmodels
    # (tests/results/ranking/test_both_bad.py), and the quantile is the same to 1e-15
    return NormalDist().inv_cdf(0.5 + confidence / 2) * np.sqrt(v)


@dataclass(frozen=True)
class Path:
    """A confidence sequence for a mean at every look: entry t is the look after observation t + 1."""

    n: np.ndarray  # observations so far
    units: np.ndarray  # participants so far
    mean: np.ndarray
    lo: np.ndarray  # the confidence sequence's ends (±inf before `min_units` participants)
    hi: np.ndarray
    variance: np.ndarray  # V_t, the variance process of the sum (about the mean)

    def separated(self, null: float = 0.0) -> np.ndarray:
        """At each look: does the sequence exclude `null`?"""
        return (self.lo > null) | (self.hi < null)

    def fixed_half_width(self, confidence: float = 0.95) -> np.ndarray:
        """The fixed-sample (Wald) half-width at each n, from the same variance: valid at one n fixed in advance."""
        return fixed_half_width(self.variance, confidence) / self.n

    def first_separated(self, null: float = 0.0) -> int | None:
        """The first look (1-based observation count) at which the sequence excludes `null`, else None."""
        hit = np.flatnonzero(self.separated(null))
        return int(hit[0]) + 1 if len(hit) else None


def sequence(
    cluster,
    x,
    *,
    alpha: float = 0.05,
    tuned_for: float = 500.0,
    prior_variance: float = 1.0,
    min_units: int = MIN_UNITS,
) -> Path:
    """The confidence sequence for the mean of `x` (in the order given), participants `cluster`, at every look.

    `tuned_for`: the number of observations at which it is tightest; `prior_variance`: a bound on one
    observation's variance (1 for votes coded +1/0/−1), worth `PRIOR_UNITS` observations. O(n) for all n looks:
    the cluster sums are running sums, so each look adds O(1)."""
    x = np.asarray(x, dtype=float)
    cluster = np.asarray(cluster)
    if not len(x):
        empty = np.zeros(0)
        return Path(empty.astype(int), empty.astype(int), empty, empty, empty, empty)
    groups = pd.Series(x).groupby(cluster, sort=False)
    s_prev = groups.cumsum().to_numpy() - x  # the participant's sum before this observation
    m_prev = groups.cumcount().to_numpy().astype(float)  # and their count
    n = np.arange(1, len(x) + 1)
    total = np.cumsum(x)
    mean = total / n
    ss = np.cumsum((s_prev + x) ** 2 - s_prev**2)  # Σ_c S_c²
    sn = np.cumsum((s_prev + x) * (m_prev + 1) - s_prev * m_prev)  # Σ_c S_c n_c
    nn = np.cumsum(2 * m_prev + 1)  # Σ_c n_c²
    sq = np.cumsum(x * x)

    units = np.cumsum(m_prev == 0)
    # Σ_c (S_c − n_c μ̂)², with the usual small-sample factor C / (C − 1) for the mean estimated from C clusters
    clustered = (ss - 2 * mean * sn + mean**2 * nn) * units / np.maximum(units - 1, 1)
    plain = sq - n * mean**2  # Σ_t (x_t − μ̂)²
    per_unit = (np.maximum(np.maximum(clustered, plain), 0.0) + PRIOR_UNITS * prior_variance) / (n + PRIOR_UNITS)
    v = per_unit * n
    h = boundary(v, rho_for(tuned_for * per_unit, alpha), alpha) / n
    lo = np.where(units >= min_units, mean - h, -np.inf)
    hi = np.where(units >= min_units, mean + h, np.inf)
    return Path(n, units, mean, lo, hi, v)
