"""Anytime-valid confidence sequences: intervals that may be looked at after every vote.

A fixed-sample 95% interval is wrong 5% of the time *at one sample size fixed in advance*. Watched
after every vote and acted on the first time it excludes 0, it is wrong far more often (issue 37
measured 38% for two equal systems). A confidence sequence is valid uniformly over time: the chance
that it *ever* excludes the truth is at most α, so stopping the first time it settles keeps α.

The boundary here is the intersection of two sequences, each valid on its own, at levels that add up to α
(the chance that either ever fails is at most the sum):

- **a line**, at 0.95·α: the two one-sided linear boundaries of Howard, Ramdas, McAuliffe & Sekhon (2021,
  "Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2), the sub-Gaussian line
  crossing: exp(λS − λ²V/2) is a supermartingale and Ville's inequality bounds the chance it ever reaches 2/α),

      |S_t − t·μ| < (log(2/α) + λ²V_t/2) / λ,      λ = √(2 log(2/α) / V*),

  tightest at the variance V* of the study size where a decision is expected (`tuned_for`). This is the
  sequential probability ratio test's boundary: near V* it is the cheapest to cross, and it is what brings the
  votes to settle a gap of 0.3 to 1.42–1.50× the fixed-sample interval's (bench/monitoring.py), where the
  normal mixture alone needed 1.64–1.82× (its own floor with the variance known is 1.67–1.70×);
- **the normal mixture**, at 0.05·α (Howard et al. eq. (14), mixing over λ ~ N(0, 1/ρ)),

      |S_t − t·μ| < √((V_t + ρ) · log((V_t + ρ) / (ρ α²))),

  tuned to 4·V*. A line alone is as wide as λV/2 for ever, so a gap smaller than that would never settle; the
  mixture's width goes to 0, so every real difference settles in the end.

S_t is the running sum of the observations and V_t their variance process. With V_t estimated this is an
asymptotic confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas 2024, "Time-uniform central limit
theory and asymptotic confidence sequences", Ann. Statist.).

One participant's answers are not independent, so V_t is the *participant-cluster* variance of the
sum, Σ_c (S_c − n_c·μ̂)² (the sandwich variance, participants as the independent units), and never
less than the observations' own variance Σ_t (x_t − μ̂)² (so a handful of participants cannot shrink it).
`PRIOR_UNITS` pseudo-observations of a known variance bound keep the first looks honest when the
empirical variance is still 0. No sequence is finite before `min_units` participants: a cluster variance from
few is the "few clusters" case of cluster-robust inference (Cameron & Miller 2015), and about the estimated mean
it shrinks by about T²/C exactly when the sum strays far from 0 (T the sum over its standard error, C the
participants), which let the bench's equal systems be called settled in up to 5.7% of studies with a burn-in of
30; with 40, at most 4.7%. The bench's figures for each choice are in bench/README.md. Every update is O(1),
so a look after every observation costs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

PRIOR_UNITS = 2.0  # pseudo-observations of the variance bound added to the variance estimate
MIN_UNITS = 40  # participants before the sequence is finite: a cluster variance from fewer is too noisy (bench)
LINE_SHARE = 0.95  # of α spent by the line; the rest by the normal mixture, which makes the sequence shrink to 0
TUNED_FOR = 800.0  # observations at which the line is tightest by default: 800 votes of a pair (docs/ranking.md)
MIXTURE_SPAN = 4.0  # the normal mixture is tuned to this many times the line's V*: it serves the long run


def boundary(v, rho, alpha: float):
    """The two-sided normal-mixture boundary on |S_t − tμ| at variance process v (numbers or arrays)."""
    return np.sqrt((v + rho) * np.log((v + rho) / (rho * alpha * alpha)))


def rho_for(v_opt, alpha: float):
    """ρ that makes the boundary tightest at variance v_opt: v_opt / (2 log(1/α) + log(1 + 2 log(1/α)))."""
    c = -2 * math.log(alpha)
    return v_opt / (c + math.log1p(c))


def line_boundary(v, v_opt, alpha: float):
    """The two-sided linear boundary on |S_t − tμ| at variance process v, tightest at v_opt: each one-sided line
    at α/2, (log(2/α) + λ²v/2)/λ with λ = √(2 log(2/α)/v_opt); at v_opt it is √(2·v_opt·log(2/α))."""
    c = math.log(2 / alpha)
    lam = np.sqrt(2 * c / v_opt)
    return (c + lam * lam * v / 2) / lam


def combined_boundary(v, v_opt, alpha: float):
    """The sequence's boundary on |S_t − tμ|: the tighter of the line at LINE_SHARE·α tuned to v_opt and the
    normal mixture at the rest of α tuned to MIXTURE_SPAN·v_opt (each valid alone: their intersection is at α)."""
    a_line, a_mix = LINE_SHARE * alpha, (1 - LINE_SHARE) * alpha
    mixture = boundary(v, rho_for(MIXTURE_SPAN * v_opt, a_mix), a_mix)
    return np.minimum(line_boundary(v, v_opt, a_line), mixture)


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
    tuned_for: float = TUNED_FOR,
    prior_variance: float = 1.0,
    min_units: int | None = None,
) -> Path:
    """The confidence sequence for the mean of `x` (in the order given), participants `cluster`, at every look.

    `tuned_for`: the number of observations at which it is tightest; `prior_variance`: a bound on one
    observation's variance (1 for votes coded +1/0/−1), worth `PRIOR_UNITS` observations. O(n) for all n looks:
    the cluster sums are running sums, so each look adds O(1)."""
    min_units = MIN_UNITS if min_units is None else min_units
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
    h = combined_boundary(v, tuned_for * per_unit, alpha) / n
    lo = np.where(units >= min_units, mean - h, -np.inf)
    hi = np.where(units >= min_units, mean + h, np.inf)
    return Path(n, units, mean, lo, hi, v)
