"""Automatic judges (an LLM, a metric) compared with the human raters before anyone trusts them.

A judge file is either *scores* — `situation_id, system[, criterion], score` — or *pairwise*
— `situation_id, system_a, system_b, winner` with system_a shown first. Humans are a ratings
table or pairwise votes. When both sides are scores, an item is a situation × system; when
either side is pairwise, an item is a situation × pair and every rating or score becomes the
preference it implies (+1 first system of the pair alphabetically, −1 the other, 0 tie).

Per judge: `n_items` matched with human data, `kendall_tau_systems` (systems ranked by the
humans vs by the judge), `spearman_items` (human mean per item vs the judge), Krippendorff's
α with the judge as one more coder beside the human pool (and the humans' own α to compare),
`position_bias` (pairwise judges that judged both orders of a pair: share of decisive
verdicts for the first-shown response minus ½), and `length_bias` (how much more the judge
than the humans favours longer responses). Methods: docs/ranking.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from infact.errors import InfactError, OptionError, Problem
from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as ranking

SCORE_COLUMNS = ("situation_id", "system", "score")
PAIR_COLUMNS = ("situation_id", "system_a", "system_b", "winner")
TEXT = dict.fromkeys(("situation_id", "system", "system_a", "system_b", "winner", "criterion", "participant"), str)


def parse_judge_option(value: str) -> tuple[str, Path]:
    name, sep, path = value.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise OptionError("judges", f"{value!r} is not NAME=FILE.csv; e.g. {{judges}} gpt4=judge_gpt4.csv.")
    return name.strip(), Path(path.strip())


def read_judge(path: Path) -> tuple[str, pd.DataFrame]:
    """('scores' | 'pairwise', checked table) — errors name the file, line and fix."""
    if not path.is_file():
        raise OptionError(
            "judges", "judge file not found; give {judges} NAME=FILE.csv with an existing file.", file=str(path)
        )
    df = pd.read_csv(path, dtype=TEXT)
    if set(PAIR_COLUMNS) <= set(df.columns):
        votes = pt.prepare_pairwise(df.assign(participant="judge"), str(path))
        return "pairwise", votes
    missing = [c for c in SCORE_COLUMNS if c not in df.columns]
    if missing:
        raise InfactError(
            Problem(
                str(path),
                f"a judge file needs columns {', '.join(SCORE_COLUMNS)} (scores) or "
                f"{', '.join(PAIR_COLUMNS)} (pairwise); missing {', '.join(missing)}.",
                line=1,
                key=missing[0],
            )
        )
    score = pd.to_numeric(df["score"], errors="coerce")
    if score.isna().any():
        bad = int(np.flatnonzero(score.isna().to_numpy())[0])
        raise InfactError(
            Problem(
                str(path),
                f"score {df['score'].iloc[bad]!r} is not a number; every row needs one.",
                line=bad + 2,
                key="score",
            )
        )
    return "scores", df.assign(score=score, participant="judge")


# --------------------------------------------------------------------------- common units


def answer_keys(*frames) -> list[str]:
    return ["situation_id"] + (["criterion"] if all("criterion" in f.columns for f in frames) else [])


def preferences(df: pd.DataFrame, kind: str, keys: list[str]) -> pd.DataFrame:
    """One row per coder judgement of a pair: keys, lo, hi, coder, code (+1 lo preferred), first (shown first)."""
    if kind in ("ratings", "scores"):
        value = "rating" if kind == "ratings" else "score"
        votes = pt.ratings_as_pairwise(df.rename(columns={value: "rating"})[[*keys, "participant", "system", "rating"]])
        votes["first"] = None
    else:
        votes = df.assign(first=df["system_a"])
    lo = np.minimum(votes["system_a"].astype(str), votes["system_b"].astype(str))
    hi = np.maximum(votes["system_a"].astype(str), votes["system_b"].astype(str))
    code = np.where(votes["winner"] == lo, 1, np.where(votes["winner"] == hi, -1, 0))
    return votes[keys].assign(
        lo=lo, hi=hi, coder=votes["participant"].astype(str), code=code, first=votes["first"], winner=votes["winner"]
    )


def _alpha(units: pd.DataFrame, unit_cols: list[str], value: str, level: str) -> float | None:
    import krippendorff

    table = units.pivot_table(index="coder", columns=unit_cols, values=value, aggfunc="mean")
    data = table.to_numpy(dtype=float)
    if data.shape[1] == 0 or (np.sum(~np.isnan(data), axis=0) >= 2).sum() == 0:
        return None
    if level == "ordinal":
        data = np.round(data)
    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except (ValueError, ZeroDivisionError):
        return None


def _tau(x: pd.Series, y: pd.Series) -> float | None:
    from scipy.stats import kendalltau

    both = pd.concat([x, y], axis=1, join="inner").dropna()
    return float(kendalltau(both.iloc[:, 0], both.iloc[:, 1]).statistic) if len(both) >= 2 else None


def _spearman(x, y) -> float | None:
    from scipy.stats import spearmanr

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(spearmanr(x, y).statistic)


def _bt_strengths(prefs: pd.DataFrame) -> pd.Series:
    votes = prefs.rename(columns={"lo": "system_a", "hi": "system_b", "coder": "participant"})
    d = pt.votes_design(votes)
    return pd.Series(ranking.fit(d)[0][: len(d.systems)], index=d.systems)


# --------------------------------------------------------------------------- comparison


def compare(
    humans: pd.DataFrame, human_kind: str, judge: pd.DataFrame, judge_kind: str, features: pd.DataFrame | None = None
) -> dict:
    """The judge's agreement with the humans (see the module docstring for each field)."""
    keys = answer_keys(humans, judge)
    if human_kind == "ratings" and judge_kind == "scores":
        return _compare_scores(humans, judge, keys, features)
    return _compare_preferences(humans, human_kind, judge, judge_kind, keys, features)


def _compare_scores(humans, judge, keys, features) -> dict:
    item = [*keys, "system"]
    h_mean = humans.groupby(item)["rating"].mean().rename("human")
    j_mean = judge.groupby(item)["score"].mean().rename("judge")
    items = pd.concat([h_mean, j_mean], axis=1, join="inner").reset_index()
    kept = humans.merge(items[item], on=item)
    k = int(humans["rating"].max())
    lo, hi = judge["score"].min(), judge["score"].max()
    on_scale = ((judge["score"] == judge["score"].round()) & judge["score"].between(1, k)).all()
    level = "ordinal" if on_scale else "interval"
    # Off-scale scores are mapped linearly onto 1..k and rounded to 0.1: α's coincidence matrix
    # grows with the square of the number of distinct values.
    j_vals = judge["score"] if on_scale or hi == lo else (1 + (judge["score"] - lo) * (k - 1) / (hi - lo)).round(1)
    coded = pd.concat(
        [
            kept.assign(coder=kept["participant"].astype(str), value=kept["rating"]),
            judge.assign(coder="judge", value=j_vals).merge(items[item], on=item),
        ]
    )
    out = {
        "kind": "scores",
        "n_items": int(len(items)),
        "kendall_tau_systems": _tau(kept.groupby("system")["rating"].mean(), items.groupby("system")["judge"].mean()),
        "spearman_items": _spearman(items["human"], items["judge"]),
        "krippendorff_alpha_with_humans": _alpha(coded, item, "value", level),
        "krippendorff_alpha_humans": _alpha(coded[coded["coder"] != "judge"], item, "value", level),
        "alpha_level": level if on_scale else f"{level} (judge scores rescaled to 1..{k}, rounded to 0.1)",
        "position_bias": None,
        "length_bias": None,
    }
    if features is not None and len(items):
        f = items.merge(features, on=["situation_id", "system"])
        if len(f) >= 3:
            j, h = _spearman(f["judge"], f["length"]), _spearman(f["human"], f["length"])
            out["length_bias"] = None if j is None or h is None else j - h
    return out


def _compare_preferences(humans, human_kind, judge, judge_kind, keys, features) -> dict:
    unit = [*keys, "lo", "hi"]
    hp, jp = preferences(humans, human_kind, keys), preferences(judge, judge_kind, keys)
    units = pd.concat(
        [hp.groupby(unit)["code"].mean().rename("human"), jp.groupby(unit)["code"].mean().rename("judge")],
        axis=1,
        join="inner",
    ).reset_index()
    kept = hp.merge(units[unit], on=unit)
    j_units = jp.groupby(unit)["code"].mean().apply(np.sign).rename("code").reset_index().assign(coder="judge")
    coded = pd.concat([kept[[*unit, "coder", "code"]], j_units.merge(units[unit], on=unit)])
    human_systems = humans.groupby("system")["rating"].mean() if human_kind == "ratings" else _bt_strengths(hp)
    out = {
        "kind": "pairwise",
        "n_items": int(len(units)),
        "kendall_tau_systems": _tau(human_systems, _bt_strengths(jp)) if len(jp) else None,
        "spearman_items": _spearman(units["human"], units["judge"]),
        "krippendorff_alpha_with_humans": _alpha(coded, unit, "code", "ordinal"),
        "krippendorff_alpha_humans": _alpha(coded[coded["coder"] != "judge"], unit, "code", "ordinal"),
        "alpha_level": "ordinal (preference −1/0/+1)",
        **position_bias(jp, unit),
        "length_bias": None,
    }
    if features is not None:
        out["length_bias"] = (
            _longer_share(jp, features) - _longer_share(kept, features)
            if _longer_share(jp, features) is not None and _longer_share(kept, features) is not None
            else None
        )
    return out


def position_bias(prefs: pd.DataFrame, unit: list[str]) -> dict:
    """Among pairs judged in both orders: decisive verdicts for the first-shown response minus ½,
    and the share of such pairs judged the same way both times (`position_consistency`)."""
    p = prefs[prefs["first"].notna()]
    both = p.groupby(unit)["first"].nunique()
    both = both[both == 2].index
    if not len(both):
        return {"position_bias": None, "position_consistency": None, "n_pairs_both_orders": 0}
    p = p.set_index(unit).loc[both].reset_index()
    decisive = p[p["code"] != 0]
    first_share = float((decisive["winner"] == decisive["first"]).mean()) if len(decisive) else 0.5
    consistent = p.groupby(unit)["code"].nunique().eq(1).mean()
    return {
        "position_bias": first_share - 0.5,
        "position_consistency": float(consistent),
        "n_pairs_both_orders": int(len(both)),
    }


def _longer_share(prefs: pd.DataFrame, features: pd.DataFrame) -> float | None:
    """Share of decisive preferences, between responses of different length, that went to the longer one."""
    f = features.set_index(["situation_id", "system"])["length"]
    la = f.reindex(list(zip(prefs["situation_id"], prefs["lo"]))).to_numpy()
    lb = f.reindex(list(zip(prefs["situation_id"], prefs["hi"]))).to_numpy()
    ok = (prefs["code"].to_numpy() != 0) & ~np.isnan(la) & ~np.isnan(lb) & (la != lb)
    if not ok.any():
        return None
    longer_lo = la[ok] > lb[ok]
    return float(np.mean((prefs["code"].to_numpy()[ok] > 0) == longer_lo))


def judge_files(named: list[tuple[str, Path]], criterion: str | None = None):
    """(name, path, kind, judge table) for each judge file given as (name, path), on `criterion` when given."""
    for name, path in named:
        judge_kind, judge = read_judge(Path(path))
        if criterion and "criterion" in judge.columns:
            judge = judge[judge["criterion"].astype(str) == criterion]
        yield name, path, judge_kind, judge


def compare_files(
    humans: pd.DataFrame, kind: str, named: list[tuple[str, Path]], criterion: str | None, features: pd.DataFrame | None
) -> dict:
    """{name: compare(...)} for judge files given as (name, path); humans already prepared."""
    out = {}
    for name, path, judge_kind, judge in judge_files(named, criterion):
        if "criterion" in humans.columns and "criterion" not in judge.columns and humans["criterion"].nunique() > 1:
            raise InfactError(
                Problem(
                    str(path),
                    "the human data have several criteria and the judge file has no "
                    "criterion column; pass --criterion NAME or add the column.",
                )
            )
        out[name] = compare(humans, kind, judge, judge_kind, features)
    return out
