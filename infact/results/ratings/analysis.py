"""Statistics for a rating study that respect its design.

Every participant rates every compared system on several situations, so ratings are
neither independent across systems (same participant) nor across participants (same
situation). Tests therefore work on per-participant means (Friedman, Wilcoxon), intervals
resample whole participants (cluster bootstrap), and the mixed model has crossed random
intercepts for participant and situation. Methods are documented in docs/analysis.md.

`analyze()` returns plain JSON-serialisable data (floats, None for NaN) so the CLI, the
report and the dashboard all show the same numbers.
"""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd

from infact.errors import InfactError, Problem
from infact.participation.steps.situation import RATINGS
from infact.results.ratings.conditions import analyze_conditions
from infact.results.tables.checks import blank_problems, row_problem
from infact.stats import N_BOOT
from infact.stats.bootstrap import boot_weights, percentile_ci
from infact.values import bool_column, json_ready

MAX_SCALE_POINTS = 100
# statsmodels' MixedLM builds dense (rows x random-effect levels) matrices; time grows
# steeply (measured: 10k ratings x 210 levels 5 s, 30k x 610 85 s), so past this many
# cells we skip the fit and say what to do instead of hanging.
MIXED_MODEL_MAX_CELLS = 10_000_000


def validate_ratings(df: pd.DataFrame, source: str = "RATINGS.csv", scale_points: int | None = None) -> None:
    """Raise InfactError naming the file, column, first bad line and the fix."""
    RATINGS.check_columns(df.columns, source)
    rows = df[~bool_column(df["is_attention_check"])] if "is_attention_check" in df.columns else df
    problems = blank_problems(df, ("participant", "situation_id", "system"), source, rows)
    values = pd.to_numeric(rows["rating"], errors="coerce")
    bad = values.isna() | (values != values.round())
    row_problem(
        problems,
        df,
        bad,
        source,
        "rating",
        lambda i: (
            f"rating {rows['rating'][i]!r} is not a whole number ({int(bad.sum())} row(s)); "
            "ratings must be integers 1..k — fix or delete those rows."
        ),
    )
    # Without a known scale, anything past MAX_SCALE_POINTS is a data error (1e30 would overflow the integer codes).
    top = scale_points if scale_points else MAX_SCALE_POINTS
    upper = f"{scale_points}" if scale_points else f"k (at most {MAX_SCALE_POINTS})"
    out = ~bad & ((values < 1) | (values > top))
    row_problem(
        problems,
        df,
        out,
        source,
        "rating",
        lambda i: (
            f"rating {values[i]:g} is outside 1..{upper} ({int(out.sum())} row(s)); "
            "recode the scale to start at 1 or pass the right number of scale points."
        ),
    )
    if "position" in rows.columns:
        pos = pd.to_numeric(rows["position"], errors="coerce")
        bad_pos = rows["position"].notna() & (pos.isna() | (pos != pos.round()))
        row_problem(
            problems,
            df,
            bad_pos,
            source,
            "position",
            lambda i: (
                f"position {rows['position'][i]!r} is not a whole number; positions count "
                "1, 2, … in display order — fix it or drop the position column."
            ),
        )
    if problems:
        raise InfactError(problems)


def prepare_ratings(df: pd.DataFrame, include_flagged: bool) -> tuple[pd.DataFrame, dict]:
    info = {"n_attention_check_rows_dropped": 0, "n_flagged_participants": 0, "include_flagged": include_flagged}
    if "is_attention_check" in df.columns:
        check = bool_column(df["is_attention_check"])
        info["n_attention_check_rows_dropped"] = int(check.sum())
        df = df[~check]
    if "excluded" in df.columns:
        flagged = bool_column(df["excluded"])
        info["n_flagged_participants"] = int(df.loc[flagged, "participant"].nunique())
        if not include_flagged:
            df = df[~flagged]
    df = df.assign(
        participant=df["participant"].astype(str),
        situation_id=df["situation_id"].astype(str),
        system=df["system"].astype(str),
        rating=pd.to_numeric(df["rating"]).astype(int),
    )
    return df, info


# --------------------------------------------------------------------------- entry point


def analyze(
    ratings: pd.DataFrame,
    *,
    criterion: str | None = None,
    scale_points: int | None = None,
    include_flagged: bool = False,
    mixed_model: bool = True,
    n_boot: int = N_BOOT,
    seed: int = 0,
    source: str = "RATINGS.csv",
    ordinal_model: bool | None = None,
) -> dict:
    """All statistics for one criterion, or {"criteria": {name: result}} for several.

    The ordinal model is fitted when `ordinal_model` is true, or when it is None and `mixed_model` is true."""
    validate_ratings(ratings, source, scale_points)
    df, info = prepare_ratings(ratings, include_flagged)
    if df.empty:
        raise InfactError(
            Problem(
                source,
                "no ratings left after dropping attention checks and flagged participants; "
                "pass --include-flagged or check the file.",
                key="rating",
            )
        )
    k = scale_points or max(5, int(df["rating"].max()))
    ordinal = mixed_model if ordinal_model is None else ordinal_model
    opts = dict(scale_points=k, mixed_model=mixed_model, ordinal_model=ordinal, n_boot=n_boot, seed=seed)
    names = criterion_names(df, criterion, source)
    if len(names) <= 1:
        part = df[df["criterion"].astype(str) == names[0]] if names else df
        return {"criterion": names[0] if names else None, **info, **analyze_one(part, **opts)}
    results = {n: {"criterion": n, **info, **analyze_one(df[df["criterion"].astype(str) == n], **opts)} for n in names}
    return json_ready(
        {"n_participants": int(df["participant"].nunique()), "n_ratings": int(len(df)), **info, "criteria": results}
    )


def criterion_names(df: pd.DataFrame, criterion: str | None, source: str) -> list[str]:
    """The criteria to analyse: every one in the table, or the one asked for (which must exist)."""
    names = sorted(df["criterion"].dropna().astype(str).unique()) if "criterion" in df.columns else []
    if criterion is not None:
        if criterion not in names:
            raise InfactError(
                Problem(
                    source,
                    f"criterion {criterion!r} not found; available: {', '.join(names) or 'none'}. "
                    "Pass one of those to --criterion.",
                    key="criterion",
                )
            )
        names = [criterion]
    return names


def analyze_one(
    df: pd.DataFrame,
    *,
    scale_points: int = 5,
    mixed_model: bool = True,
    ordinal_model: bool = False,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> dict:
    """Statistics for one criterion on a prepared frame (no checks, no flagged rows)."""
    systems = sorted(df["system"].unique())
    p_codes, participants = pd.factorize(df["participant"], sort=True)
    s_codes = pd.Categorical(df["system"], categories=systems).codes
    y = df["rating"].to_numpy(dtype=float)
    n_p, n_s = len(participants), len(systems)
    # per participant x system sums and counts: everything below is built on these.
    sums = np.zeros((n_p, n_s))
    cnt = np.zeros((n_p, n_s))
    np.add.at(sums, (p_codes, s_codes), y)
    np.add.at(cnt, (p_codes, s_codes), 1)
    weights = boot_weights(n_p, n_boot, seed)
    complete = (cnt > 0).all(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pmeans = sums / cnt  # NaN where a participant did not rate a system

    out = {
        "n_participants": n_p,
        "n_situations": int(df["situation_id"].nunique()),
        "n_ratings": int(len(df)),
        "scale_points": scale_points,
        "bootstrap": {"n_boot": n_boot, "seed": seed, "resampled": "participants"},
        "systems": _system_summary(df, systems, sums, cnt, weights, scale_points),
        "friedman": friedman_test(pmeans[complete], n_dropped=int((~complete).sum())),
        "pairwise": _pairwise(systems, pmeans, weights),
    }
    mm = fit_mixed_model(df) if mixed_model else None
    out["mixed_model"] = mm
    if ordinal_model:
        from infact.results.ratings.ordinal import fit_ordinal_model
    out["ordinal_model"] = fit_ordinal_model(df) if ordinal_model else None
    out["icc_participant"] = _icc(df, mm)
    out["krippendorff_alpha"] = {
        "level": "ordinal",
        "pooled": krippendorff_ordinal(df, ["situation_id", "system"], scale_points),
        "per_system": {s: krippendorff_ordinal(df[df["system"] == s], ["situation_id"], scale_points) for s in systems},
    }
    out["position_bias"] = position_bias(df) if "position" in df.columns and df["position"].notna().any() else None
    opts = dict(
        mixed_model=mixed_model, ordinal_model=ordinal_model, n_boot=n_boot, seed=seed, max_cells=MIXED_MODEL_MAX_CELLS
    )
    out["conditions"] = analyze_conditions(df, **opts)  # a between-subjects study (ratings/conditions.py)
    return json_ready(out)


def _system_summary(df, systems, sums, cnt, weights, k) -> dict:
    g = df.groupby("system")["rating"]
    desc = g.agg(["count", "mean", "median", "std"])
    shares = pd.crosstab(df["system"], df["rating"], normalize="index").reindex(columns=range(1, k + 1), fill_value=0.0)
    # pooled mean of all ratings given by the resampled participants
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (weights @ sums) / (weights @ cnt)
    lo, hi = percentile_ci(boot)
    return {
        s: {
            "n": int(desc.at[s, "count"]),
            "mean": desc.at[s, "mean"],
            "median": desc.at[s, "median"],
            "sd": desc.at[s, "std"],
            "distribution": {str(v): shares.at[s, v] for v in range(1, k + 1)},
            "ci95": [lo[j], hi[j]],
        }
        for j, s in enumerate(systems)
    }


def friedman_test(wide: np.ndarray, n_dropped: int = 0) -> dict | None:
    """Friedman on a participants x systems matrix of mean ratings; Kendall's W = chi2 / (n (k-1))."""
    from scipy.stats import friedmanchisquare

    n, k = wide.shape
    base = {"n_participants": int(n), "n_dropped_incomplete": int(n_dropped), "k": int(k)}
    if k < 3 or n < 2:
        return {
            **base,
            "statistic": None,
            "p": None,
            "kendall_w": None,
            "note": "needs at least 3 systems and 2 complete participants; see pairwise",
        }
    stat, p = friedmanchisquare(*wide.T)
    return {**base, "statistic": stat, "p": p, "kendall_w": stat / (n * (k - 1))}


def _pairwise(systems, pmeans, weights) -> list[dict]:
    from statsmodels.stats.multitest import multipletests

    from infact.stats.signed_rank import signed_rank_p

    pairs = list(combinations(range(len(systems)), 2))
    if not pairs:
        return []
    diffs = np.stack([pmeans[:, a] - pmeans[:, b] for a, b in pairs], axis=1)
    rated = ~np.isnan(diffs)  # participant rated both systems of the pair
    # all pairs' bootstrap means in two matrix products (no per-pair copy of the weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (weights @ np.where(rated, diffs, 0.0)) / (weights @ rated)
    lo, hi = percentile_ci(boot)
    rows = []
    for j, (a, b) in enumerate(pairs):
        d = diffs[rated[:, j], j]
        p = signed_rank_p(d) if len(d) >= 2 and np.any(d != 0) else np.nan
        rows.append(
            {
                "a": systems[a],
                "b": systems[b],
                "n_participants": len(d),
                "mean_diff": d.mean() if len(d) else np.nan,
                "ci95": [lo[j], hi[j]],
                "p": p,
            }
        )
    ps = np.array([r["p"] for r in rows], dtype=float)
    ok = ~np.isnan(ps)
    adj = np.full_like(ps, np.nan)
    if ok.any():
        adj[ok] = multipletests(ps[ok], method="holm")[1]
    for r, q in zip(rows, adj):
        r["p_holm"] = q
    return rows


def fit_mixed_model(df: pd.DataFrame) -> dict:
    """rating ~ system with crossed random intercepts (participant, situation), REML."""
    import statsmodels.formula.api as smf

    cells = len(df) * (df["participant"].nunique() + df["situation_id"].nunique())
    if cells > MIXED_MODEL_MAX_CELLS:
        return {
            "error": f"skipped: {len(df)} ratings x {cells // len(df)} participants+situations is too large "
            "for statsmodels' dense crossed random effects (limit "
            f"{MIXED_MODEL_MAX_CELLS:,} cells); use --no-mixed-model or analyse a subset"
        }
    data = df[["rating", "system", "participant", "situation_id"]].assign(_all=1)
    vc = {"participant": "0 + C(participant)", "situation": "0 + C(situation_id)"}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = smf.mixedlm("rating ~ C(system)", data, groups="_all", re_formula="0", vc_formula=vc)
            fit = model.fit(reml=True)
        var = {**dict(zip(model.exog_vc.names, map(float, fit.vcomp))), "residual": float(fit.scale)}
        total = sum(var.values())
        if not np.isfinite(total) or total <= 0:
            return {"error": "no rating variance to model (all ratings equal?)"}
        names = list(fit.fe_params.index)
        return {
            "formula": "rating ~ system + (1|participant) + (1|situation)",
            "method": "REML",
            "reference_system": sorted(df["system"].unique())[0],
            "estimates": [
                {"term": _term(t), "estimate": fit.fe_params[t], "se": fit.bse_fe[t], "p": fit.pvalues[t]}
                for t in names
            ],
            "variance": var,
            "variance_share": {k: v / total for k, v in var.items()},
            "loglik": fit.llf,
            "converged": bool(fit.converged),
            "warnings": sorted({str(w.message).splitlines()[0] for w in caught}),
        }
    except Exception as exc:  # singular designs, numerical failure: report, do not crash
        return {"error": f"{type(exc).__name__}: {exc}"}


def _term(name: str) -> str:
    # "C(system)[T.kbrd]" -> "system=kbrd"
    return f"system={name.split('[T.', 1)[1][:-1]}" if "[T." in name else name


def _icc(df: pd.DataFrame, mm: dict | None) -> dict:
    if mm and "variance_share" in mm:
        return {"value": mm["variance_share"]["participant"], "method": "mixed model variance components"}
    # ICC(1), one-way random effects on participants, after removing system means
    # (system is a fixed effect, not rating variance between people).
    r = df["rating"] - df.groupby("system")["rating"].transform("mean")
    g = r.groupby(df["participant"])
    n_i = g.size().to_numpy(dtype=float)
    a, n = len(n_i), n_i.sum()
    if a < 2 or n <= a:
        return {
            "value": None,
            "method": "ICC(1) one-way on participants",
            "note": "needs 2+ participants with 2+ ratings",
        }
    msb = (n_i * (g.mean().to_numpy() - r.mean()) ** 2).sum() / (a - 1)
    msw = ((r - g.transform("mean")) ** 2).sum() / (n - a)
    k0 = (n - (n_i**2).sum() / n) / (a - 1)  # average group size for unbalanced data
    denom = msb + (k0 - 1) * msw
    value = (msb - msw) / denom if denom > 0 else None  # None: no variance at all
    return {"value": value, "method": "ICC(1) one-way on participants (system-centred)"}


def krippendorff_ordinal(df: pd.DataFrame, unit_cols: list[str], k: int) -> float | None:
    """Ordinal alpha; coders = participants, units = unit_cols. None if no unit has 2 ratings."""
    import krippendorff

    # value counts (units x scale points) == the coincidence input; avoids a huge
    # participants x units matrix when each participant sees few situations.
    counts = pd.crosstab([df[c] for c in unit_cols], df["rating"]).reindex(columns=range(1, k + 1), fill_value=0)
    counts = counts[counts.sum(axis=1) >= 2]
    if counts.empty or (counts.sum(axis=0) > 0).sum() < 2:
        return None
    try:
        return krippendorff.alpha(
            value_counts=counts.to_numpy(), value_domain=list(range(1, k + 1)), level_of_measurement="ordinal"
        )
    except (ValueError, ZeroDivisionError):
        return None


def position_bias(df: pd.DataFrame) -> dict:
    """Balance of systems over positions (chi-square) and position effect on ratings.

    The effect is an OLS rating ~ C(system) + C(position) with standard errors clustered
    by participant; controlling for system keeps an unbalanced assignment from
    masquerading as an order effect. Joint Wald test of all position terms.
    """
    from scipy.stats import chi2_contingency

    d = df[df["position"].notna()]
    pos = pd.to_numeric(d["position"]).astype(int)
    table = pd.crosstab(d["system"], pos)
    bal = {"statistic": None, "p": None, "dof": None}
    if table.shape[0] > 1 and table.shape[1] > 1:
        res = chi2_contingency(table.to_numpy())
        bal = {"statistic": res.statistic, "p": res.pvalue, "dof": int(res.dof)}
    out = {
        "counts": {s: {str(c): int(table.at[s, c]) for c in table.columns} for s in table.index},
        "balance_chi2": bal,
        "mean_by_position": {str(p): m for p, m in d["rating"].groupby(pos).mean().items()},
        "effect": None,
    }
    if table.shape[1] >= 2:
        out["effect"] = _position_effect(d, pos)
    return out


def _position_effect(d: pd.DataFrame, pos: pd.Series) -> dict:
    """OLS rating ~ C(system) + C(position), SE clustered by participant, and the joint Wald test of the
    position terms (or the reason it cannot be fitted)."""
    import statsmodels.api as sm

    X = pd.concat(
        [
            pd.get_dummies(d["system"], prefix="system", drop_first=True),
            pd.get_dummies(pos, prefix="position", drop_first=True),
        ],
        axis=1,
    ).astype(float)
    X.insert(0, "const", 1.0)
    groups = pd.factorize(d["participant"])[0]
    if groups.max(initial=-1) < 1:  # SE clustered by participant need >= 2 (statsmodels divides by G-1)
        return {"error": "the position effect needs ratings from at least two participants"}
    try:
        # QR, not the default pinv/SVD: 4x faster on 100k rows, same estimates
        fit = sm.OLS(d["rating"].to_numpy(dtype=float), X).fit(
            method="qr", cov_type="cluster", cov_kwds={"groups": groups}
        )
        terms = [c for c in X.columns if c.startswith("position_")]
        R = np.zeros((len(terms), X.shape[1]))
        for i, t in enumerate(terms):
            R[i, list(X.columns).index(t)] = 1
        wald = fit.wald_test(R, use_f=False, scalar=True)
        return {
            "model": "OLS rating ~ C(system) + C(position), SE clustered by participant",
            "reference_position": int(pos.min()),
            "coefficients": {
                t.removeprefix("position_"): {"estimate": fit.params[t], "se": fit.bse[t], "p": fit.pvalues[t]}
                for t in terms
            },
            "wald_chi2": float(np.squeeze(wald.statistic)),
            "df": len(terms),
            "p": float(np.squeeze(wald.pvalue)),
        }
    except (ValueError, ZeroDivisionError, np.linalg.LinAlgError) as exc:  # too few ratings for the model
        return {"error": f"{type(exc).__name__}: {exc}"}
