"""Batched refits of the Davidson–Bradley–Terry model on pair patterns: the inner loop of the bootstrap and
of the fragility search, which refit the same model thousands of times on slightly different counts.

Each refit starts near its optimum (the point estimate, or a fit of almost the same votes), so:

- **Shared-Hessian (chord) steps first.** One Hessian, at the block's mean start and counts, inverted once,
  serves every replicate of the block: a step is a gradient times that inverse. Each replicate's own
  Hessian differs by a few per cent, so each step shrinks the error by about as much — a handful of
  steps reach 1e-10 at a fraction of the cost of solving a system per replicate and step.
- **Newton steps for the rest.** A replicate whose steps do not shrink fast enough (a removal that
  changed the data a lot) gets exact Newton steps with its own Hessian, from its own start.
- **Blocks that fit in the CPU cache, sparse products, no BLAS.** The ±½ incidence of the pairs and the
  Hessian's four entries per pattern are sparse products; on a shared machine a multi-threaded BLAS call
  on a small matrix costs a hundred times its arithmetic in CPU time (threads woken and waited for), so the
  small products are numpy's own loops (einsum, elementwise sums). Replicates
  are processed in blocks whose (replicates × patterns) arrays stay in cache (twice as fast per replicate
  as one large block on this machine). A replicate leaves the loop once its step is small enough.

Works on plain arrays (pattern sides a, b; counts (R, P, 3) of [a wins, b wins, tie]); parameters are
[θ (K), log ν]. `infact.stats.bradley_terry` builds one `PairModel` per design.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

CACHE_ELEMENTS = 32_000  # (replicates × patterns) per block: arrays of ~250 KB
CHORD_STEPS = 12
CHORD_TOL = 1e-10  # a chord step this small leaves an error of about a tenth of it
NEWTON_TOL = 1e-9  # a Newton step this small leaves an error of about its square


class PairModel:
    """The pieces of the likelihood that depend only on which systems each pattern compares."""

    def __init__(self, a: np.ndarray, b: np.ndarray, k: int, with_ties: bool, ridge: float, n_par: int | None = None):
        p = len(a)
        self.a, self.b, self.k, self.with_ties, self.ridge = a, b, k, with_ties, ridge
        self.n = n_par or k + 1
        rows = np.r_[np.arange(p), np.arange(p)]
        inc = sp.csr_matrix((np.r_[np.full(p, 0.5), np.full(p, -0.5)], (rows, np.r_[a, b])), shape=(p, k))
        self.inc_t = sp.csr_matrix(inc.T)  # (K, P): ∂h/∂θ, transposed
        n = self.n
        cols = np.stack([a * n + a, b * n + b, a * n + b, b * n + a], axis=1).ravel()
        vals = np.tile([0.25, 0.25, -0.25, -0.25], p)
        scatter = sp.csr_matrix((vals, (np.repeat(np.arange(p), 4), cols)), shape=(p, n * n))
        self.scatter_t = sp.csr_matrix(scatter.T)  # (n², P): a pattern's weight onto its four θθ entries

    def theta_hessian(self, w: np.ndarray) -> np.ndarray:
        """(R, n, n) with Σ_p w_rp X_pᵀX_p in the θ block (X_p = ½ at a, −½ at b), zeros elsewhere."""
        return np.ascontiguousarray((self.scatter_t @ w.T).T).reshape(-1, self.n, self.n)

    def _pieces(self, x: np.ndarray, n: np.ndarray, dw: np.ndarray, wt: np.ndarray, with_hessian: bool):
        """Gradient of −LL + ridge (R, n) and, if asked, the Hessian (R, n, n) at x."""
        k = self.k
        h = 0.5 * (x[:, self.a] - x[:, self.b])
        e1 = np.exp(-np.abs(h))
        e2 = e1 * e1
        nu_e1 = np.exp(x[:, k])[:, None] * e1 if self.with_ties else 0.0
        inv = 1.0 / (1.0 + e2 + nu_e1)
        s = np.sign(h) * (1.0 - e2) * inv
        ns = n * s
        grad = np.zeros_like(x)
        grad[:, :k] = (self.inc_t @ (ns - dw).T).T + self.ridge * x[:, :k]
        t = nu_e1 * inv if self.with_ties else None
        if self.with_ties:
            grad[:, k] = (n * t).sum(axis=1) - wt.sum(axis=1)
        if not with_hessian:
            return grad, None
        hess = self.theta_hessian(n * ((1.0 + e2) * inv) - ns * s)
        hess[:, np.arange(k), np.arange(k)] += self.ridge
        if self.with_ties:
            cross = -(self.inc_t @ (ns * t).T).T
            hess[:, :k, k], hess[:, k, :k] = cross, cross
            hess[:, k, k] = (n * t * (1.0 - t)).sum(axis=1)
        else:
            hess[:, k, k] = 1.0
        return grad, hess

    def refit(self, counts: np.ndarray, x: np.ndarray, max_iter: int = 30) -> tuple[np.ndarray, np.ndarray]:
        """Optimum of each replicate from its start x (R, n): (x, size of the last step) per replicate."""
        x = x.copy()
        last = np.full(len(x), np.inf)
        per = max(8, CACHE_ELEMENTS // max(len(self.a), 1))
        for lo in range(0, len(x), per):
            part = slice(lo, lo + per)
            c = counts[part]
            data = (c.sum(axis=2), c[..., 0] - c[..., 1], c[..., 2])
            x[part], last[part] = self._block(data, x[part], max_iter)
        return x, last

    def _block(self, data, x0: np.ndarray, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
        n, dw, wt = data
        x, last = x0.copy(), np.full(len(x0), np.inf)
        mean = (n.mean(axis=0, keepdims=True), dw.mean(axis=0, keepdims=True), wt.mean(axis=0, keepdims=True))
        _, h0 = self._pieces(x0.mean(axis=0, keepdims=True), *mean, with_hessian=True)
        with np.errstate(all="ignore"):
            try:
                h0_inv = np.linalg.inv(h0[0])
            except np.linalg.LinAlgError:
                h0_inv = None
        live = np.arange(len(x)) if h0_inv is not None and np.isfinite(h0_inv).all() else np.zeros(0, dtype=int)
        slow = []
        for _ in range(CHORD_STEPS):
            if not len(live):
                break
            grad, _ = self._pieces(x[live], n[live], dw[live], wt[live], with_hessian=False)
            step = np.einsum("rn,nm->rm", grad, h0_inv)  # numpy's own loop: a BLAS call here costs more
            size = np.abs(step).max(axis=1)
            shrinking = size < 0.5 * last[live]  # a step at most half the last: the shared Hessian works here
            ok = np.isfinite(size) & (shrinking | ~np.isfinite(last[live]))
            slow.append(live[~ok])
            moving = live[ok]
            x[moving] -= step[ok] / np.maximum(1.0, size[ok])[:, None]
            last[moving] = size[ok]
            live = moving[size[ok] >= CHORD_TOL]
        rest = np.concatenate([live, *slow]).astype(int)
        if len(rest):  # exact Newton steps, from each one's own start
            x[rest], last[rest] = self._newton(n[rest], dw[rest], wt[rest], x0[rest], max_iter)
        return x, np.where(last < CHORD_TOL, 0.0, last)

    def _newton(self, n, dw, wt, x: np.ndarray, max_iter: int) -> tuple[np.ndarray, np.ndarray]:
        x, last = x.copy(), np.full(len(x), np.inf)
        live = np.arange(len(x))
        for _ in range(max_iter):
            grad, hess = self._pieces(x[live], n[live], dw[live], wt[live], with_hessian=True)
            step = _solve(hess, grad)
            size = np.abs(step).max(axis=1)
            # long steps (far from the optimum) are shortened to at most 1 on the log scale
            x[live] -= step / np.maximum(1.0, size)[:, None]
            last[live] = size
            live = live[~(size < NEWTON_TOL)]  # NaN steps stay (and end as not converged)
            if not len(live):
                break
        return x, np.where(last < NEWTON_TOL, 0.0, last)


def _solve(hess: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Newton steps hess⁻¹·grad per row; a singular Hessian (a separated or degenerate fit) gives a NaN step,
    which ends that row as not converged (the caller's slower fit takes it) instead of stopping every row."""
    with np.errstate(all="ignore"):
        try:
            return np.linalg.solve(hess, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            out = np.full(grad.shape, np.nan)
            for i in range(len(grad)):
                try:
                    out[i] = np.linalg.solve(hess[i], grad[i])
                except np.linalg.LinAlgError:
                    pass
            return out
