"""How few votes, or participants, decide the ranking: the smallest removal that changes the top or an adjacent order.

Huang et al. (2025) showed that dropping a handful of Chatbot Arena's votes can change its top
model. For one question ("does the top stay on top?", "does the upper of two neighbours stay
above?") this module finds a smallest set of *units* — votes, or whole participants — whose
removal, refitted, answers "no":

1. **Greedy removal by influence, every step refitted.** At the current fit the linear
   influence of removing one unit on the margin (θ_upper − θ_challenger) is −cᵀH⁻¹g_u (g_u: the
   unit's gradient of the log-likelihood, H: the information; Broderick et al.'s approximate
   maximum influence perturbation). The most influential candidates are refitted exactly and the
   one that lowers the margin most is removed; far from the goal, a block of units whose
   predicted drop is half the margin is removed at once. It stops when a refit shows the change.
2. **Pruning.** Each removed unit is put back in turn while the change survives the refit, so
   no unit in the set is superfluous.
3. **The check.** Every removal of 1, 2, … units is refitted while the total stays within
   `BUDGET` refits (votes are interchangeable within a pair × outcome cell, so removals are
   multisets of cells; one set of refits answers every question). When every smaller size was
   refitted the size is exact; otherwise each set of up to `ruled_out_up_to` units is ruled out
   and the found set is an upper bound that a refit confirmed.

A removal that leaves an exact tie (margin within 1e-9) does not count as a change: another system
must end strictly above. Votes are named by their line in the input file (header = line 1), participants by id.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement, pairwise
from math import comb

import numpy as np
import pandas as pd

from infact.stats import bradley_terry as ranking

BUDGET = 8000  # smaller sets refitted (shared by all questions) before a size is called exact
BATCH = 2048  # refits per batched Newton call
PRUNE_TRIES = 40  # put-backs tried (least influential first); on small studies that is every unit
CANDIDATES = 24  # most influential units refitted exactly per greedy step
FRAGILE_SHARE = 0.01  # a top that falls to fewer than 1% of the votes (or one participant) is fragile
TOL = 1e-9


class Units:
    """What can be removed: unit u takes `rows[u]` counts (flattened P × 3) away, at most `cap[u]` times."""

    def __init__(self, rows: np.ndarray, cap: np.ndarray):
        self.rows, self.cap = rows.astype(float), cap.astype(int)

    @classmethod
    def vote_cells(cls, d: ranking.Design) -> tuple[Units, np.ndarray]:
        flat = d.counts.ravel()
        cells = np.flatnonzero(flat > 0)
        rows = np.zeros((len(cells), len(flat)))
        rows[np.arange(len(cells)), cells] = 1.0
        return cls(rows, flat[cells].round().astype(int)), cells

    @classmethod
    def participants(cls, d: ranking.Design) -> Units:
        return cls(d.cluster_counts.toarray(), np.ones(len(d.clusters), dtype=int))


class Question:
    """'Does `upper` stay above every system in `rivals`?' as a margin of fitted strengths."""

    def __init__(self, upper: int, rivals: list[int]):
        self.upper, self.rivals = upper, list(rivals)

    def margins(self, x: np.ndarray) -> np.ndarray:
        return x[:, self.upper] - x[:, self.rivals].max(axis=1)

    def runner_up(self, x: np.ndarray) -> int:
        return self.rivals[int(np.argmax(x[self.rivals]))]


def _refit(d: ranking.Design, counts: np.ndarray, start: np.ndarray) -> np.ndarray:
    counts = np.maximum(counts, 0.0)
    out = []
    for i in range(0, len(counts), BATCH):
        try:
            out.append(ranking.newton_refit(d, counts[i : i + BATCH], start))
        except np.linalg.LinAlgError:  # a removal left a degenerate Hessian (e.g. no tie information): L-BFGS-B
            out.append(ranking.fit(d, counts[i : i + BATCH], start))
    return np.vstack(out)


def _counts(total: np.ndarray, units: Units, removed: np.ndarray) -> np.ndarray:
    """(R, P, 3) counts left after each row of `removed` (R, U)."""
    return (total.ravel()[None] - removed @ units.rows).reshape(len(removed), -1, 3)


def _influence(d: ranking.Design, counts: np.ndarray, x: np.ndarray, units: Units, c: np.ndarray) -> np.ndarray:
    """Linear change of the margin cᵀθ when one of each unit is removed: −cᵀ H⁻¹ g_u."""
    k = len(d.systems)
    T = ranking.terms(x[None], counts[None], d)
    X = ranking.design_matrix(d)
    s, t = T["s"][0], (T["t"][0] if d.with_ties else np.zeros(len(d.a)))
    g_h = np.stack([1 - s, -1 - s, -s], axis=1)  # ∂LL/∂h of one vote per outcome
    per = g_h[:, :, None] * X[:, None, :]
    if d.with_ties:
        per[:, :, k] = np.stack([-t, -t, 1 - t], axis=1)
    g = units.rows @ per.reshape(-1, X.shape[1])  # (U, params)
    h = ranking.hessian(T, X, d)[0]
    h[np.arange(k), np.arange(k)] += ranking.RIDGE
    cc = np.zeros(X.shape[1])
    cc[:k] = c
    return -g @ np.linalg.solve(h + 1e-12 * np.eye(len(h)), cc)


def _greedy(d, total, units: Units, q: Question, start: np.ndarray, max_steps: int = 400):
    removed = np.zeros(len(units.cap))
    x = start
    for _ in range(max_steps):
        m = float(q.margins(x[None])[0])
        if m < -TOL:
            return removed, x
        counts = _counts(total, units, removed[None])[0]
        c = np.zeros(len(d.systems))
        c[q.upper], c[q.runner_up(x)] = 1.0, -1.0
        infl = np.where(removed < units.cap, _influence(d, counts, x, units, c), np.inf)
        best = float(infl.min())
        if not np.isfinite(best) or best >= 0:
            # no unit lowers the margin to first order: try every remaining unit once, exactly
            cand = np.flatnonzero(removed < units.cap)
        elif m / -best > 8:  # far from the goal: remove a block predicted to close half the margin
            order = np.argsort(infl)
            block, drop = np.zeros_like(removed), 0.0
            for u in order:
                if infl[u] >= 0 or drop >= m / 2:
                    break
                n = min(units.cap[u] - removed[u], np.ceil((m / 2 - drop) / -infl[u]))
                block[u], drop = n, drop + n * -infl[u]
            removed = removed + block
            x = _refit(d, _counts(total, units, removed[None]), x)[0]
            continue
        else:
            cand = np.argsort(infl)[:CANDIDATES]
            cand = cand[np.isfinite(infl[cand])]
        if not len(cand):
            return None, x
        trial = np.tile(removed, (len(cand), 1))
        trial[np.arange(len(cand)), cand] += 1
        xs = _refit(d, _counts(total, units, trial), x)
        ms = q.margins(xs)
        j = int(np.argmin(ms))
        if ms[j] >= m - TOL:
            return None, x  # nothing moves the margin down: this order cannot be changed by removal
        removed, x = trial[j], xs[j]
    return None, x


def _prune(d, total, units: Units, q: Question, removed: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Put each removed unit back in turn (least influential first) and keep it back while the change survives."""
    removed = removed.copy()
    counts = _counts(total, units, removed[None])[0]
    x = _refit(d, counts[None], start)[0]
    c = np.zeros(len(d.systems))
    c[q.upper], c[q.runner_up(x)] = 1.0, -1.0
    infl = _influence(d, counts, x, units, c)
    tries = 0
    for u in np.argsort(-infl):
        while removed[u] > 0 and tries < PRUNE_TRIES:
            tries += 1
            trial = removed.copy()
            trial[u] -= 1
            if q.margins(_refit(d, _counts(total, units, trial[None]), start))[0] >= -TOL:
                break
            removed = trial
    return removed


def _n_sets(cap: np.ndarray, size: int) -> int:
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


def _exhaustive(d, units: Units, questions: list[Question], start, below: list[int], budget: int) -> dict:
    """Refit every removal of 1, 2, … units (while within `budget` refits) once, and read every question's
    margin off the same refits: {checked: largest size fully refitted, refits, found: {question: removal}}."""
    total, refits, checked, found = d.counts, 0, 0, {}
    for size in range(1, max(below, default=1)):
        open_q = [i for i, q in enumerate(questions) if i not in found and size < below[i]]
        n = _n_sets(units.cap, size)
        if not open_q or refits + n > budget:
            break
        it = _sets(units.cap, size)
        while chunk := [c for _, c in zip(range(BATCH), it)]:
            trial = np.zeros((len(chunk), len(units.cap)))
            np.add.at(trial, (np.repeat(np.arange(len(chunk)), size), np.asarray(chunk).ravel()), 1)
            xs = _refit(d, _counts(total, units, trial), start)
            for i in open_q:
                ms = questions[i].margins(xs)
                if i not in found and (ms < -TOL).any():
                    found[i] = trial[int(np.argmin(ms))]
        refits += n
        checked = size
    return {"checked": checked, "refits": refits, "found": found}


def smallest_removals(
    d: ranking.Design, units: Units, questions: list[Question], start: np.ndarray, budget: int = BUDGET
) -> list[dict]:
    """Per question {removed: (U,) counts or None, exact, ruled_out_up_to, refits} for one kind of unit."""
    total = d.counts
    greedy = []
    for q in questions:
        removed, _ = _greedy(d, total, units, q, start)
        greedy.append(None if removed is None else _prune(d, total, units, q, removed, start))
    sizes = [int(units.cap.sum()) + 1 if r is None else int(r.sum()) for r in greedy]
    ex = _exhaustive(d, units, questions, start, sizes, budget)
    out = []
    for i, removed in enumerate(greedy):
        if i in ex["found"]:
            removed = ex["found"][i]
        size = None if removed is None else int(removed.sum())
        checked = min(ex["checked"], (size or sizes[i]) - 1)
        out.append(
            {
                "removed": removed,
                "exact": size is not None and checked >= size - 1,
                "ruled_out_up_to": checked,
                "refits": ex["refits"],
            }
        )
    return out


# --------------------------------------------------------------------------- naming and reporting


def vote_cells_of_rows(votes: pd.DataFrame, d: ranking.Design) -> np.ndarray:
    """Flattened pattern × outcome cell of every vote row (design()'s orientation: low system index first)."""
    idx = {s: i for i, s in enumerate(d.systems)}
    a, b = votes["system_a"].map(idx).to_numpy(), votes["system_b"].map(idx).to_numpy()
    out = np.where(votes["winner"] == votes["system_a"], 0, np.where(votes["winner"] == votes["system_b"], 1, 2))
    swap = a > b
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    out = np.where(swap & (out < 2), 1 - out, out)
    k = len(d.systems)
    pattern = pd.Series(np.arange(len(d.a)), index=d.a * k + d.b)
    return pattern.loc[lo * k + hi].to_numpy() * 3 + out


def _name_votes(removed: np.ndarray, cells: np.ndarray, row_cells: np.ndarray, lines: np.ndarray) -> list[int]:
    picked = []
    for u in np.flatnonzero(removed > 0):
        rows = np.flatnonzero(row_cells == cells[u])  # interchangeable for the fit: the first by line
        picked += [int(v) for v in np.sort(lines[rows])[: int(removed[u])]]
    return sorted(picked)


def _new_top(d, total, units, removed, start, among: list[int]) -> str:
    x = _refit(d, _counts(total, units, removed[None]), start)[0]
    return d.systems[among[int(np.argmax(x[among]))]]


def _method(res: dict, unit: str) -> dict:
    n, up = res["refits"], res["ruled_out_up_to"]
    if res["removed"] is None:
        text = f"no removal of {unit}s found that changes it (greedy removal by influence, refitted)"
    elif res["exact"]:
        text = (
            f"exact: the set was found by greedy removal by influence and refitted, and all {n} smaller sets of "
            f"{unit}s were refitted without a change"
            if n
            else "exact: a single " + unit + " changes it"
        )
    else:
        text = (
            f"approximate: greedy removal by influence, each step refitted, pruned, confirmed by a refit without "
            f"the set; every set of up to {up} {unit}(s) ({n} refits) was ruled out, larger ones not searched"
        )
    return {
        "search": "none found" if res["removed"] is None else ("exact" if res["exact"] else "greedy"),
        "ruled_out_up_to": up,
        "refits": n,
        "description": text,
    }


def fragility(votes: pd.DataFrame, d: ranking.Design, order: list[str], budget: int = BUDGET) -> dict | None:
    """Fragility of the top of `order` (system names best first, the compared ones) and of each adjacent pair.

    `votes` are the rows behind `d` (their index + 2 is the line in the input file)."""
    if len(order) < 2 or d.z.shape[1]:
        return None
    idx = [d.systems.index(s) for s in order]
    start = ranking.fit(d)[0]
    cells_units, cells = Units.vote_cells(d)
    row_cells, lines = vote_cells_of_rows(votes, d), votes.index.to_numpy() + 2
    questions = [Question(idx[0], idx[1:])] + [Question(hi, [lo]) for hi, lo in pairwise(idx)]
    answers = [{"method": {}} for _ in questions]
    for unit, units in (("vote", cells_units), ("participant", Units.participants(d))):
        for a, res in zip(answers, smallest_removals(d, units, questions, start, budget)):
            removed = res["removed"]
            a[unit + "s"] = (
                None
                if removed is None
                else (
                    _name_votes(removed, cells, row_cells, lines)
                    if unit == "vote"
                    else [d.clusters[u] for u in np.flatnonzero(removed > 0)]
                )
            )
            a["method"][unit + "s"] = _method(res, unit)
            if removed is not None and a is answers[0]:
                a.setdefault("becomes", {})[unit + "s"] = _new_top(d, d.counts, units, removed, start, idx)
    n_votes, n_people = int(d.counts.sum()), len(d.clusters)
    top = {"system": order[0], **answers[0]}
    top.setdefault("becomes", {})
    top.update(_sizes(top, n_votes, n_people))
    adjacent = [
        {"higher": d.systems[q.upper], "lower": d.systems[q.rivals[0]], **a} for q, a in zip(questions[1:], answers[1:])
    ]
    adjacent = [{**a, **_sizes(a, n_votes, n_people)} for a in adjacent]
    return {
        "top": top,
        "adjacent": adjacent,
        "n_votes": n_votes,
        "n_participants": n_people,
        "fragile_share": FRAGILE_SHARE,
    }


def _sizes(row: dict, n_votes: int, n_people: int) -> dict:
    nv = None if row["votes"] is None else len(row["votes"])
    npp = None if row["participants"] is None else len(row["participants"])
    fragile = (nv is not None and nv < FRAGILE_SHARE * n_votes) or npp == 1
    below = int(np.ceil(FRAGILE_SHARE * n_votes)) - 1  # the largest vote count under 1%
    checked = (
        row["method"]["votes"]["ruled_out_up_to"] >= below and row["method"]["participants"]["ruled_out_up_to"] >= 1
    )
    return {
        "n_votes": nv,
        "share_votes": None if nv is None else nv / n_votes,
        "n_participants": npp,
        "share_participants": None if npp is None else npp / n_people,
        "fragile": bool(fragile),
        "robustness_checked": bool(checked and not fragile),
    }


def in_words(frag: dict | None) -> str:
    """One or two sentences on the top's fragility, for the report and the dashboard."""
    if not frag:
        return ""
    t = frag["top"]
    parts = []
    if t["n_votes"] is not None:
        parts.append(
            f"removing {t['n_votes']} of {frag['n_votes']} votes ({t['share_votes']:.1%}) makes "
            f"{t['becomes'].get('votes', '?')} the top"
        )
    if t["n_participants"] is not None:
        parts.append(
            f"removing {t['n_participants']} of {frag['n_participants']} participants makes "
            f"{t['becomes'].get('participants', '?')} the top"
        )
    if not parts:
        return f"No removal of votes or participants that changes the top ({t['system']}) was found."
    how = f"{'; '.join(parts)} instead of {t['system']}."
    if t["fragile"]:
        return f"The top is **fragile**: {how}"
    if t["robustness_checked"]:
        return (
            f"The top is not fragile: every set of fewer than 1% of the votes and every single participant was "
            f"removed and refitted without changing it; {how}"
        )
    up = t["method"]["votes"]["ruled_out_up_to"]
    return (
        f"No set of fewer than 1% of the votes, nor a single participant, that changes the top was found "
        f"(every set of up to {up} votes was refitted; larger sets were searched greedily, so a smaller one "
        f"may exist); {how}"
    )
