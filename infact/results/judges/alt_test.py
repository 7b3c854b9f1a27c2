"""The Alternative Annotator Test (Alt-Test) for a judge against ≥ 3 human annotators (docs/llm.md).

Calderon, Reichart & Dror, "The Alternative Annotator Test for LLM-as-a-Judge: How to Statistically
Justify Replacing Human Annotators with LLMs", ACL 2025 (arXiv 2501.10970); written from the paper
and checked against its public reference procedure (github.com/nitaytech/AltTest).

Leave one annotator out at a time. On every item annotator j answered (with at least one other
annotator on it), score how well the judge f and how well j align with the *remaining* annotators:
accuracy (share of the others giving the same label) for labels, minus the RMSE against the others
for numeric scores. The judge wins the item if its score is ≥ j's (W^f = 1), j wins if j's is ≥ the
judge's (W^h = 1; a tie is a win for both). ρ_j^f and ρ_j^h are the two win shares over j's items.

Per annotator, a one-sided paired t-test of H0: ρ_j^f ≤ ρ_j^h − ε against H1: ρ_j^f > ρ_j^h − ε, on
d = W^h − W^f (H1: mean d < ε). ε is the cost-benefit allowance for the judge's being cheaper and
faster. The p-values of all annotators go through the Benjamini–Yekutieli procedure (FDR q = 0.05,
valid under any dependence between the tests — they share items). The winning rate ω is the share
of annotators whose H0 is rejected; the judge passes when ω ≥ ½. The advantage probability ρ is the
mean of ρ_j^f over annotators: the chance the judge is as good as or better than a random annotator,
the paper's figure for comparing judges (it does not depend on ε).

The paper asks for 50–100 items, at least 2 annotators per item (so 1 remains when one is left
out) and recommends at least 3 annotators; annotators with fewer than 30 items are skipped (the
t-test's normal approximation).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

# ε: the paper's rule of thumb is 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers
# (its reference function defaults to 0.2). INFACT's participants are crowd workers, so 0.1: the
# stricter value, set another with `analyze --alt-epsilon`.
DEFAULT_EPSILON = 0.1
Q_FDR = 0.05
MIN_HUMANS_PER_ITEM = 2
MIN_ITEMS_PER_HUMAN = 30
PAPER_ITEMS = 50  # the paper asks 50–100 annotated items
PAPER_ANNOTATORS = 3


def majority(values: pd.Series) -> float:
    """Most frequent value; a tie goes to the one nearest the median (then the lower)."""
    counts = values.value_counts()
    top = counts[counts == counts.max()].index.to_numpy(dtype=float)
    median = float(values.median())
    return float(sorted(top, key=lambda v: (abs(v - median), v))[0])


def accuracy(pred, others: np.ndarray) -> float:
    return float(np.mean(others == pred))


def neg_rmse(pred, others: np.ndarray) -> float:
    return -float(np.sqrt(np.mean((others.astype(float) - float(pred)) ** 2)))


SCORING = {"accuracy": accuracy, "neg_rmse": neg_rmse}


def benjamini_yekutieli(p_values: list[float], q: float = Q_FDR) -> list[bool]:
    """Which hypotheses are rejected: the largest k with p_(k) ≤ k/m · q / H_m, and all below it."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    thresholds = np.arange(1, m + 1) / m * q / np.sum(1.0 / np.arange(1, m + 1))
    below = np.flatnonzero(p[order] <= thresholds)
    rejected = np.zeros(m, dtype=bool)
    if len(below):
        rejected[order[: below[-1] + 1]] = True
    return rejected.tolist()


def _p_value(d: np.ndarray, epsilon: float) -> float:
    """One-sided one-sample t-test of mean d < ε; a constant d gives 0 below ε and 1 otherwise."""
    from scipy.stats import ttest_1samp

    if np.ptp(d) == 0:
        return 0.0 if d[0] < epsilon else 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(ttest_1samp(d, epsilon, alternative="less").pvalue)
    return 1.0 if np.isnan(p) else p


def alt_test(
    judge: Mapping,
    humans: Mapping[str, Mapping],
    scoring: str = "accuracy",
    epsilon: float = DEFAULT_EPSILON,
    q_fdr: float = Q_FDR,
    min_humans_per_item: int = MIN_HUMANS_PER_ITEM,
    min_items_per_human: int = MIN_ITEMS_PER_HUMAN,
) -> dict:
    """judge = {item: answer}; humans = {annotator: {item: answer}}. ω, ρ, the verdict and each annotator's test."""
    if scoring not in SCORING:
        raise ValueError(f"unknown Alt-Test scoring {scoring!r}; choose one of {', '.join(SCORING)}")
    on_item: dict = {}
    for h, answers in humans.items():
        for item in answers:
            on_item.setdefault(item, []).append(h)
    kept = sorted((i for i, hs in on_item.items() if len(hs) >= min_humans_per_item and i in judge), key=str)
    names = list(humans)
    values, present, f = _matrix(judge, humans, names, kept, scoring)
    tested, skipped = [], []
    for j, h in enumerate(names):
        rows = present[:, j]
        if rows.sum() < min_items_per_human:
            skipped.append({"annotator": str(h), "n_items": int(rows.sum())})
            continue
        s_f, s_h = _scores(values[rows], present[rows], f[rows], j, scoring)
        w_f, w_h = (s_f >= s_h).astype(float), (s_h >= s_f).astype(float)
        tested.append(
            {
                "annotator": str(h),
                "n_items": int(rows.sum()),
                "rho_judge": float(w_f.mean()),
                "rho_human": float(w_h.mean()),
                "p_value": _p_value(w_h - w_f, epsilon),
            }
        )
    for row, rejected in zip(tested, benjamini_yekutieli([t["p_value"] for t in tested], q_fdr)):
        row["judge_wins"] = bool(rejected)
    omega = sum(t["judge_wins"] for t in tested) / len(tested) if tested else None
    return {
        "scoring": scoring,
        "epsilon": epsilon,
        "q_fdr": q_fdr,
        "n_items": len(kept),
        "n_annotators": len(tested),
        "winning_rate": omega,
        "advantage_probability": float(np.mean([t["rho_judge"] for t in tested])) if tested else None,
        "passed": None if omega is None else bool(omega >= 0.5),
        "annotators": tested,
        "skipped_annotators": skipped,
        "warnings": _warnings(len(kept), len(tested), skipped, min_items_per_human),
    }


def _matrix(judge: Mapping, humans: Mapping, names: list, items: list, scoring: str):
    """Items × annotators answers (labels as integer codes, so equality is exact), who answered, the judge's."""
    row = {i: n for n, i in enumerate(items)}
    cells = [(row[i], j, a) for j, h in enumerate(names) for i, a in humans[h].items() if i in row]
    answers = [a for _, _, a in cells] + [judge[i] for i in items]
    if scoring == "accuracy":
        answers = pd.factorize(pd.Series(answers, dtype=object))[0].astype(float)
    answers = np.asarray(answers, dtype=float)
    values = np.zeros((len(items), len(names)))
    present = np.zeros((len(items), len(names)), dtype=bool)
    if cells:
        r, c = np.array([x[0] for x in cells]), np.array([x[1] for x in cells])
        values[r, c], present[r, c] = answers[: len(cells)], True
    return values, present, answers[len(cells) :]


def _scores(values: np.ndarray, present: np.ndarray, f: np.ndarray, j: int, scoring: str):
    """Per item (rows annotator j answered): the judge's and j's alignment with the other annotators,
    as accuracy() and neg_rmse() define it, for all items at once."""
    others = present.copy()
    others[:, j] = False
    n = others.sum(axis=1)
    mine = values[:, j]
    if scoring == "accuracy":
        return ((values == f[:, None]) & others).sum(1) / n, ((values == mine[:, None]) & others).sum(1) / n
    return (
        -np.sqrt((((values - f[:, None]) ** 2) * others).sum(1) / n),
        -np.sqrt((((values - mine[:, None]) ** 2) * others).sum(1) / n),
    )


def _warnings(n_items: int, n_annotators: int, skipped: list[dict], min_items: int) -> list[str]:
    out = []
    if n_items < PAPER_ITEMS:
        out.append(
            f"only {n_items} items with at least {MIN_HUMANS_PER_ITEM} annotators and the judge: the paper asks 50–100"
        )
    if n_annotators < PAPER_ANNOTATORS:
        out.append(
            f"only {n_annotators} annotators with {min_items}+ such items: the paper recommends at least "
            f"{PAPER_ANNOTATORS} (with 2 it only asks which of the two the judge is closer to)"
        )
    if skipped:
        out.append(f"{len(skipped)} annotators skipped for having fewer than {min_items} items")
    return out


# --------------------------------------------------------------------------- from INFACT's units


def _per_coder(h: pd.DataFrame, unit: list[str], numeric: bool) -> dict[str, dict]:
    """{coder: {item: answer}}; a coder who answered an item twice gives their mean (scores) or majority (labels)."""
    grouped = h.groupby(["coder", *unit])["value"]
    values = grouped.mean() if numeric else grouped.apply(majority)
    out: dict[str, dict] = {}
    for key, value in values.items():
        out.setdefault(str(key[0]), {})[tuple(key[1:])] = float(value)
    return out


def _judge_answers(j: pd.DataFrame, unit: list[str], numeric: bool, scale_points: int | None) -> dict:
    if not numeric:
        answers = j.groupby(unit)["value"].apply(majority)
        return {tuple(k) if isinstance(k, tuple) else (k,): float(v) for k, v in answers.items()}
    scores = j.groupby(unit)["value"].mean()
    rescaled = on_scale_continuous(scores, scale_points)
    return {tuple(k) if isinstance(k, tuple) else (k,): float(v) for k, v in rescaled.items()}


def on_scale_continuous(scores: pd.Series, k: int | None) -> pd.Series:
    """Scores already on 1..k as they are; others mapped linearly onto 1..k (an RMSE against ratings needs
    one scale; the paper's FAQ suggests rescaling when the scales differ)."""
    if k is None or scores.empty or scores.between(1, k).all() or scores.max() == scores.min():
        return scores
    lo, hi = scores.min(), scores.max()
    return 1 + (scores - lo) * (k - 1) / (hi - lo)


def alt_test_of_units(
    units, numeric: bool, scale_points: int | None = None, epsilon: float = DEFAULT_EPSILON, **kw
) -> dict:
    """The Alt-Test on alignment's matched items (alignment._Units): ratings vs scores are numeric
    (minus the RMSE), preferences are labels −1/0/+1 (accuracy)."""
    humans = _per_coder(units.h, units.unit, numeric)
    judge = _judge_answers(units.j, units.unit, numeric, scale_points)
    result = alt_test(judge, humans, "neg_rmse" if numeric else "accuracy", epsilon, **kw)
    if numeric and scale_points and not units.j["value"].between(1, scale_points).all():
        result["warnings"].append(f"the judge's scores were mapped linearly onto the 1..{scale_points} rating scale")
    return result
