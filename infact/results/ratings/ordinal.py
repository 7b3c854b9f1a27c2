"""The ordinal model of one criterion's ratings: a cumulative-link (logit) mixed model.

Ratings are answers on an ordered scale, not measurements on an interval one: a model of their means can
misstate effects, even their order, when the systems' distributions differ in shape (Liddell & Kruschke
2018). `fit_ordinal_model` fits rating ~ system + (1|participant) + (1|situation), R's `ordinal::clmm` model
with the same parameters and Laplace approximation (infact/stats/clmm.py; checked against R in
tests/stats/test_clmm.py), and says whether it orders the systems as their mean ratings do.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from infact.stats.clmm import MAX_SCHUR_LEVELS, fit_clmm

FORMULA = "rating ~ system + (1|participant) + (1|situation)"
# An effect beyond ±15 log-odds (an odds ratio of 3 million), or with an SE that large, is a likelihood that
# keeps growing as the effect does (separation), not an estimate.
SEPARATED = 15.0


def fit_ordinal_model(df: pd.DataFrame) -> dict:
    """The fitted model as plain data, or {"error": ...} (the rest of the analysis runs on)."""
    values = np.sort(df["rating"].unique())
    if len(values) < 2:
        return {"error": "every rating is the same; an ordinal model needs at least two different ratings"}
    p_codes = pd.factorize(df["participant"], sort=True)[0]
    s_codes = pd.factorize(df["situation_id"], sort=True)[0]
    if min(p_codes.max(), s_codes.max()) + 1 > MAX_SCHUR_LEVELS:
        return {
            "error": f"skipped: more than {MAX_SCHUR_LEVELS:,} participants and situations both; "
            "analyse a subset (e.g. --criterion) or pass --no-ordinal-model"
        }
    systems = sorted(df["system"].unique())
    y = np.searchsorted(values, df["rating"].to_numpy())
    X = (df["system"].to_numpy()[:, None] == np.array(systems[1:], dtype=object)[None, :]).astype(float)
    try:
        fit = fit_clmm(y, X, [p_codes, s_codes])
    except (ValueError, np.linalg.LinAlgError, FloatingPointError) as exc:  # numerical failure: report it
        return {"error": f"{type(exc).__name__}: {exc}"}
    k = len(values) - 1
    se = np.sqrt(np.diag(fit.cov)) if fit.cov is not None else np.full(k + len(fit.beta), np.nan)
    effects = {
        s: {"estimate": b, "se": e, "p": 2 * norm.sf(abs(b / e)) if np.isfinite(e) and e > 0 else None}
        for s, b, e in zip(systems[1:], fit.beta, se[k:])
    }
    out = {
        "formula": FORMULA,
        "link": "logit",
        "method": "Laplace",
        "reference": systems[0],
        "effects": effects,
        "thresholds": {f"{values[j]}|{values[j + 1]}": t for j, t in enumerate(fit.thresholds)},
        "sd_participant": fit.sd[0],
        "sd_situation": fit.sd[1],
        "loglik": fit.loglik,
        "converged": fit.converged,
    }
    runaway = [s for s, e in effects.items() if abs(e["estimate"]) > SEPARATED or e["se"] > SEPARATED]
    if runaway:  # e.g. one system rated only 1 and another only 5: the likelihood grows without bound
        out["note"] = (
            f"the effect of {', '.join(runaway)} runs off to infinity (separated ratings, e.g. one system always "
            "at one end of the scale): this model cannot estimate it from these data; read the distributions instead"
        )
    elif fit.cov is None:
        out["note"] = (
            "the log-likelihood's Hessian is not positive definite at the estimate, so there are no standard "
            "errors: these data do not identify the model"
        )
    elif not fit.converged:
        out["note"] = f"the optimiser stopped short of the maximum: {fit.message}"
    means = df.groupby("system")["rating"].mean().to_dict()
    model = {systems[0]: 0.0, **{s: e["estimate"] for s, e in effects.items()}}
    return {**out, **compare_orders(model, means)}


def compare_orders(model: dict[str, float], means: dict[str, float]) -> dict:
    """The systems best first by the model, and the pairs the mean ratings put the other way round."""
    order = sorted(model, key=lambda s: (-model[s], s))
    reversed_pairs = [
        [a, b]
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if model[a] > model[b] and means[a] < means[b]  # strictly opposite: ties in either are no reversal
    ]
    return {"order": order, "order_differs_from_means": reversed_pairs}
