"""Ratings of a between-subjects study: per condition, condition × system, and the models with condition.

Conditions are between participants (each participant sees one: infact/study/conditions/overlay.py), systems within
them. Per condition × system the mean rating has a 95% interval from resampling whole participants within the
condition. Both models add condition and its interaction with system as fixed effects, keeping the crossed random
intercepts for participant and situation:

    rating ~ system * condition + (1|participant) + (1|situation)

the linear mixed model by REML (statsmodels) and the cumulative-link (logit) mixed model (infact/stats/clmm.py, as R's
`ordinal::clmm`). A joint Wald test of the interaction terms says whether the conditions change the systems'
differences, the condition terms whether they change the ratings of the reference system.
"""

from __future__ import annotations

import warnings
from statistics import NormalDist

import numpy as np
import pandas as pd

from infact.stats.bootstrap import boot_weights, percentile_ci
from infact.stats.clmm import MAX_SCHUR_LEVELS, fit_clmm

NORMAL = NormalDist()  # the Wald p-values (statistics, not scipy.stats: see chi2 below)

FORMULA = "rating ~ system * condition + (1|participant) + (1|situation)"


def conditions_of(df: pd.DataFrame) -> list[str]:
    """The conditions in a ratings table (none: not a between-subjects study, or one condition only)."""
    if "condition" not in df.columns:
        return []
    names = sorted(df["condition"].dropna().astype(str).unique())
    return names if len(names) >= 2 else []


def analyze_conditions(
    df: pd.DataFrame,
    *,
    mixed_model: bool = True,
    ordinal_model: bool = False,
    n_boot: int = 2000,
    seed: int = 0,
    max_cells: int = 10_000_000,
) -> dict | None:
    """Per condition and condition × system, and both models with condition; None without two conditions."""
    names = conditions_of(df)
    if not names:
        return None
    df = df[df["condition"].notna()].assign(condition=lambda d: d["condition"].astype(str))
    systems = sorted(df["system"].unique())
    out = {
        "conditions": {c: _one(df[df["condition"] == c], systems, n_boot, seed) for c in names},
        "reference_condition": names[0],
        "reference_system": systems[0],
    }
    out["mixed_model"] = fit_mixed_with_condition(df, max_cells) if mixed_model else None
    out["ordinal_model"] = fit_ordinal_with_condition(df, systems, names) if ordinal_model else None
    return out


def _one(d: pd.DataFrame, systems: list[str], n_boot: int, seed: int) -> dict:
    p_codes, participants = pd.factorize(d["participant"], sort=True)
    s_codes = pd.Categorical(d["system"], categories=systems).codes
    sums = np.zeros((len(participants), len(systems)))
    cnt = np.zeros_like(sums)
    np.add.at(sums, (p_codes, s_codes), d["rating"].to_numpy(dtype=float))
    np.add.at(cnt, (p_codes, s_codes), 1)
    weights = boot_weights(len(participants), n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (weights @ sums) / (weights @ cnt)  # each condition's participants resampled within it
    lo, hi = percentile_ci(boot)
    desc = d.groupby("system")["rating"].agg(["count", "mean", "std"]).reindex(systems)
    return {
        "n_participants": len(participants),
        "n_ratings": int(len(d)),
        "mean": float(d["rating"].mean()),
        "systems": {
            s: {
                "n": int(cnt[:, j].sum()),
                "mean": desc.at[s, "mean"],
                "sd": desc.at[s, "std"],
                "ci95": [lo[j], hi[j]],
            }
            for j, s in enumerate(systems)
        },
    }


def _wald(beta: np.ndarray, cov: np.ndarray | None, idx: list[int]) -> dict | None:
    """Joint Wald test that the coefficients `idx` are all 0."""
    if not idx or cov is None:
        return None
    b = beta[idx]
    try:
        stat = float(b @ np.linalg.solve(cov[np.ix_(idx, idx)], b))
    except np.linalg.LinAlgError:
        return None
    from scipy.stats import chi2  # here: a pairwise analysis imports ratings' modules but never scipy.stats

    return {"chi2": stat, "df": len(idx), "p": float(chi2.sf(stat, len(idx)))}


def _term(name: str) -> str:
    # "C(system)[T.B]:C(condition)[T.x]" -> "system=B:condition=x"
    parts = []
    for part in name.split(":"):
        if "[T." in part:
            var = part[part.index("(") + 1 : part.index(")")]
            parts.append(f"{var}={part.split('[T.', 1)[1][:-1]}")
        else:
            parts.append(part)
    return ":".join(parts)


def fit_mixed_with_condition(df: pd.DataFrame, max_cells: int) -> dict:
    """The linear mixed model with condition and condition × system (REML), or {"error": ...}; skipped past
    `max_cells` (ratings × levels: statsmodels' dense design, analysis.MIXED_MODEL_MAX_CELLS)."""
    import statsmodels.formula.api as smf

    cells = len(df) * (df["participant"].nunique() + df["situation_id"].nunique())
    if cells > max_cells:
        return {"error": f"skipped: {cells:,} cells is more than statsmodels' dense crossed random effects take"}
    data = df[["rating", "system", "condition", "participant", "situation_id"]].assign(_all=1)
    vc = {"participant": "0 + C(participant)", "situation": "0 + C(situation_id)"}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = smf.mixedlm("rating ~ C(system) * C(condition)", data, groups="_all", re_formula="0", vc_formula=vc)
            fit = model.fit(reml=True)
        names = list(fit.fe_params.index)
        cov = fit.cov_params().loc[names, names].to_numpy()
        beta = fit.fe_params.to_numpy()
        inter = [i for i, n in enumerate(names) if ":" in n]
        main = [i for i, n in enumerate(names) if n.startswith("C(condition)")]
        return {
            "formula": FORMULA,
            "method": "REML",
            "estimates": [
                {"term": _term(t), "estimate": fit.fe_params[t], "se": fit.bse_fe[t], "p": fit.pvalues[t]}
                for t in names
            ],
            "condition_test": _wald(beta, cov, main),
            "interaction_test": _wald(beta, cov, inter),
            "loglik": fit.llf,
            "converged": bool(fit.converged),
            "warnings": sorted({str(w.message).splitlines()[0] for w in caught}),
        }
    except Exception as exc:  # singular designs, numerical failure: report, do not crash
        return {"error": f"{type(exc).__name__}: {exc}"}


def design(df: pd.DataFrame, systems: list[str], conditions: list[str]) -> tuple[np.ndarray, list[str]]:
    """The fixed-effect columns (no intercept: the thresholds take its place) and their names: system, condition,
    then system × condition dummies, each against the first system and the first condition."""
    sys_d = (df["system"].to_numpy()[:, None] == np.array(systems[1:], dtype=object)[None, :]).astype(float)
    con_d = (df["condition"].to_numpy()[:, None] == np.array(conditions[1:], dtype=object)[None, :]).astype(float)
    inter = (sys_d[:, :, None] * con_d[:, None, :]).reshape(len(df), -1)
    names = [f"system={s}" for s in systems[1:]] + [f"condition={c}" for c in conditions[1:]]
    names += [f"system={s}:condition={c}" for s in systems[1:] for c in conditions[1:]]
    return np.hstack([sys_d, con_d, inter]), names


def fit_ordinal_with_condition(df: pd.DataFrame, systems: list[str], conditions: list[str]) -> dict:
    """The cumulative-link mixed model with condition and condition × system, or {"error": ...}."""
    values = np.sort(df["rating"].unique())
    if len(values) < 2:
        return {"error": "every rating is the same; an ordinal model needs at least two different ratings"}
    p_codes = pd.factorize(df["participant"], sort=True)[0]
    s_codes = pd.factorize(df["situation_id"], sort=True)[0]
    if min(p_codes.max(), s_codes.max()) + 1 > MAX_SCHUR_LEVELS:
        return {"error": f"skipped: more than {MAX_SCHUR_LEVELS:,} participants and situations both"}
    X, names = design(df, systems, conditions)
    keep = X.any(axis=0)  # a system not shown in a condition (two system sets) has no interaction to estimate
    X, names = X[:, keep], [n for n, k in zip(names, keep) if k]
    try:
        fit = fit_clmm(np.searchsorted(values, df["rating"].to_numpy()), X, [p_codes, s_codes])
    except (ValueError, np.linalg.LinAlgError, FloatingPointError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    k = len(values) - 1
    se = np.sqrt(np.diag(fit.cov))[k:] if fit.cov is not None else np.full(len(names), np.nan)
    cov = fit.cov[k:, k:] if fit.cov is not None else None
    beta = np.asarray(fit.beta)
    return {
        "formula": FORMULA,
        "link": "logit",
        "method": "Laplace",
        "effects": {
            n: {"estimate": b, "se": e, "p": 2 * NORMAL.cdf(-abs(b / e)) if np.isfinite(e) and e > 0 else None}
            for n, b, e in zip(names, beta, se)
        },
        "condition_test": _wald(beta, cov, [i for i, n in enumerate(names) if n.startswith("condition=")]),
        "interaction_test": _wald(beta, cov, [i for i, n in enumerate(names) if ":" in n]),
        "sd_participant": fit.sd[0],
        "sd_situation": fit.sd[1],
        "loglik": fit.loglik,
        "converged": fit.converged,
    }
