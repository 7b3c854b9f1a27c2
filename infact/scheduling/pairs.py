"""Which pairs of systems are compared next: `balanced` or `adaptive`.

- balanced: every pair of systems equally often — the least-compared pair goes next
  (ties at random), spread over the situations the balanced assignment picked.
- adaptive: the next pairs go where the ranking is least certain. From the votes so far
  the Davidson–Bradley–Terry model (infact/stats/bradley_terry.py) gives strengths and the
  Fisher information of one more vote on each pair; greedily, the pair that most shrinks
  the uncertainty of the differences between adjacent ranks goes next (near-equal systems
  are informative, a clear mismatch is not). Those uncertainties are scaled to the
  participant-cluster intervals that `analyze` reports (`robust_inflation`, from the closed-form
  sandwich in infact/stats/sandwich.py). Until every pair has `ADAPTIVE_MIN_PER_PAIR`
  votes it is balanced. It aims at a settled *order*: individual strengths of the best and
  worst systems end up less precise than under balanced pairs.

Plain Python, shared by the pairwise step kinds and by live arena mode (infact/chat):
`choose_pairs` takes the stored vote table's codes, nothing Streamlit.
"""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np

ADAPTIVE_MIN_PER_PAIR = 3
# Each adjacent contrast's variance reduction is weighted by its variance to this power: the
# widest interval decides whether the ranking is settled, so the objective is close to the
# maximum (7 needed fewer votes than 3 or 15 in bench/ranking_adaptive.py).
POWER = 7


def all_pairs(systems: list[str]) -> list[tuple[str, str]]:
    return [tuple(p) for p in combinations(sorted(systems), 2)]


def vote_information(diff: np.ndarray, nu: float) -> np.ndarray:
    """Fisher information about θ_a − θ_b carried by one Davidson vote at strength difference `diff`."""
    h = np.abs(np.asarray(diff, dtype=float)) / 2
    e1, e2 = np.exp(-h), np.exp(-2 * h)
    den = 1 + e2 + nu * e1
    s, c = (1 - e2) / den, (1 + e2) / den
    return (c - s**2) / 4


def centred_covariance(theta: np.ndarray, nu: float, counts: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Model covariance of the centred strengths given `counts` votes on each of `pairs` (index pairs)."""
    k = len(theta)
    info = np.full((k, k), 1.0 / k)  # fixes the free shift of all strengths
    w = counts * vote_information(theta[pairs[:, 0]] - theta[pairs[:, 1]], nu)
    for (i, j), wij in zip(pairs, w):
        info[i, i] += wij
        info[j, j] += wij
        info[i, j] -= wij
        info[j, i] -= wij
    c = np.linalg.inv(info + 1e-9 * np.eye(k))
    centre = np.eye(k) - 1.0 / k
    return centre @ c @ centre


def adjacent_contrasts(theta: np.ndarray) -> np.ndarray:
    """(K − 1, K): rows e_r − e_{r+1} for systems adjacent in the current order, best first."""
    k = len(theta)
    order = np.argsort(-theta, kind="stable")
    a = np.zeros((k - 1, k))
    a[np.arange(k - 1), order[:-1]] = 1.0
    a[np.arange(k - 1), order[1:]] = -1.0
    return a


def adaptive_picks(
    theta: np.ndarray, nu: float, counts: np.ndarray, pairs: np.ndarray, n: int, inflation: np.ndarray | None = None
) -> list[int]:
    """Indices into `pairs` of the next `n` votes.

    What decides a ranking is the difference between systems of adjacent rank. Each pick is the
    pair whose vote most reduces those differences' variances, weighted by each variance to
    the `POWER` so the least certain adjacent pair dominates (a vote's effect on every contrast is
    a rank-one Sherman–Morrison update of the covariance). `inflation` (one factor per adjacent
    contrast, best first) scales the model's variances to the ones the reported intervals have
    (`robust_inflation`).
    """
    c = centred_covariance(theta, nu, counts, pairs)
    w = vote_information(theta[pairs[:, 0]] - theta[pairs[:, 1]], nu)
    contrasts = adjacent_contrasts(theta)
    scale = np.ones(len(contrasts)) if inflation is None else np.asarray(inflation, dtype=float)
    v = np.zeros((len(pairs), len(theta)))
    v[np.arange(len(pairs)), pairs[:, 0]] = 1.0
    v[np.arange(len(pairs)), pairs[:, 1]] = -1.0
    picks = []
    for _ in range(n):
        u = v @ c  # C v for every candidate
        q = (u * v).sum(axis=1)
        var = scale * np.einsum("ak,kl,al->a", contrasts, c, contrasts)
        gain = scale * w[:, None] * (u @ contrasts.T) ** 2 / (1 + w * q)[:, None]
        best = int(np.argmax((gain * var[None, :] ** POWER).sum(axis=1)))
        picks.append(best)
        c = c - w[best] * np.outer(u[best], u[best]) / (1 + w[best] * q[best])
    return picks


def balanced_picks(counts: np.ndarray, n: int, rng: random.Random) -> list[int]:
    """Indices of the next `n` pairs: always a least-compared one, ties at random."""
    counts = counts.astype(float).copy()
    picks = []
    for _ in range(n):
        low = np.flatnonzero(counts == counts.min())
        i = int(low[rng.randrange(len(low))])
        picks.append(i)
        counts[i] += 1
    return picks


def choose_pairs(
    systems: list[str],
    votes: list[tuple],
    n: int,
    *,
    mode: str,
    rng: random.Random,
    pending: list[tuple[str, str]] = (),
) -> list[tuple[str, str]]:
    """The next `n` pairs, each in random display order (left, right).

    votes: (system_a, system_b, winner[, participant]) stored so far (winner a system or "tie";
    without the participant every vote counts as its own participant);
    pending: pairs reserved by participants still working (they count as compared).
    """
    pairs = all_pairs(systems)
    index = {p: i for i, p in enumerate(pairs)}
    counts = np.zeros(len(pairs))
    for a, b, *_ in [*votes, *pending]:
        key = tuple(sorted((a, b)))
        if key in index:
            counts[index[key]] += 1
    if mode == "adaptive" and counts.min() >= ADAPTIVE_MIN_PER_PAIR and votes:
        theta, nu, inflation = _estimate(systems, votes)
        names = sorted(systems)
        codes = np.array([[names.index(a), names.index(b)] for a, b in pairs])
        picks = adaptive_picks(theta, nu, counts, codes, n, inflation)
    else:
        picks = balanced_picks(counts, n, rng)
    out = []
    for i in picks:
        pair = list(pairs[i])
        rng.shuffle(pair)
        out.append((pair[0], pair[1]))
    return out


def robust_inflation(theta: np.ndarray, model: np.ndarray, robust: np.ndarray) -> np.ndarray:
    """Per adjacent contrast: participant-cluster variance / model variance, kept within
    [1/2, 2] (a handful of participants can make the ratio wild)."""
    a = adjacent_contrasts(theta)
    ratio = np.einsum("ak,kl,al->a", a, robust, a) / np.einsum("ak,kl,al->a", a, model, a)
    return np.clip(ratio, 0.5, 2.0)


def _estimate(systems: list[str], votes) -> tuple[np.ndarray, float, np.ndarray]:
    """Strengths (in sorted-name order), ν and the adjacent contrasts' `robust_inflation`
    from the votes so far (one fit, no bootstrap)."""
    from infact.stats import bradley_terry as ranking
    from infact.stats import sandwich as ranking_robust

    names = sorted(systems)
    idx = {s: i for i, s in enumerate(names)}
    kept = [v for v in votes if v[0] in idx and v[1] in idx]
    a = np.array([idx[v[0]] for v in kept])
    b = np.array([idx[v[1]] for v in kept])
    outcome = np.array([0 if v[2] == v[0] else 1 if v[2] == v[1] else 2 for v in kept])
    who = [v[3] if len(v) > 3 else i for i, v in enumerate(kept)]
    clusters, cluster = np.unique(np.asarray(who, dtype=str), return_inverse=True)
    d = ranking.design(a, b, outcome, cluster, names, list(clusters))
    x = ranking.quick_fit(d)
    k = len(names)
    theta = x[:k]
    return (
        theta,
        float(np.exp(x[k])) if d.with_ties else 0.0,
        robust_inflation(theta, *ranking_robust.covariances(d, x)),
    )
