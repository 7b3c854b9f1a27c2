"""Bradley–Terry strengths with Davidson ties, fitted once and under a cluster bootstrap.

Model (Davidson 1970). System i has log-strength θ_i; with d = θ_a − θ_b + β·z (z: style
covariate differences, Chatbot Arena's style control) one vote between a and b is

    P(a wins) = e^{d/2} / D,   P(b wins) = e^{-d/2} / D,   P(tie) = ν / D,   D = e^{d/2} + e^{-d/2} + ν,

which is the usual π_a / (π_a + π_b + ν√(π_a π_b)) divided through by √(π_a π_b). Without
ties (ν = 0) it is plain Bradley–Terry: P(a wins) = logistic(θ_a − θ_b).

Votes are reduced to *patterns* (a pair of systems, or one vote when covariates differ per
vote) with per-participant counts of [a wins, b wins, tie]. A bootstrap replicate that draws
participants with replacement is then a weighted sum of those counts — one sparse matrix
product for all replicates — and all replicates are fitted together as one separable
problem: batched Newton steps with the analytic Hessian from the point estimate
(`newton_refit`), falling back to scipy's L-BFGS-B on the stacked, separable problem
(`fit`) for any replicate that does not converge. The point estimate itself is L-BFGS-B.

A weak ridge (`RIDGE` votes' worth of a N(0, 1/RIDGE) prior on each θ) keeps strengths
finite when a system never wins in a replicate; with hundreds of votes it moves estimates
by far less than their standard errors. Strengths are reported centred to mean 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from infact.stats import N_BOOT
from infact.stats.pair_newton import PairModel
from infact.stats.progress import report

RIDGE = 0.01
NO_TIES_ETA = -30.0  # log ν when the data hold no tie: ν = 0 to double precision, and not fitted
# Elements of a (replicates × patterns × parameters) block refitted at once; bounds memory
# when patterns are single votes (style control on large studies).
CHUNK_ELEMENTS = 20_000_000


@dataclass
class Design:
    """Votes reduced to patterns, ready to fit. Built by `design()`."""

    systems: list[str]
    a: np.ndarray  # (P,) system index of side a
    b: np.ndarray  # (P,) system index of side b
    z: np.ndarray  # (P, q) covariate differences a − b (q = 0 without style control)
    cluster_counts: sp.csr_matrix  # (C, 3P): per participant, counts [a wins, b wins, ties] per pattern
    clusters: list[str]
    covariates: list[str] = field(default_factory=list)
    with_ties: bool = True
    # built once per design (not copied by dataclasses.replace): see `pair_model`
    _pairs: PairModel | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def counts(self) -> np.ndarray:
        """(P, 3) totals over all participants."""
        return np.asarray(self.cluster_counts.sum(axis=0)).reshape(-1, 3)


def design(
    a: np.ndarray,
    b: np.ndarray,
    outcome: np.ndarray,
    cluster: np.ndarray,
    systems: list[str],
    clusters: list[str],
    z: np.ndarray | None = None,
    covariates: list[str] | None = None,
) -> Design:
    """Votes as codes: a, b system indices; outcome 0 = a wins, 1 = b wins, 2 = tie; cluster = participant index.

    Without covariates, votes of one unordered pair share a pattern (oriented low index first);
    with covariates every vote is its own pattern.
    """
    a, b, outcome, cluster = (np.asarray(v, dtype=np.int64) for v in (a, b, outcome, cluster))
    n = len(a)
    if z is None or z.shape[1] == 0:
        swap = a > b
        lo, hi = np.where(swap, b, a), np.where(swap, a, b)
        outcome = np.where(swap & (outcome < 2), 1 - outcome, outcome)
        pair_code = lo * len(systems) + hi
        codes, pattern = np.unique(pair_code, return_inverse=True)
        pa, pb = codes // len(systems), codes % len(systems)
        zz = np.zeros((len(codes), 0))
    else:
        pattern = np.arange(n)
        pa, pb, zz = a, b, np.asarray(z, dtype=float)
    n_pat = len(pa)
    m = sp.csr_matrix((np.ones(n), (cluster, pattern * 3 + outcome)), shape=(len(clusters), 3 * n_pat))
    m.sum_duplicates()
    return Design(
        list(systems), pa, pb, zz, m, list(clusters), list(covariates or []), with_ties=bool((outcome == 2).any())
    )


# --------------------------------------------------------------------------- likelihood


def _incidence(d: Design) -> sp.csr_matrix:
    p = len(d.a)
    rows = np.r_[np.arange(p), np.arange(p)]
    return sp.csr_matrix((np.r_[np.ones(p), -np.ones(p)], (rows, np.r_[d.a, d.b])), shape=(p, len(d.systems)))


def terms(x: np.ndarray, counts: np.ndarray, d: Design) -> dict:
    """Per replicate × pattern pieces of the likelihood, written stably in m = |h|, h = d/2."""
    k, q = len(d.systems), d.z.shape[1]
    theta, eta, beta = x[:, :k], x[:, k], x[:, k + 1 :]
    h = 0.5 * (theta[:, d.a] - theta[:, d.b] + (beta @ d.z.T if q else 0.0))
    m = np.abs(h)
    e1, e2 = np.exp(-m), np.exp(-2 * m)
    nu = np.exp(eta)[:, None] if d.with_ties else 0.0
    den = 1.0 + e2 + nu * e1
    wa, wb, wt = counts[..., 0], counts[..., 1], counts[..., 2]
    # s = ∂log D/∂h, c = (e^h + e^-h)/D, t = ν/D = ∂log D/∂η
    return {
        "h": h,
        "m": m,
        "den": den,
        "wa": wa,
        "wb": wb,
        "wt": wt,
        "n": wa + wb + wt,
        "theta": theta,
        "eta": eta,
        "s": np.sign(h) * (1.0 - e2) / den,
        "c": (1.0 + e2) / den,
        "t": nu * e1 / den,
    }


def _objective(x: np.ndarray, counts: np.ndarray, d: Design, inc: sp.csr_matrix, inv_n: np.ndarray):
    """Negative log-likelihood (+ ridge) of every replicate, each divided by its vote count, and its gradient."""
    k, q, nrep = len(d.systems), d.z.shape[1], counts.shape[0]
    x = x.reshape(nrep, -1)
    T = terms(x, counts, d)
    ll = (T["wa"] - T["wb"]) * T["h"] - T["n"] * (T["m"] + np.log(T["den"]))
    if d.with_ties:
        ll = ll + T["wt"] * T["eta"][:, None]
    g_d = 0.5 * ((T["wa"] - T["wb"]) - T["n"] * T["s"])  # dLL/dd per pattern
    grad = np.empty_like(x)
    grad[:, :k] = -(inc.T @ g_d.T).T + RIDGE * T["theta"]
    grad[:, k] = -(T["wt"] - T["n"] * T["t"]).sum(axis=1) if d.with_ties else 0.0
    if q:
        grad[:, k + 1 :] = -(g_d @ d.z)
    f = -ll.sum(axis=1) + 0.5 * RIDGE * (T["theta"] ** 2).sum(axis=1)
    return float((f * inv_n).sum()), (grad * inv_n[:, None]).ravel()


def fit(d: Design, counts: np.ndarray | None = None, start: np.ndarray | None = None) -> np.ndarray:
    """Maximum-likelihood parameters [θ (centred), log ν, β] for each replicate's counts,
    by scipy's L-BFGS-B on the stacked (separable) problem.

    counts: (R, P, 3); default the observed totals (R = 1). Returns (R, K + 1 + q).
    """
    from scipy.optimize import minimize  # imported here: Newton steps (`newton_refit`) answer most calls

    if counts is None:
        counts = d.counts[None]
    k, nrep = len(d.systems), counts.shape[0]
    if start is None:
        start = default_start(d, counts)
    x0 = np.tile(start, (nrep, 1)) if start.ndim == 1 else start
    inv_n = 1.0 / np.maximum(counts.sum(axis=(1, 2)), 1.0)
    res = minimize(
        _objective,
        x0.ravel(),
        args=(counts, d, _incidence(d), inv_n),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 5000, "ftol": 1e-15 * nrep, "gtol": 1e-9, "maxcor": 10},
    )
    return _centred(res.x.reshape(nrep, -1), k)


def default_start(d: Design, counts: np.ndarray) -> np.ndarray:
    """Equal strengths, ν from the share of ties, no style effect."""
    k = len(d.systems)
    start = np.zeros(k + 1 + d.z.shape[1])
    ties = counts[..., 2].sum() / max(counts.sum(), 1)
    start[k] = np.log(max(2 * ties / max(1 - ties, 1e-9), 1e-6)) if d.with_ties else NO_TIES_ETA
    return start


def quick_fit(d: Design) -> np.ndarray:
    """`fit`'s point estimate by Newton steps from `default_start` (L-BFGS-B only if they fail):
    the same optimum, many times faster on the few patterns of a pair schedule."""
    counts = d.counts[None]
    return newton_refit(d, counts, default_start(d, counts))[0]


def _centred(x: np.ndarray, k: int) -> np.ndarray:
    x[:, :k] -= x[:, :k].mean(axis=1, keepdims=True)
    return x


def design_matrix(d: Design) -> np.ndarray:
    """(P, K + 1 + q): ∂h/∂parameters per pattern (h = d/2; the η column is 0)."""
    k, p = len(d.systems), len(d.a)
    x = np.zeros((p, k + 1 + d.z.shape[1]))
    x[np.arange(p), d.a] = 0.5
    x[np.arange(p), d.b] = -0.5
    x[:, k + 1 :] = 0.5 * d.z
    return x


def outcome_gradients(d: Design, T: dict) -> tuple[np.ndarray, np.ndarray]:
    """∂LL/∂h and ∂LL/∂log ν of one vote, per replicate × pattern × outcome [a wins, b wins, tie]: (R, P, 3) each.

    A vote's gradient in the parameters is ∂LL/∂h · X_p (+ ∂LL/∂log ν on the ν entry), so a unit's score
    (a participant's, a cell's) is these summed over its votes."""
    s = T["s"]
    t = T["t"] if d.with_ties else np.zeros_like(s)
    return np.stack([1 - s, -1 - s, -s], axis=-1), np.stack([-t, -t, 1 - t], axis=-1)


def pair_model(d: Design) -> PairModel:
    """The design's batched-refit machinery (pair patterns only), built once per design."""
    if d._pairs is None:
        d._pairs = PairModel(d.a, d.b, len(d.systems), d.with_ties, RIDGE)
    return d._pairs


def hessian(T: dict, X: np.ndarray, d: Design) -> np.ndarray:
    """(R, n, n) Hessian of −LL (no ridge) for `terms` T; expected and observed alike, since it
    depends on the counts only through their totals. Without ties the log ν row is the identity."""
    k = len(d.systems)
    w = T["n"] * (T["c"] - T["s"] ** 2)
    if d.z.shape[1]:
        hess = np.einsum("rp,pi,pj->rij", w, X, X, optimize=True)
    else:  # X is the ±0.5 incidence: scatter each pattern's weight onto its four entries
        hess = pair_model(d).theta_hessian(w)
    if d.with_ties:
        cross = -np.einsum("rp,pi->ri", T["n"] * T["s"] * T["t"], X)  # numpy's loop: BLAS threads cost more here
        hess[:, :, k] += cross
        hess[:, k, :] += cross
        hess[:, k, k] = (T["n"] * (T["t"] - T["t"] ** 2)).sum(axis=1)
    else:
        hess[:, k, :], hess[:, :, k], hess[:, k, k] = 0.0, 0.0, 1.0
    return hess


def newton_refit(d: Design, counts: np.ndarray, start: np.ndarray, max_iter: int = 30) -> np.ndarray:
    """Refit many replicates at once, each near `start` (the point estimate; or (R, n): one start per replicate).

    scipy fits one problem at a time; stacked into one L-BFGS problem most of the time goes
    into L-BFGS's own bookkeeping over R × (K + 1 + q) variables. Each replicate has only
    K + 1 + q parameters, so steps with the analytic Hessian converge in a handful of iterations
    from the point estimate: for pair patterns shared-Hessian steps, then Newton steps where those
    do not contract (infact/stats/pair_newton.py); with covariates Newton steps solved for all
    replicates in one batched `numpy.linalg.solve`. Replicates that do not converge (or go
    non-finite) are refitted with `fit` (L-BFGS-B), so the result never depends on this shortcut.
    """
    k = len(d.systems)
    x = np.tile(start, (counts.shape[0], 1)) if start.ndim == 1 else start.copy()
    if d.z.shape[1]:
        x, step_size = _newton_general(d, counts, x, max_iter)
    else:
        x, step_size = pair_model(d).refit(counts, x, max_iter)
    bad = ~(np.isfinite(x).all(axis=1) & (step_size < 1e-6))
    if bad.any():
        x[bad] = fit(d, counts[bad], start if start.ndim == 1 else start[bad])
    return _centred(x, k)


def _newton_general(d: Design, counts: np.ndarray, x: np.ndarray, max_iter: int):
    """Newton steps for any design (style covariates: one pattern per vote)."""
    k = len(d.systems)
    X = design_matrix(d)
    step_size = np.full(counts.shape[0], np.inf)
    for _ in range(max_iter):
        T = terms(x, counts, d)
        g_h = T["n"] * T["s"] - (T["wa"] - T["wb"])  # ∂(−LL)/∂h
        grad = g_h @ X
        grad[:, :k] += RIDGE * T["theta"]
        hess = hessian(T, X, d)
        hess[:, np.arange(k), np.arange(k)] += RIDGE
        grad[:, k] = (T["n"] * T["t"] - T["wt"]).sum(axis=1) if d.with_ties else 0.0
        with np.errstate(all="ignore"):
            step = np.linalg.solve(hess, grad[..., None])[..., 0]
        step_size = np.abs(step).max(axis=1)
        # long steps (far from the optimum) are shortened to at most 1 on the log scale
        x = x - step / np.maximum(1.0, step_size)[:, None]
        if np.nanmax(step_size) < 1e-9:
            break
    return x, step_size


def boot_weights(n: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n) counts: how often each participant is drawn in each replicate."""
    return next(_boot_weight_blocks(n, n_boot, seed, max(n_boot, 1)), np.zeros((0, n)))


def _boot_weight_blocks(n: int, n_boot: int, seed: int, per: int):
    """`boot_weights` in blocks of `per` replicates: the same draws (one generator, read in order)
    without holding n_boot × n of them at once (2,000 × 20,000 participants: 320 MB per copy)."""
    rng = np.random.default_rng(seed)
    for lo in range(0, n_boot, per):
        rows = min(per, n_boot - lo)
        idx = rng.integers(0, n, size=(rows, n)) + (np.arange(rows) * n)[:, None]
        yield np.bincount(idx.ravel(), minlength=rows * n).reshape(rows, n).astype(float)


def bootstrap(d: Design, n_boot: int, seed: int, start: np.ndarray) -> np.ndarray:
    """(n_boot, K + 1 + q) parameters refitted on participant-cluster bootstrap replicates.

    A replicate's counts are its participant weights times their counts: a sparse product (the
    counts hold one entry per participant × pattern × outcome voted; no BLAS threads, and a tenth
    of a dense product's arithmetic at arena scale)."""
    m_t = sp.csr_matrix(d.cluster_counts.T)
    per = max(1, CHUNK_ELEMENTS // (len(d.a) * (len(start) + 3)))
    out = []
    report("bootstrap", 0, n_boot)
    for lo, w in zip(range(0, n_boot, per), _boot_weight_blocks(len(d.clusters), n_boot, seed, per)):
        block = np.asarray(m_t @ w.T).T.reshape(-1, len(d.a), 3)
        out.append(newton_refit(d, block, start))
        report("bootstrap", lo + len(w), n_boot)
    return np.vstack(out)


# --------------------------------------------------------------------------- reporting


def rank_ranges(lo: np.ndarray, hi: np.ndarray) -> list[list[int]]:
    """[best, worst] rank each system can take within the intervals: better than every system
    whose interval lies wholly below its own, worse than every one wholly above."""
    above = (lo[None, :] > hi[:, None]).sum(axis=1)  # systems certainly stronger
    below = (hi[None, :] < lo[:, None]).sum(axis=1)  # systems certainly weaker
    return [[int(1 + above[i]), int(len(lo) - below[i])] for i in range(len(lo))]


def ranking_table(systems: list[str], strength: np.ndarray, reps: np.ndarray, confidence: float = 0.95) -> list[dict]:
    """Best first: {system, strength, ci95, rank, rank_range} (ci95 at `confidence`)."""
    tail = 50 * (1 - confidence)
    lo, hi = np.percentile(reps, [tail, 100 - tail], axis=0)
    ranges = rank_ranges(lo, hi)
    order = np.argsort(-strength, kind="stable")
    return [
        {
            "system": systems[i],
            "strength": float(strength[i]),
            "ci95": [float(lo[i]), float(hi[i])],
            "rank": r + 1,
            "rank_range": ranges[i],
        }
        for r, i in enumerate(order)
    ]


def settled(ranking: list[dict]) -> dict:
    """Is every pair of adjacent ranks separated (the upper system's interval wholly above the next one's)?"""
    gaps = [
        {"higher": u["system"], "lower": v["system"], "separated": u["ci95"][0] > v["ci95"][1]}
        for u, v in zip(ranking, ranking[1:])
    ]
    return {"settled": all(g["separated"] for g in gaps) and bool(gaps), "adjacent": gaps}


def rank_systems(
    d: Design, *, n_boot: int = N_BOOT, seed: int = 0, confidence: float = 0.95, centre_on: list[int] | None = None
) -> dict:
    """Point fit + cluster bootstrap: the `ranking`, `tie_parameter` and style coefficients.

    Strengths are centred to mean 0 over `centre_on` (default every system): centring on a
    system with few votes would pass its wide uncertainty on to every other interval."""
    k = len(d.systems)
    point = quick_fit(d)
    reps = bootstrap(d, n_boot, seed, point) if n_boot else np.tile(point, (2, 1))
    if centre_on is not None and len(centre_on):
        point[:k] -= point[centre_on].mean()
        reps[:, :k] -= reps[:, centre_on].mean(axis=1, keepdims=True)
    out = {
        "ranking": ranking_table(d.systems, point[:k], reps[:, :k], confidence),
        "tie_parameter": float(np.exp(point[k])) if d.with_ties else 0.0,
        "tie_parameter_ci95": (
            [float(v) for v in np.exp(np.percentile(reps[:, k], [2.5, 97.5]))] if d.with_ties else [0.0, 0.0]
        ),
        "n_votes": int(d.counts.sum()),
        "n_participants": len(d.clusters),
        "bootstrap": {"n_boot": n_boot, "seed": seed, "resampled": "participants", "confidence": confidence},
    }
    if d.covariates:
        lo, hi = np.percentile(reps[:, k + 1 :], [2.5, 97.5], axis=0)
        out["covariates"] = {
            c: {"coefficient": float(point[k + 1 + j]), "ci95": [float(lo[j]), float(hi[j])]}
            for j, c in enumerate(d.covariates)
        }
    out["settled"] = settled(out["ranking"])
    return out
