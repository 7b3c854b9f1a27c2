"""The dashboard's ranking section for pairwise and best–worst studies, as plain data and charts.

`ranking_view` runs the same analysis as `python -m infact analyze pairwise.csv` (the same
bootstrap replicates and seed, so the same intervals) on the export tables; `strength_chart` draws
each system's strength with its interval; `win_rate_matrix` is the win-rate table as a frame.
infact/ui/rankings.py (`show_ranking`) puts them on the page.
"""

from __future__ import annotations

from pathlib import Path

import altair as alt
import pandas as pd

from infact.errors import InfactError


def ranking_view(
    table,
    criterion: str,
    include_flagged: bool,
    confidence: float,
    min_vote_seconds: float | None = None,
    design: dict | None = None,
    maximum: int | None = None,
) -> dict | None:
    """The criterion's ranking of a ranked table (`StudyResults.ranked()`: its kind travels with it), or None
    while there are no votes; {"error": …} on bad data. `min_vote_seconds`: the study's minimum reading time
    for the vote-time check (None: analyze's 3 s); `design`: the ledger's study systems and scheduling
    (ranking.ledger.design_of_tables); `maximum`: [monitoring]'s declared maximum of participants."""
    from infact.results.analyze import Options, analyze_table

    if table is None or table.frame.empty:
        return None
    df = table.frame[table.frame["criterion"].astype(str) == criterion]
    # the same call, bootstrap replicates and seed as `analyze` (the same intervals), and the study's design
    # the dashboard's tables hold bots only when it counts them (a store without people: funnel.bots_counted)
    options = Options(
        include_flagged=include_flagged,
        include_bots=True,
        confidence=confidence,
        min_vote_seconds=min_vote_seconds,
        extra={"design": design, "max_participants": maximum},
    )
    try:
        return analyze_table(df, options, table.file, table.kind.name)
    except InfactError as exc:
        return {"error": str(exc)}


def win_rate_matrix(result: dict) -> pd.DataFrame | None:
    """Rows: system; columns: opponent; cells: share of votes won (ties ½), best system first."""
    if "win_rates" not in result:
        return None
    order = [r["system"] for r in result["ranking"]]
    wr = result["win_rates"]
    return pd.DataFrame([[wr[a].get(b) if a != b else None for b in order] for a in order], index=order, columns=order)


def strength_chart(result: dict) -> alt.Chart:
    rows = pd.DataFrame(
        [
            {
                "system": r["system"],
                "strength": r["strength"],
                "lo": r["ci95"][0],
                "hi": r["ci95"][1],
                "rank range": f"{r['rank_range'][0]}–{r['rank_range'][1]}",
                "status": "provisional" if r.get("provisional") else "established",
            }
            for r in result["ranking"]
        ]
    )
    order = list(rows["system"])
    y = alt.Y("system:N", sort=order, title=None)
    color = alt.Color("status:N", scale=alt.Scale(domain=["established", "provisional"], range=["#1f77b4", "#aaaaaa"]))
    bars = (
        alt.Chart(rows)
        .mark_rule(strokeWidth=3)
        .encode(x=alt.X("lo:Q", title="strength (log, centred) with interval"), x2="hi:Q", y=y, color=color)
    )
    points = (
        alt.Chart(rows)
        .mark_point(filled=True, size=80)
        .encode(
            x="strength:Q",
            y=y,
            color=color,
            tooltip=["system", alt.Tooltip("strength:Q", format=".2f"), "rank range", "status"],
        )
    )
    return (bars + points).properties(height=40 * len(rows) + 20)


def judge_files(study) -> list[tuple[str, Path]]:
    """(name, path) of every judge file in the study folder's `judges/` (name = file name without .csv)."""
    folder = study.folder / "judges"
    return [(p.stem, p) for p in sorted(folder.glob("*.csv"))] if folder.is_dir() else []


def judges_view(tables, study, criterion: str, include_flagged: bool) -> dict:
    """Each judge file of the study beside the human results of `criterion` (the same call as `analyze --judge`)."""
    from infact.results import kinds
    from infact.results.analyze import align_judges, compare_judges, judge_humans
    from infact.results.judges.alignment_report import judge_coverage, situation_features
    from infact.results.ranking.features import response_features

    found = kinds.compared_tables(tables, judged=True)  # the first kind a judge is compared with, with rows
    if not found:
        return {}
    kind, humans = found[0][0].name, found[0][1]
    try:
        features = response_features(study.situations)
        humans = judge_humans(humans, kind, criterion, include_flagged)
        out = compare_judges(humans, kind, judge_files(study), criterion, features=features)
        alignment = align_judges(
            humans,
            kind,
            judge_files(study),
            criterion,
            features=features,
            n_boot=200,
            situation_features=situation_features(study.situations),
            scale_points=len(study.config.scale.labels),
        )
        for name, by_criterion in alignment.items():
            if name in out:
                out[name]["alignment"] = by_criterion.get(criterion) or next(iter(by_criterion.values()), None)
        for name, path in judge_files(study):  # how many of its answers the figures rest on (docs/llm.md)
            if name in out:
                out[name]["coverage"] = judge_coverage(path)
        return out
    except InfactError as exc:
        return {"error": str(exc)}
