"""A boundary for a study that declared its maximum in advance: cheaper to settle than an open-ended sequence.

An anytime-valid confidence sequence (confseq.py) must hold for ever, so it pays for looks at every sample size
up to infinity. A study that declares, before it starts, a maximum of N participants only ever looks at n ≤ N,
and the classical group-sequential answer spends the error on [0, N] alone (Jennison & Turnbull 2000, ch. 2 and
7; O'Brien & Fleming 1979; Lan & DeMets 1983). On the *B-value* scale (Lan & Wittes 1988), B(t) = Z_n·√t with
t = n / N the share of the maximum reached, the standardised sum of independent participants' answers is a
Brownian motion W(t) on [0, 1] when the two systems are equal. The boundary here is constant on that scale:

    separated when |B(t)| ≥ c,  i.e.  |Z_n| ≥ c·√(N / n),   c from  P(sup_{t ≤ 1} |W_t| ≥ c) = α,

the continuous-monitoring version of O'Brien & Fleming's boundary (c = 2.2414 at α = 0.05). Any set of looks
before N is a subset of continuous time, so looking after every vote keeps the error at or below α (asymptotically,
as the normal approximation of the participant sums holds). On the sum's scale the boundary is c·√(V_N): constant,
with V_N = V_n·N/n the variance the sum will have at the maximum, estimated from the participants so far.

It is wide early and tight late: at N it is c / 1.96 = 1.14 times the fixed-sample interval, and a study
declared at the fixed-sample size × `inflation(α, power)` (1.06 for 80% power in the limit: the "inflation
factor" of a group-sequential design) settles a true gap by N as often as the fixed-sample design does at its
size. Two small-sample parts (`finite`): Z is read on t with C − 1 degrees of freedom and its variance is taken
about 0; with them the factor is 1.25–1.28 at 40–45 participants (`declared_maximum` finds N). Beyond N no new
separation is claimed: the error was spent by then (sequences.monitor looks at the first N participants only).

Why O'Brien–Fleming and not a Pocock-type constant level or a power-family spending function: a study declared
from a power analysis settles near N, and this boundary spends the least early and the most there
(bench/monitoring.py; a constant-level try with a 3,000-vote maximum needed 1.59× the fixed-sample votes).
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from infact.stats.confseq import Path

_N = NormalDist()
# Participants before a pair may separate. Fewer than the open-ended sequence's (confseq.MIN_UNITS): here Z is read
# on t and the variance is taken about 0, which keep the few-clusters error in check by themselves (bench).
MIN_UNITS = 30


def sup_crossing(c: float) -> float:
    """P(sup_{0 ≤ t ≤ 1} |W_t| ≥ c) for a standard Brownian motion W (the reflection series, Feller 1971 X.5)."""
    if c <= 0:
        return 1.0
    inside = sum((-1) ** k * (_N.cdf((2 * k + 1) * c) - _N.cdf((2 * k - 1) * c)) for k in range(-60, 61))
    return min(1.0, max(0.0, 1.0 - inside))


@lru_cache(maxsize=32)
def constant(alpha: float) -> float:
    """c with P(sup_{t ≤ 1} |W_t| ≥ c) = α (two-sided): 2.2414 at α = 0.05. Bisection: monotone in c."""
    lo, hi = 0.05, 12.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sup_crossing(mid) > alpha else (lo, mid)
    return (lo + hi) / 2


def reach(drift: float, c: float) -> float:
    """P(W_t + drift·t reaches c by t = 1), drift ≥ 0: Φ(θ − c) + e^{2θc} Φ(−θ − c) (the lower side is negligible)."""
    tail = _N.cdf(-drift - c)
    return _N.cdf(drift - c) + (math.exp(2 * drift * c) * tail if tail > 0 else 0.0)


@lru_cache(maxsize=64)
def inflation(alpha: float = 0.05, power: float = 0.8, participants: int | None = None) -> float:
    """N_max / N_fixed: the maximum at which the boundary settles a true gap with `power`, relative to the
    fixed-sample size with the same power (two-sided α). 1.057 at α = 0.05 and 80% power; with `participants`
    (the declared maximum), the boundary at the maximum as `finite` applies it: read on t with participants − 1
    degrees of freedom, on the variance about 0 (|Z| ≥ b / √(1 − b²/C) about the mean)."""
    c = constant(alpha)
    if participants is not None:
        c = float(t_reading(c, max(participants - 1, 1)))
        c = c / math.sqrt(max(1 - c * c / participants, 0.05))
    lo, hi = 0.0, 20.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if reach(mid, c) < power else (lo, mid)
    fixed = _N.inv_cdf(1 - alpha / 2) + _N.inv_cdf(power)
    return ((lo + hi) / 2 / fixed) ** 2


def declared_maximum(fixed_n: float, per_participant: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The participants to declare for a fixed-sample plan of `fixed_n` observations (a power analysis's, e.g.
    `infact plan`'s), `per_participant` observations each: fixed_n × inflation, the inflation at that maximum; at
    least the participants before which no pair may separate (MIN_UNITS), or nothing could settle."""
    m = max(MIN_UNITS, math.ceil(fixed_n / per_participant))
    while m * per_participant < fixed_n * inflation(alpha, power, m):
        m += 1
    return m


def half_width(v, progress, maximum: int, alpha: float, units=None):
    """The boundary on |S_n − nμ| at variance process `v` after `progress` participants of a declared `maximum`:
    c·√(v·N/n). Infinite where no participant has taken part yet. `units`: the participants behind the variance
    estimate, C; the boundary is then read on Student's t with C − 1 degrees of freedom (`t_reading`)."""
    progress = np.asarray(progress, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = constant(alpha) * np.sqrt(maximum / progress)
        if units is not None:
            z = t_reading(z, np.maximum(np.asarray(units, dtype=float) - 1, 1))
        return z * np.sqrt(np.asarray(v, dtype=float))


def t_reading(z, dof):
    """The t_dof quantile with the tail of the normal's z (Cornish–Fisher, Abramowitz & Stegun 26.7.5; within
    1% of the exact quantile from 29 degrees of freedom at z ≤ 5). A variance estimated from C participants is
    noisy (the few-clusters case, Cameron & Miller 2015): with a maximum of 38 participants, just above the
    30-participant burn-in, 2,000 simulated studies were falsely "settled" in 5.2–6.1% without it, 4.4–4.8% with it."""
    z = np.asarray(z, dtype=float)
    return z + (z**3 + z) / (4 * dof) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * dof**2)


def frozen_at_maximum(values: np.ndarray, progress: np.ndarray, maximum: int, before: float) -> np.ndarray:
    """`values` at each look, with every look beyond the `maximum` given the value of the last look within it
    (`before` when there was none): beyond N nothing is claimed anew."""
    values = np.asarray(values, dtype=float).copy()
    beyond = np.asarray(progress) > maximum
    if not beyond.any():
        return values
    within = np.flatnonzero(~beyond)
    values[beyond] = values[within[-1]] if len(within) else before
    return values


def finite(path: Path, progress, maximum: int, alpha: float = 0.05) -> Path:
    """`path` (confseq.sequence's with `min_units=MIN_UNITS`, for its mean, participant-cluster variance and burn-in)
    with the declared-maximum
    boundary instead of the open-ended one; `progress`: the study's participants so far at each of its looks.
    Before the sequence's burn-in (±inf ends) it stays open; beyond the maximum its ends stay as at the maximum.

    The variance is taken about 0, the "no difference" that a separation rejects (as a score test takes it):
    V₀ = V + S²/C, C the participants. About the estimated mean it shrinks exactly when the sum strays far from 0,
    and over thousands of looks that let the error reach 5.1–5.9% in bench/monitoring.py; about 0 it was
    2.5–4.5%, at the cost of a few more votes where the systems do differ (in `inflation`)."""
    v0 = path.variance + (path.mean * path.n) ** 2 / np.maximum(path.units, 1)
    h = half_width(v0, progress, maximum, alpha, units=path.units) / np.maximum(path.n, 1)
    started = np.isfinite(path.lo)
    lo = frozen_at_maximum(np.where(started, path.mean - h, -np.inf), progress, maximum, -np.inf)
    hi = frozen_at_maximum(np.where(started, path.mean + h, np.inf), progress, maximum, np.inf)
    return replace(path, lo=lo, hi=hi)
