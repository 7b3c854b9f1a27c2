"""`python -m infact analyze annotations.csv`: a conversation study's figures, per aspect and system.

- means per aspect × system with participant-cluster bootstrap intervals (participants resampled,
  as for ratings: infact.stats.bootstrap);
- Krippendorff's α (ordinal) per aspect, units = conversation (× turn for turn aspects);
- a halo check: the correlation between aspects within annotators (each annotator's answers centred
  on their own means, then pooled), since recent CRS studies find a strong halo across dimensions;
- a ranking of the systems per aspect (by mean; `separated` when adjacent intervals do not overlap);
- judges in the FACE run-file shape (`--judge NAME=RUN.json`): per aspect, items = conversation ×
  aspect (dialogue level) or conversation × turn × aspect (turn level), Pearson and Spearman over
  items against the human mean per item, Kendall's τ between the systems' human and judge means;
  with `group_by` the same per value of a column (e.g. `dataset`).

Gold conversations and excluded participants are left out (excluded ones kept with include_flagged).
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from infact.errors import InfactError, OptionError, Problem
from infact.participation.steps.conversation import ANNOTATIONS
from infact.results.tables.checks import row_problem
from infact.stats import N_BOOT
from infact.stats.bootstrap import boot_weights, percentile_ci
from infact.values import bool_column, json_ready


def prepare(df: pd.DataFrame, include_flagged: bool = False, source: str = "annotations.csv") -> pd.DataFrame:
    ANNOTATIONS.check_columns(df.columns, source)
    d = df.copy()
    d["value"] = pd.to_numeric(d["value"], errors="coerce")
    problems: list[Problem] = []
    row_problem(problems, d, d["value"].isna(), source, "value", "value is not a number")
    if problems:
        raise InfactError(problems)
    if "is_gold" in d:
        d = d[~bool_column(d["is_gold"])]
    if "excluded" in d and not include_flagged:
        d = d[~bool_column(d["excluded"])]
    d["turn"] = pd.to_numeric(d["turn"], errors="coerce") if "turn" in d else np.nan
    d["item"] = d["conversation_id"].astype(str) + np.where(
        d["level"] == "turn", "#" + d["turn"].astype("Int64").astype(str), ""
    )
    return d


def _system_means(g: pd.DataFrame, weights_for, seed: int, n_boot: int) -> dict:
    systems = sorted(g["system"].unique())
    p_codes, people = pd.factorize(g["participant"], sort=True)
    s_codes = pd.Categorical(g["system"], categories=systems).codes
    sums, cnt = np.zeros((len(people), len(systems))), np.zeros((len(people), len(systems)))
    np.add.at(sums, (p_codes, s_codes), g["value"].to_numpy(dtype=float))
    np.add.at(cnt, (p_codes, s_codes), 1)
    weights = boot_weights(len(people), n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (weights @ sums) / (weights @ cnt)
    lo, hi = percentile_ci(boot)
    means = g.groupby("system")["value"].mean()
    return {s: {"n": int(cnt[:, j].sum()), "mean": means[s], "ci95": [lo[j], hi[j]]} for j, s in enumerate(systems)}


def _ranking(systems: dict) -> list[dict]:
    order = sorted(systems, key=lambda s: -systems[s]["mean"])
    out = []
    for rank, s in enumerate(order, start=1):
        below = order[rank] if rank < len(order) else None
        sep = (
            below is not None
            and systems[s]["ci95"][0] is not None
            and systems[below]["ci95"][1] is not None
            and systems[s]["ci95"][0] > systems[below]["ci95"][1]
        )
        out.append({"rank": rank, "system": s, "mean": systems[s]["mean"], "separated_from_next": bool(sep)})
    return out


def alpha_ordinal(g: pd.DataFrame) -> float | None:
    """Ordinal α over items, coders = participants; None when no item has two annotations."""
    import krippendorff

    values = g["value"].round().astype(int)
    domain = list(range(int(values.min()), int(values.max()) + 1))
    counts = pd.crosstab(g["item"], values).reindex(columns=domain, fill_value=0)
    counts = counts[counts.sum(axis=1) >= 2]
    if counts.empty or (counts.sum(axis=0) > 0).sum() < 2:
        return None
    try:
        return krippendorff.alpha(value_counts=counts.to_numpy(), value_domain=domain, level_of_measurement="ordinal")
    except (ValueError, ZeroDivisionError):
        return None


def halo(d: pd.DataFrame) -> dict:
    """Per level: correlations between aspects within annotators (answers centred per annotator)."""
    out = {}
    for level, g in d.groupby("level"):
        wide = g.pivot_table(index=["participant", "item"], columns="aspect", values="value", aggfunc="mean")
        if wide.shape[1] < 2:
            continue
        centred = wide - wide.groupby(level="participant").transform("mean")
        pairs = {}
        for a, b in combinations(sorted(wide.columns), 2):
            both = centred[[a, b]].dropna()
            ok = len(both) >= 3 and both[a].std() > 0 and both[b].std() > 0
            pairs[f"{a}~{b}"] = {"r": float(np.corrcoef(both[a], both[b])[0, 1]) if ok else None, "n": len(both)}
        rs = [p["r"] for p in pairs.values() if p["r"] is not None]
        out[level] = {
            "pairs": pairs,
            "mean_r": float(np.mean(rs)) if rs else None,
            "method": "Pearson on answers centred on each annotator's own mean, pooled",
        }
    return out


def analyze_annotations(
    df: pd.DataFrame,
    *,
    include_flagged: bool = False,
    n_boot: int = N_BOOT,
    seed: int = 0,
    source: str = "annotations.csv",
) -> dict:
    d = prepare(df, include_flagged, source)
    if d.empty:
        raise InfactError(Problem(source, "no annotations left (all gold or excluded); use --include-flagged"))
    aspects = {}
    for aspect, g in d.groupby("aspect", sort=True):
        systems = _system_means(g, None, seed, n_boot)
        aspects[aspect] = {
            "level": g["level"].iloc[0],
            "n_items": int(g["item"].nunique()),
            "n": int(len(g)),
            "systems": systems,
            "ranking": _ranking(systems),
            "krippendorff_alpha": {"level": "ordinal", "value": alpha_ordinal(g)},
        }
    return json_ready(
        {
            "kind": "annotations",
            "source": source,
            "n_participants": int(d["participant"].nunique()),
            "n_conversations": int(d["conversation_id"].nunique()),
            "n_annotations": int(len(d)),
            "bootstrap": {"n_boot": n_boot, "seed": seed, "resampled": "participants"},
            "aspects": aspects,
            "halo": halo(d),
        }
    )


# ------------------------------------------------------------------ judges (FACE run files)


def read_run(path: str | Path) -> pd.DataFrame:
    """A FACE run file as rows: conversation_id, turn (None for dialogue), aspect, level, pred."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OptionError(
            "judges",
            f"not a readable JSON run file ({type(exc).__name__}): expected "
            '[{"conv_id", "turns": [{"turn_ind", "turn_level_pred"}], '
            '"dial_level_pred"}]',
            key="{judges}",
            file=str(path),
        ) from None
    if not isinstance(data, list):
        raise OptionError("judges", "a run file is a JSON list of conversations", key="{judges}", file=str(path))
    rows = []
    for i, e in enumerate(data, start=1):
        if not isinstance(e, dict) or not isinstance(e.get("conv_id"), str):
            raise InfactError(Problem(str(path), f"entry {i}: missing conv_id", key="conv_id"))
        for t in e.get("turns") or []:
            for a, v in (t.get("turn_level_pred") or {}).items():
                rows.append((e["conv_id"], t.get("turn_ind"), a, "turn", v))
        for a, v in (e.get("dial_level_pred") or {}).items():
            rows.append((e["conv_id"], None, a, "dialogue", v))
    run = pd.DataFrame(rows, columns=["conversation_id", "turn", "aspect", "level", "pred"])
    run["pred"] = pd.to_numeric(run["pred"], errors="coerce")
    run["turn"] = pd.to_numeric(run["turn"], errors="coerce")
    run = run.dropna(subset=["pred"])
    turn = "#" + run["turn"].astype("Int64").astype(str)
    run["item"] = run["conversation_id"] + np.where(run["level"] == "turn", turn, "")
    return run


def _corr(fn, x, y):
    if len(x) < 2 or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(fn(x, y)[0])


def judge_figures(pairs: pd.DataFrame) -> dict:
    """pairs: item, system, human, pred: the figures of one aspect (or one group of it)."""
    x, y = pairs["human"].to_numpy(float), pairs["pred"].to_numpy(float)
    per = pairs.groupby("system")[["human", "pred"]].mean()
    tau = _corr(stats.kendalltau, per["human"].to_numpy(), per["pred"].to_numpy()) if len(per) >= 2 else None
    return {
        "n_items": int(len(pairs)),
        "pearson_items": _corr(stats.pearsonr, x, y),
        "spearman_items": _corr(stats.spearmanr, x, y),
        "kendall_tau_systems": tau,
        "n_systems": int(len(per)),
    }


def judge_pairs(d: pd.DataFrame, run: pd.DataFrame, group_by: str | None) -> pd.DataFrame:
    keys = ["item", "aspect", "system", "level"] + ([group_by] if group_by else [])
    human = d.groupby(keys, dropna=False)["value"].mean().rename("human").reset_index()
    return human.merge(run[["item", "aspect", "pred"]], on=["item", "aspect"], how="inner")


def compare_judges(
    df: pd.DataFrame,
    named: list[tuple[str, str]],
    *,
    group_by: str | None = None,
    include_flagged: bool = False,
    source: str = "annotations.csv",
) -> dict:
    d = prepare(df, include_flagged, source)
    if group_by and group_by not in d.columns:
        raise OptionError(
            "group_by",
            f"{{group_by}} {group_by}: no such column (columns: {', '.join(map(str, df.columns))})",
            key="{group_by}",
            file=source,
        )
    if group_by:
        d[group_by] = d[group_by].fillna("").astype(str)
    out = {}
    for name, path in named:
        pairs = judge_pairs(d, read_run(path), group_by)
        aspects = {}
        for aspect, g in pairs.groupby("aspect", sort=True):
            fig = {"level": g["level"].iloc[0], **judge_figures(g)}
            if group_by:
                fig["groups"] = {str(v): judge_figures(gg) for v, gg in g.groupby(group_by, sort=True)}
            aspects[aspect] = fig
        out[name] = {"run": str(path), "aspects": aspects}
    return json_ready(out)


def parse_run_option(value: str) -> tuple[str, str]:
    name, sep, path = value.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise OptionError("judges", f"expected NAME=RUN.json, got {value!r}")
    if not Path(path).is_file():
        raise OptionError("judges", "run file not found", key="{judges}", file=path)
    return name.strip(), path.strip()


def render_markdown(result: dict) -> str:
    lines = [
        f"# Conversation annotations: {result['source']}",
        "",
        f"{result['n_participants']} annotators, {result['n_conversations']} conversations, "
        f"{result['n_annotations']} answers (gold conversations left out).",
        "",
    ]
    for aspect, a in result["aspects"].items():
        alpha = a["krippendorff_alpha"]["value"]
        lines += [
            f"## {aspect} ({a['level']} level, α = {'—' if alpha is None else f'{alpha:.3f}'})",
            "",
            "| rank | system | mean | 95% CI | n |",
            "|---|---|---|---|---|",
        ]
        for r in a["ranking"]:
            s = a["systems"][r["system"]]
            ci = "—" if s["ci95"][0] is None else f"{s['ci95'][0]:.2f}–{s['ci95'][1]:.2f}"
            lines.append(f"| {r['rank']} | {r['system']} | {s['mean']:.2f} | {ci} | {s['n']} |")
        lines.append("")
    for level, h in result.get("halo", {}).items():
        mean_r = "—" if h["mean_r"] is None else f"{h['mean_r']:.2f}"
        lines.append(f"Halo ({level} level): mean within-annotator r between aspects = {mean_r}")
    for name, j in (result.get("judges") or {}).items():
        lines += [
            "",
            f"## Judge {name}",
            "",
            "| aspect | level | items | Pearson | Spearman | Kendall τ (systems) |",
            "|---|---|---|---|---|---|",
        ]
        f = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
        for aspect, a in j["aspects"].items():
            lines.append(
                f"| {aspect} | {a['level']} | {a['n_items']} | {f(a['pearson_items'])} | "
                f"{f(a['spearman_items'])} | {f(a['kendall_tau_systems'])} |"
            )
    return "\n".join(lines) + "\n"
