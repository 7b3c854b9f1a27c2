"""Judge alignment: may this automatic judge stand in for the humans on this study? (docs/llm.md)

Per criterion, with the humans' items (a situation × system for ratings, a situation × pair for
preferences) and the judge's answers on the same items:

- agreement: item-level Spearman and Pearson (human mean vs judge mean), system-level Kendall τ
  (systems ordered by mean rating, or by mean preference over their comparisons), quadratic
  weighted Cohen's κ between the human majority and the judge's (majority) answer, and the
  confusion matrix on the scale (rows human majority, columns judge);
- bias: position consistency (pairs judged in both orders, same verdict both times), length bias
  (how much more than the humans the judge favours longer responses), agreement by situation
  feature (turn position early/middle/late, item already mentioned);
- uncertainty: 95% intervals for τ and ρ from a participant-cluster bootstrap (participants are
  resampled whole, since one person's ratings are not independent);
- the stand-in rule: the judge may stand in for the humans when (1) its Spearman with the mean of a
  random half of the participants is at least the two halves' Spearman with each other (averaged
  over random splits), and (2) the lower end of its τ interval is above 0. (1) compares like with
  like — each side is one noisy view of the same items — so a judge passes when it agrees with
  people as well as people agree with each other; (2) keeps a judge that matches items but orders
  the systems at random from passing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.results.judges.agreement import answer_keys, position_bias, preferences
from infact.results.judges.alt_test import DEFAULT_EPSILON, alt_test_of_units, majority

N_BOOT = 200
N_SPLITS = 100
RULE = (
    "stand-in if the judge's item-level Spearman with a random half of the participants is at least the "
    "halves' Spearman with each other (mean of random splits) and the lower end of its system-level "
    "Kendall tau's 95% participant-bootstrap interval is above 0"
)


def _rank_corr(x: np.ndarray, y: np.ndarray, kind: str) -> float | None:
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    if kind == "spearman":
        x, y = pd.Series(x).rank().to_numpy(), pd.Series(y).rank().to_numpy()
    return float(np.corrcoef(x, y)[0, 1])


def _tau(x: np.ndarray, y: np.ndarray) -> float | None:
    from scipy.stats import kendalltau

    ok = ~(np.isnan(x) | np.isnan(y))
    if ok.sum() < 2 or np.ptp(x[ok]) == 0 or np.ptp(y[ok]) == 0:
        return None
    value = kendalltau(x[ok], y[ok]).statistic
    return None if np.isnan(value) else float(value)


def weighted_kappa(a: np.ndarray, b: np.ndarray, categories: list) -> float | None:
    """Cohen's κ with quadratic weights between two codings of the same items."""
    index = {c: i for i, c in enumerate(categories)}
    k = len(categories)
    if len(a) == 0 or k < 2:
        return None
    observed = np.zeros((k, k))
    for x, y in zip(a, b):
        observed[index[x], index[y]] += 1
    observed /= observed.sum()
    expected = np.outer(observed.sum(1), observed.sum(0))
    i, j = np.indices((k, k))
    weights = (i - j) ** 2 / (k - 1) ** 2
    denominator = (weights * expected).sum()
    return None if denominator == 0 else float(1 - (weights * observed).sum() / denominator)


class _Units:
    """Humans and judge on the matched items: coded arrays the bootstrap can reweight quickly."""

    def __init__(self, h: pd.DataFrame, j: pd.DataFrame, unit: list[str], systems_of):
        judged = j.groupby(unit)["value"].mean().rename("judge")
        h = h.merge(judged.reset_index()[unit], on=unit)
        self.table = h.groupby(unit)["value"].mean().rename("human").to_frame().join(judged, how="inner")
        order = {k: n for n, k in enumerate(self.table.index)}
        self.unit_of = np.array([order[k] for k in h.set_index(unit).index]) if len(h) else np.array([], int)
        self.coders, self.coder_of = np.unique(h["coder"].astype(str).to_numpy(), return_inverse=True)
        self.value = h["value"].to_numpy(dtype=float)
        self.judge = self.table["judge"].to_numpy(dtype=float)
        self.labels, self.contrib = systems_of(self.table)  # systems, and each unit's signed part in each
        self.h, self.j, self.unit = h, j, unit

    def human_means(self, weights: np.ndarray | None = None) -> np.ndarray:
        w = np.ones(len(self.value)) if weights is None else weights[self.coder_of]
        total = np.bincount(self.unit_of, w * self.value, len(self.table))
        count = np.bincount(self.unit_of, w, len(self.table))
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / count

    def system_tau(self, human: np.ndarray) -> float | None:
        labels, contrib = self.labels, self.contrib

        def score(values: np.ndarray, s) -> float:
            on = contrib[s] != 0
            return float(np.nanmean(contrib[s][on] * values[on])) if on.any() else np.nan

        return _tau(np.array([score(human, s) for s in labels]), np.array([score(self.judge, s) for s in labels]))


def _systems_of_ratings(table: pd.DataFrame):
    systems = table.index.get_level_values("system").to_numpy()
    labels = sorted(set(systems))
    return labels, {s: (systems == s).astype(float) for s in labels}


def _systems_of_pairs(table: pd.DataFrame):
    lo, hi = table.index.get_level_values("lo").to_numpy(), table.index.get_level_values("hi").to_numpy()
    labels = sorted(set(lo) | set(hi))
    return labels, {s: (lo == s).astype(float) - (hi == s).astype(float) for s in labels}


def align(
    humans: pd.DataFrame,
    human_kind: str,
    judge: pd.DataFrame,
    judge_kind: str,
    *,
    features: pd.DataFrame | None = None,
    situation_features: pd.DataFrame | None = None,
    scale_points: int | None = None,
    n_boot: int = N_BOOT,
    seed: int = 0,
    alt_epsilon: float | None = None,
) -> dict:
    """Every alignment figure for one criterion (the module docstring says what each is), and the Alt-Test."""
    keys = answer_keys(humans, judge)
    if human_kind == "ratings" and judge_kind == "scores":
        unit = [*keys, "system"]
        h = humans.assign(coder=humans["participant"].astype(str), value=humans["rating"].astype(float))
        j = judge.assign(value=judge["score"].astype(float))
        k = scale_points or int(h["value"].max())
        j = j.assign(category=_on_scale(j["value"], k))
        categories, units = list(map(float, range(1, k + 1))), _Units(h, j, unit, _systems_of_ratings)
        position = {"position_bias": None, "position_consistency": None, "n_pairs_both_orders": 0}
    else:
        unit = [*keys, "lo", "hi"]
        hp, jp = preferences(humans, human_kind, keys), preferences(judge, judge_kind, keys)
        categories = [-1.0, 0.0, 1.0]
        units = _Units(
            hp.assign(value=hp["code"].astype(float)),
            jp.assign(value=jp["code"].astype(float)),
            unit,
            _systems_of_pairs,
        )
        position = position_bias(jp, unit)
    out = _agreement(units, categories, features, situation_features)
    out.update(position)
    out.update(_bootstrap(units, n_boot, seed))
    out.update(_split_half(units, seed))
    low = (out.get("kendall_tau_systems_ci95") or [None])[0]
    out["stand_in"] = bool(
        out["spearman_judge_vs_half"] is not None
        and out["spearman_split_half"] is not None
        and out["spearman_judge_vs_half"] >= out["spearman_split_half"]
        and low is not None
        and low > 0
    )
    out["rule"] = RULE
    out["alt_test"] = _alt_test(units, human_kind == "ratings" and judge_kind == "scores", scale_points, alt_epsilon)
    return out


def _alt_test(units: _Units, numeric: bool, scale_points: int | None, epsilon: float | None) -> dict:
    if numeric and scale_points is None and len(units.h):
        scale_points = int(units.h["value"].max())  # as the ratings branch of align() reads the scale
    return alt_test_of_units(units, numeric, scale_points, DEFAULT_EPSILON if epsilon is None else epsilon)


def _agreement(units: _Units, categories: list, features, situation_features) -> dict:
    human = units.table["human"].to_numpy()
    h_major = units.h.groupby(units.unit)["value"].apply(majority).reindex(units.table.index).to_numpy()
    j_major = (
        units.j.groupby(units.unit)["category" if "category" in units.j else "value"]
        .apply(majority)
        .reindex(units.table.index)
        .to_numpy()
    )
    confusion = pd.crosstab(pd.Categorical(h_major, categories), pd.Categorical(j_major, categories), dropna=False)
    out = {
        "n_items": int(len(units.table)),
        "n_participants": int(len(units.coders)),
        "spearman_items": _rank_corr(human, units.judge, "spearman"),
        "pearson_items": _rank_corr(human, units.judge, "pearson"),
        "kendall_tau_systems": units.system_tau(human),
        "weighted_kappa_majority": weighted_kappa(h_major, j_major, categories),
        "exact_agreement_majority": float(np.mean(h_major == j_major)) if len(h_major) else None,
        "confusion": {
            "categories": [_label(c) for c in categories],
            "rows_human_columns_judge": confusion.to_numpy().astype(int).tolist(),
        },
        "length_bias": _length_bias(units, features),
        "by_feature": {},
    }
    if situation_features is not None and len(units.table):
        table = units.table.reset_index().merge(situation_features, on="situation_id", how="left")
        major = pd.Series(h_major == j_major)
        for feature in ("turn_position", "item_mentioned"):
            groups = {}
            for value, g in table.groupby(feature, dropna=True):
                groups[str(value)] = {
                    "n_items": int(len(g)),
                    "spearman": _rank_corr(g["human"].to_numpy(), g["judge"].to_numpy(), "spearman"),
                    "exact_agreement": float(major.iloc[g.index].mean()),
                }
            out["by_feature"][feature] = groups
    return out


def _on_scale(scores: pd.Series, k: int) -> pd.Series:
    """Scores as scale points 1..k: as they are when they are, else mapped linearly and rounded (for κ and the
    confusion matrix; the correlations use the scores themselves)."""
    on = (scores == scores.round()) & scores.between(1, k)
    if on.all() or scores.max() == scores.min():
        return scores.clip(1, k).round()
    lo, hi = scores.min(), scores.max()
    return (1 + (scores - lo) * (k - 1) / (hi - lo)).round()


def _label(category: float) -> str:
    return str(int(category)) if float(category).is_integer() else str(category)


def _length_bias(units: _Units, features: pd.DataFrame | None) -> float | None:
    """Spearman(judge, length) − Spearman(human, length) over items (ratings: the response's length;
    preferences: how much longer the first system of the pair is)."""
    if features is None or not len(units.table):
        return None
    length = features.set_index(["situation_id", "system"])["length"]
    idx = units.table.index.to_frame(index=False)
    if "system" in idx.columns:
        lengths = length.reindex(list(zip(idx["situation_id"], idx["system"]))).to_numpy(dtype=float)
    else:
        lengths = length.reindex(list(zip(idx["situation_id"], idx["lo"]))).to_numpy(dtype=float) - length.reindex(
            list(zip(idx["situation_id"], idx["hi"]))
        ).to_numpy(dtype=float)
    j = _rank_corr(units.judge, lengths, "spearman")
    h = _rank_corr(units.table["human"].to_numpy(), lengths, "spearman")
    return None if j is None or h is None else j - h


def _bootstrap(units: _Units, n_boot: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = len(units.coders)
    taus, rhos = [], []
    for _ in range(n_boot if n >= 2 else 0):
        weights = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        human = units.human_means(weights)
        taus.append(units.system_tau(human))
        rhos.append(_rank_corr(human, units.judge, "spearman"))

    def ci(values):
        values = [v for v in values if v is not None]
        return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))] if len(values) >= 10 else None

    return {"kendall_tau_systems_ci95": ci(taus), "spearman_items_ci95": ci(rhos), "n_boot": n_boot}


def _split_half(units: _Units, seed: int) -> dict:
    """Humans vs humans and judge vs humans, each against the mean of one random half of the participants."""
    rng = np.random.default_rng(seed + 1)
    n = len(units.coders)
    hh, jh = [], []
    for _ in range(N_SPLITS if n >= 4 else 0):
        half = rng.permutation(n) < n // 2
        first, second = units.human_means(half.astype(float)), units.human_means((~half).astype(float))
        hh.append(_rank_corr(first, second, "spearman"))
        jh += [_rank_corr(units.judge, first, "spearman"), _rank_corr(units.judge, second, "spearman")]

    def mean(v):
        return float(np.mean([x for x in v if x is not None])) if any(x is not None for x in v) else None

    return {"spearman_split_half": mean(hh), "spearman_judge_vs_half": mean(jh)}
