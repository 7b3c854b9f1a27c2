"""The search behind fragility: a smallest removal of units (votes, or whole participants) that changes an order.

A *question* is a margin of fitted strengths ("does `upper` stay above every rival?"); a removal answers
"no" when, refitted, another system ends strictly above. Two searches share the work:

1. **Influence-ordered search (any size).** At a fit, the first-order change of the margin cᵀθ when one
   unit is removed is −g_uᵀH⁻¹c (g_u: the unit's score, H: the information) — the approximate maximum
   influence perturbation of Broderick, Giordano & Meager (2020/2023). Sorted by it, the shortest prefix
   of units whose summed change closes the margin is the linear prediction of the smallest set. A batch
   of prefix lengths around the prediction is refitted exactly, the search moves to the refitted point
   nearest the boundary and linearises again there (one linearisation at the full data misjudges large
   sets; Huang et al. find that re-estimating influence as units are dropped is what keeps such searches
   honest), until a round finds no smaller set. Then copies are put back one at a time, the least
   influential first, while the change survives a refit. The set found is confirmed by a refit: an upper
   bound on the smallest size. All questions advance together, so each round is one batched refit.
2. **Exhaustive check (small sizes).** Every removal of 1, 2, … units is refitted while the total stays
   within `budget` refits (votes of one pair × outcome are interchangeable for the fit, so removals are
   multisets of those cells; one set of refits answers every question). When every smaller size was
   refitted, the size found is the minimum: exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from math import comb

import numpy as np
import scipy.sparse as sp

from infact.stats import bradley_terry as ranking
from infact.stats.progress import report

BATCH = 2048  # refits per batched Newton call
ROUNDS = 12  # linearise-and-refit rounds of the influence-ordered search at most
PRUNE_TRIES = 40  # put-backs tried per question and round (least influential first)
PRUNE_ROUNDS = 4
# prefix lengths refitted per round, as multiples of the predicted size (and the predicted size ± 3)
FACTORS = (0.6, 0.75, 0.85, 0.92, 0.97, 1.0, 1.03, 1.08, 1.15, 1.3, 1.6, 2.0)
TOL = 1e-9


@dataclass
class Units:
    """What can be removed: unit u takes `rows[u]` counts (flattened P × 3) away, at most `cap[u]` times."""

    rows: sp.csr_matrix
    cap: np.ndarray
    cells: np.ndarray | None = None  # units that are single cells: unit u is cell cells[u] (rows selects it)

    @classmethod
    def vote_cells(cls, d: ranking.Design) -> tuple[Units, np.ndarray]:
        flat = d.counts.ravel()
        cells = np.flatnonzero(flat > 0)
        rows = sp.csr_matrix((np.ones(len(cells)), (np.arange(len(cells)), cells)), shape=(len(cells), len(flat)))
        return cls(rows, flat[cells].round().astype(int), cells), cells

    @classmethod
    def participants(cls, d: ranking.Design) -> Units:
        return cls(sp.csr_matrix(d.cluster_counts, dtype=float), np.ones(len(d.clusters), dtype=int))


class Question:
    """'Does `upper` stay above every system in `rivals`?' as a margin of fitted strengths."""

    def __init__(self, upper: int, rivals: list[int]):
        self.upper, self.rivals = upper, list(rivals)

    def margins(self, x: np.ndarray) -> np.ndarray:
        return x[:, self.upper] - x[:, self.rivals].max(axis=1)

    def contrast(self, x: np.ndarray, k: int) -> np.ndarray:
        """c with cᵀθ = θ_upper − θ_runner-up at x (the rival nearest from below or above)."""
        c = np.zeros(k)
        c[self.upper], c[self.rivals[int(np.argmax(x[self.rivals]))]] = 1.0, -1.0
        return c


def counts_after(total: np.ndarray, units: Units, removed) -> np.ndarray:
    """(R, P, 3) counts left after each row of `removed` (R × U, dense or sparse)."""
    if units.cells is not None and not sp.issparse(removed):  # one cell per unit: a scatter, no product
        taken = np.zeros((len(removed), units.rows.shape[1]))
        taken[:, units.cells] = removed
    else:
        taken = (sp.csr_matrix(removed) @ units.rows).toarray()
    return np.maximum(total.ravel()[None] - taken, 0.0).reshape(taken.shape[0], -1, 3)


def refit(d: ranking.Design, counts: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Fits of many count tables at once from `start` ((n,) or one row per table)."""
    out = []
    for i in range(0, len(counts), BATCH):
        s = start if start.ndim == 1 else start[i : i + BATCH]
        try:
            out.append(ranking.newton_refit(d, counts[i : i + BATCH], s))
        except np.linalg.LinAlgError:  # a removal left a degenerate Hessian (e.g. no tie information): L-BFGS-B
            out.append(ranking.fit(d, counts[i : i + BATCH], s))
    return np.vstack(out) if out else np.zeros((0, len(start.T)))


def influences(d: ranking.Design, units: Units, counts: np.ndarray, xs: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """(Q, U): the linear change of the margin c_qᵀθ when one copy of each unit is removed, at fit xs[q]
    of counts[q]: −g_uᵀ H⁻¹ c. g_u · v is a sum over the unit's votes of (∂LL/∂h · X_p·v + ∂LL/∂log ν · v_ν)."""
    k = len(d.systems)
    X = ranking.design_matrix(d)
    T = ranking.terms(xs, counts, d)
    h = ranking.hessian(T, X, d)
    h[:, np.arange(k), np.arange(k)] += ranking.RIDGE
    c = np.zeros(xs.shape)
    c[:, :k] = cs
    v = np.linalg.solve(h + 1e-12 * np.eye(h.shape[1]), c[..., None])[..., 0]
    g_h, g_eta = ranking.outcome_gradients(d, T)
    gv = g_h * np.einsum("qn,pn->qp", v, X)[..., None]  # not BLAS: see infact/stats/pair_newton.py
    if d.with_ties:
        gv += g_eta * v[:, k, None, None]
    return np.ascontiguousarray(-np.asarray(units.rows @ gv.reshape(len(xs), -1).T).T)  # rows read one by one


def _prefixes(order: np.ndarray, cap: np.ndarray, lengths: list[int], size: int) -> sp.csr_matrix:
    """(L, U) sparse: for each n in `lengths` the removal taking the first n copies of the units in `order`
    (each unit's copies together)."""
    capped = cap[order]
    cum = np.cumsum(capped)
    used = np.minimum(np.searchsorted(cum, lengths, side="left") + 1, len(order))  # units the n copies touch
    vals = [np.minimum(capped[:u], np.maximum(n - (cum[:u] - capped[:u]), 0)) for u, n in zip(used, lengths)]
    cols = np.concatenate([order[:u] for u in used])
    return sp.csr_matrix((np.concatenate(vals), cols, np.r_[0, np.cumsum(used)]), shape=(len(lengths), size))


def _row(m: sp.csr_matrix, j: int) -> np.ndarray:
    return m[j].toarray()[0]


class _Search:
    """One question's influence-ordered search: where it stands and the smallest flipping set found so far."""

    def __init__(self, q: Question, start: np.ndarray, n_units: int):
        self.q, self.x, self.removed = q, start, np.zeros(n_units)
        self.best: np.ndarray | None = None
        self.best_x: np.ndarray | None = None
        self.done, self.refits, self.stale = False, 0, 0

    @property
    def best_size(self) -> float:
        return np.inf if self.best is None else float(self.best.sum())

    def candidates(self, infl: np.ndarray, cap: np.ndarray) -> tuple[np.ndarray, list[int]]:
        """Prefix lengths worth refitting, from the linear prediction at the current point."""
        margin = float(self.q.margins(self.x[None])[0])
        need = float((self.removed * -infl).sum()) + margin  # the removal r' must give r'·(−infl) > need
        order = np.flatnonzero(infl < 0)
        order = order[np.argsort(infl[order], kind="stable")]
        capped = cap[order]
        top = int(capped.sum())
        if not top:
            return order, []
        cum_drop = np.cumsum(-infl[order] * capped)
        j = int(np.searchsorted(cum_drop, need, side="right"))
        if j >= len(order):
            predicted = top
        else:
            before = float(cum_drop[j - 1]) if j else 0.0
            copies = int(np.floor(max(need - before, 0.0) / -infl[order[j]])) + 1
            predicted = int(capped[:j].sum()) + min(copies, int(capped[j]))
        lengths = {round(predicted * f) for f in FACTORS} | {predicted + i for i in range(-3, 4)}
        high = min(top, self.best_size - 1)
        return order, sorted(n for n in lengths if 1 <= n <= high)

    def step(self, lengths: list[int], removals: sp.csr_matrix, xs: np.ndarray) -> None:
        """Take the refitted prefixes: the shortest that flips is the best so far (every length tried is
        shorter than the best); otherwise move to the one nearest the boundary and linearise again there."""
        self.refits += len(lengths)
        margins = self.q.margins(xs)
        flips = np.flatnonzero(margins < -TOL)
        if len(flips):
            j = int(flips[0])
            self.best, self.best_x, self.stale = _row(removals, j), xs[j], 0
            self.removed, self.x = self.best, xs[j]
            return
        j = int(np.argmin(margins))
        if self.best is None and margins[j] >= float(self.q.margins(self.x[None])[0]) - TOL:
            self.done = True  # no prefix moves the margin down: removal cannot change this order
            return
        self.stale += self.best is not None
        self.done = self.stale >= 2  # two rounds without a shorter set: converged
        self.removed, self.x = _row(removals, j), xs[j]


def influence_search(d: ranking.Design, units: Units, questions: list[Question], start: np.ndarray, stage: str = ""):
    """Per question the smallest flipping removal the influence-ordered search finds ((U,) counts or None),
    and the refits it used."""
    total, k, size = d.counts, len(d.systems), len(units.cap)
    searches = [_Search(q, start, size) for q in questions]
    for rnd in range(ROUNDS):
        report(stage, rnd, ROUNDS + PRUNE_ROUNDS)
        live = [s for s in searches if not s.done]
        if not live:
            break
        xs = np.vstack([s.x for s in live])
        counts = counts_after(total, units, sp.csr_matrix(np.vstack([s.removed for s in live])))
        infl = influences(d, units, counts, xs, np.vstack([s.q.contrast(s.x, k) for s in live]))
        plan = []
        for s, row in zip(live, infl):
            order, lengths = s.candidates(row, units.cap)
            if not lengths:
                s.done = True
                continue
            plan.append((s, lengths, _prefixes(order, units.cap, lengths, size)))
        if not plan:
            break
        removals = sp.vstack([r for _, _, r in plan], format="csr")
        starts = np.vstack([np.tile(s.x, (len(n), 1)) for s, n, _ in plan])
        fitted = refit(d, counts_after(total, units, removals), starts)
        at = 0
        for s, lengths, r in plan:
            s.step(lengths, r, fitted[at : at + len(lengths)])
            at += len(lengths)
    _prune(d, units, searches, stage)
    report(stage, ROUNDS + PRUNE_ROUNDS, ROUNDS + PRUNE_ROUNDS)
    return [s.best for s in searches], sum(s.refits for s in searches)


def _prune(d: ranking.Design, units: Units, searches: list[_Search], stage: str) -> None:
    """Put back one copy at a time (the least influential first) while the change survives a refit."""
    total, k = d.counts, len(d.systems)
    for rnd in range(PRUNE_ROUNDS):
        report(stage, ROUNDS + rnd, ROUNDS + PRUNE_ROUNDS)
        live = [s for s in searches if s.best is not None and s.best.sum() > 1]
        if not live:
            return
        counts = counts_after(total, units, sp.csr_matrix(np.vstack([s.best for s in live])))
        xs = np.vstack([s.best_x for s in live])
        infl = influences(d, units, counts, xs, np.vstack([s.q.contrast(s.best_x, k) for s in live]))
        plan = []
        for s, row in zip(live, infl):
            gone = np.flatnonzero(s.best > 0)
            back = gone[np.argsort(-row[gone], kind="stable")][:PRUNE_TRIES]
            best = sp.csr_matrix(s.best[None])
            one = sp.csr_matrix((np.ones(len(back)), (np.arange(len(back)), back)), shape=(len(back), len(s.best)))
            plan.append((s, sp.csr_matrix(sp.vstack([best] * len(back)) - one)))
        fitted = refit(
            d,
            counts_after(total, units, sp.vstack([t for _, t in plan], format="csr")),
            np.vstack([np.tile(s.best_x, (t.shape[0], 1)) for s, t in plan]),
        )
        at, changed = 0, False
        for s, trial in plan:
            n = trial.shape[0]
            margins = s.q.margins(fitted[at : at + n])
            s.refits += n
            j = int(np.argmin(margins))
            if margins[j] < -TOL:
                s.best, s.best_x, changed = _row(trial, j), fitted[at + j], True
            at += n
        if not changed:
            return


# --------------------------------------------------------------------------- the exhaustive check


def n_sets(cap: np.ndarray, size: int) -> int:
    """Number of removal multisets of exactly `size` units with unit u taken at most cap[u] times."""
    if (cap == 1).all():
        return comb(len(cap), size)
    poly = np.zeros(size + 1, dtype=object)
    poly[0] = 1
    for c in cap:
        new = np.zeros_like(poly)
        for j in range(min(int(c), size) + 1):
            new[j:] += poly[: size + 1 - j]
        poly = new
    return int(poly[size])


def _sets(cap: np.ndarray, size: int):
    if (cap == 1).all():
        yield from combinations(range(len(cap)), size)
        return
    for combo in combinations_with_replacement(range(len(cap)), size):
        if size == 1 or all(combo.count(u) <= cap[u] for u in set(combo)):
            yield combo


def exhaustive(d, units: Units, questions: list[Question], start, below: list[int], budget: int, stage: str = ""):
    """Refit every removal of 1, 2, … units (while within `budget` refits) once, and read every question's
    margin off the same refits: {checked: largest size fully refitted, refits, found: {question: removal}}."""
    total, refits, checked, found = d.counts, 0, 0, {}
    for size in range(1, max(below, default=1)):
        open_q = [i for i, q in enumerate(questions) if i not in found and size < below[i]]
        n = n_sets(units.cap, size)
        if not open_q or refits + n > budget:
            break
        it, done = _sets(units.cap, size), 0
        report(f"{stage}, every set of {size}", 0, n)
        while chunk := [c for _, c in zip(range(BATCH), it)]:
            rows = np.repeat(np.arange(len(chunk)), size)
            trial = sp.csr_matrix((np.ones(len(rows)), (rows, np.asarray(chunk).ravel())), (len(chunk), len(units.cap)))
            xs = refit(d, counts_after(total, units, trial), start)
            for i in open_q:
                ms = questions[i].margins(xs)
                if i not in found and (ms < -TOL).any():
                    found[i] = trial[int(np.argmin(ms))].toarray()[0]
            done += len(chunk)
            report(f"{stage}, every set of {size}", done, n)
        refits += n
        checked = size
    return {"checked": checked, "refits": refits, "found": found}
