"""Altair charts for the dashboard and the HTML report.

Pure functions: DataFrames in, `alt.Chart` out. Each aggregates in pandas first so the
chart embeds a few dozen rows, not every rating (the spec travels to the browser).
Charts show the rows they are given minus attention checks; whether flagged
participants are in is the caller's switch.

Made to be put in a paper: they fill the width they are given (one panel per
criterion only when there are several), axis titles are words rather than column
names, and rating scales are drawn in scale order with a diverging palette (low
red, middle yellow, high green), the legend in the same order.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from infact.participation.steps.questionnaire import COMMENT_ITEM, QUESTIONNAIRE
from infact.participation.steps.situation import RATINGS
from infact.results.tables.schemas import PARTICIPANTS
from infact.values import bool_column

DIVERGING = "redyellowgreen"  # Likert scales: low red, neutral yellow, high green


def _need(df: pd.DataFrame, schema, cols: list[str], what: str) -> None:
    """The one missing-column message (infact/table_schema.py), naming the table the chart was given."""
    schema.check_columns(df.columns, what, needed=cols)


def _usable(ratings: pd.DataFrame) -> pd.DataFrame:
    _need(ratings, RATINGS, ["participant", "system", "rating"], "ratings table")
    if "is_attention_check" in ratings.columns:
        ratings = ratings[~bool_column(ratings["is_attention_check"])]
    crit = ratings["criterion"].astype(str) if "criterion" in ratings.columns else "rating"
    return ratings.assign(criterion=crit, rating=pd.to_numeric(ratings["rating"], errors="coerce")).dropna(
        subset=["rating"]
    )


def _empty(message: str = "No data yet") -> alt.Chart:
    return alt.Chart(pd.DataFrame({"text": [message]})).mark_text(size=14).encode(text="text:N")


def _panels(chart, data: pd.DataFrame, direction: str = "row"):
    """One panel per criterion when there are several; otherwise the chart, full width."""
    if data["criterion"].nunique() > 1:
        header = alt.Row("criterion:N", title=None) if direction == "row" else alt.Column("criterion:N", title=None)
        return chart.facet(**{direction: header})
    return chart.properties(width="container")


def summary_frame(result: dict) -> pd.DataFrame:
    """Per criterion x system mean and ci95 from an `analysis.analyze` result."""
    per = result["criteria"] if "criteria" in result else {result.get("criterion") or "rating": result}
    return pd.DataFrame(
        [
            {
                "criterion": c,
                "system": s,
                "mean": v["mean"],
                "ci_low": v["ci95"][0],
                "ci_high": v["ci95"][1],
                "n": v["n"],
            }
            for c, r in per.items()
            for s, v in r["systems"].items()
        ]
    )


def mean_ratings_chart(ratings: pd.DataFrame, ci: dict | pd.DataFrame | None = None) -> alt.Chart:
    """Mean rating per system with 95% CI error bars, one panel per criterion.

    `ci` is the `analyze()` result (or its `summary_frame`) so the chart shows the same
    participant-bootstrap intervals as the report; None runs the analysis on `ratings`.
    """
    if ci is None:
        from infact.results.ratings.analysis import analyze
        from infact.stats import N_BOOT

        if _usable(ratings).empty:
            return _empty()
        ci = analyze(ratings, include_flagged=True, mixed_model=False, n_boot=N_BOOT)
    data = ci if isinstance(ci, pd.DataFrame) else summary_frame(ci)
    if data.empty:
        return _empty()
    base = alt.Chart(data).encode(y=alt.Y("system:N", title="System", sort=None))
    points = base.mark_point(filled=True, size=90).encode(
        x=alt.X("mean:Q", title="Mean rating with 95% confidence interval", scale=alt.Scale(zero=False)),
        color=alt.Color("system:N", legend=None),
        tooltip=[
            alt.Tooltip("criterion:N", title="Criterion"),
            alt.Tooltip("system:N", title="System"),
            alt.Tooltip("mean:Q", format=".2f", title="Mean"),
            alt.Tooltip("ci_low:Q", format=".2f", title="95% CI from"),
            alt.Tooltip("ci_high:Q", format=".2f", title="95% CI to"),
            alt.Tooltip("n:Q", title="Ratings"),
        ],
    )
    # the same title on both layers: a layered chart shares one axis, and a None would blank it
    bars = base.mark_errorbar(ticks=True, thickness=2).encode(
        x=alt.X("ci_low:Q", title="Mean rating with 95% confidence interval", scale=alt.Scale(zero=False)),
        x2="ci_high:Q",
    )
    return _panels(alt.layer(bars, points), data)


def _labels(labels, k: int, ratings: pd.DataFrame) -> dict[int, str]:
    """Each point's label as participants saw it: the study's labels, else the table's `rating_label`s, else
    the bare numbers (never labels of some other scale)."""
    if labels is None and "rating_label" in ratings.columns:
        pairs = ratings.dropna(subset=["rating_label"]).drop_duplicates("rating")
        labels = {int(r): str(t) for r, t in zip(pairs["rating"], pairs["rating_label"])}
    if isinstance(labels, dict):
        return {v: str(labels.get(v, labels.get(str(v), ""))) for v in range(1, k + 1)}
    labels = list(labels) if labels is not None else []
    return {v: (labels[v - 1] if v - 1 < len(labels) else "") for v in range(1, k + 1)}


def distribution_chart(ratings: pd.DataFrame, labels=None) -> alt.Chart:
    """Share of each scale point per system (stacked to 100%), legend with the scale labels."""
    df = _usable(ratings)
    if df.empty:
        return _empty()
    k = max(5, int(df["rating"].max()))
    names = _labels(labels, k, df)
    counts = df.groupby(["criterion", "system", "rating"]).size().rename("count").reset_index()
    counts["share"] = counts["count"] / counts.groupby(["criterion", "system"])["count"].transform("sum")
    counts["rating"] = counts["rating"].astype(int)
    counts["label"] = counts["rating"].map(lambda v: f"{v} {names.get(v, '')}".strip())  # above k: bare number
    order = [f"{v} {names[v]}".strip() for v in range(1, k + 1)]
    chart = (
        alt.Chart(counts)
        .mark_bar()
        .encode(
            y=alt.Y("system:N", title="System"),
            x=alt.X("share:Q", stack="normalize", axis=alt.Axis(format="%"), title="Share of ratings"),
            color=alt.Color(
                "label:N",
                sort=order,
                scale=alt.Scale(domain=order, scheme=DIVERGING),
                legend=alt.Legend(
                    title="Rating", orient="bottom", direction="horizontal", columns=min(k, 5), labelLimit=0
                ),
            ),
            order=alt.Order("rating:Q"),
            tooltip=[
                alt.Tooltip("system:N", title="System"),
                alt.Tooltip("label:N", title="Rating"),
                alt.Tooltip("count:Q", title="Ratings"),
                alt.Tooltip("share:Q", format=".1%", title="Share"),
            ],
        )
    )
    return _panels(chart, counts)


def position_chart(ratings: pd.DataFrame) -> alt.Chart:
    """Mean rating per display position, one line per system (order effect)."""
    df = _usable(ratings)
    if "position" not in df.columns or df["position"].isna().all() or df.empty:
        return _empty("No display positions in this table")
    df = df[df["position"].notna()].assign(position=lambda d: pd.to_numeric(d["position"]).astype(int))
    agg = df.groupby(["criterion", "system", "position"])["rating"].agg(mean="mean", n="size").reset_index()
    # Grouped bars: for each position, each system's mean side by side. A system rated
    # higher wherever it is shown is a quality difference; all systems rising or falling
    # together with the position is an order effect.
    chart = (
        alt.Chart(agg)
        .mark_bar()
        .encode(
            x=alt.X("position:O", title="Position on the page (1 = shown first)", axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset("system:N"),
            y=alt.Y("mean:Q", title="Mean rating"),  # bars start at zero: their length is the mean
            color=alt.Color("system:N", title="System", legend=alt.Legend(orient="bottom")),
            tooltip=[
                alt.Tooltip("system:N", title="System"),
                alt.Tooltip("position:O", title="Position"),
                alt.Tooltip("mean:Q", format=".2f", title="Mean rating"),
                alt.Tooltip("n:Q", title="Ratings"),
            ],
        )
    )
    return _panels(chart, agg, "column")


def completion_time_chart(
    participants: pd.DataFrame, bins: int = 20, expected_minutes: float | None = None
) -> alt.Chart:
    """Histogram of total completion time (minutes), binned here, not in the browser;
    with `expected_minutes` a dashed line marks the study's expected time."""
    _need(participants, PARTICIPANTS, ["total_seconds"], "participants table")
    minutes = pd.to_numeric(participants["total_seconds"], errors="coerce").dropna() / 60
    if minutes.empty:
        return _empty("No completed participants yet")
    counts, edges = np.histogram(minutes, bins=min(bins, max(1, minutes.nunique())))
    hist = pd.DataFrame({"start": edges[:-1], "end": edges[1:], "participants": counts})
    bars = (
        alt.Chart(hist)
        .mark_bar()
        .encode(
            x=alt.X("start:Q", bin="binned", title="Completion time (minutes)"),
            x2="end:Q",
            y=alt.Y("participants:Q", title="Participants", axis=alt.Axis(tickMinStep=1, format="d")),
            tooltip=[
                alt.Tooltip("start:Q", format=".1f", title="From (min)"),
                alt.Tooltip("end:Q", format=".1f", title="To (min)"),
                alt.Tooltip("participants:Q", title="Participants"),
            ],
        )
        .properties(width="container")
    )
    if expected_minutes is None:
        return bars
    rule = (
        alt.Chart(pd.DataFrame({"minutes": [float(expected_minutes)], "what": ["the study's expected time"]}))
        .mark_rule(strokeDash=[6, 4], size=2, color="black")
        .encode(x="minutes:Q", tooltip=[alt.Tooltip("what:N", title=" "), alt.Tooltip("minutes:Q", title="Minutes")])
    )
    return alt.layer(bars, rule).properties(width="container")


def completions_chart(completions: pd.DataFrame) -> alt.Chart:
    """Completed participants over time (running_study.completions_over_time)."""
    if completions.empty:
        return _empty("No completions yet")
    data = completions[completions["outcome"] == "completed"].assign(
        ended_at=lambda d: pd.to_datetime(d["ended_at"], utc=True)
    )
    return (
        alt.Chart(data)
        .mark_line(interpolate="step-after", point=len(data) <= 60)
        .encode(
            x=alt.X("ended_at:T", title="Time (UTC)", axis=alt.Axis(format="%H:%M")),
            y=alt.Y("completed:Q", title="Completed participants", axis=alt.Axis(tickMinStep=1, format="d")),
            tooltip=[
                alt.Tooltip("ended_at:T", title="Completed at", format="%Y-%m-%d %H:%M"),
                alt.Tooltip("completed:Q", title="Completed so far"),
            ],
        )
        .properties(width="container")
    )


def _answer_order(answers: pd.Series) -> tuple[pd.Series, list[str]]:
    """Answers as text and their order: scale points (floats once a NaN was in the column) numerically,
    then option labels."""
    text = answers.map(lambda a: str(int(a)) if isinstance(a, (int, float)) and float(a).is_integer() else str(a))
    order = sorted(
        text.unique(), key=lambda a: (not a.lstrip("-").isdigit(), int(a) if a.lstrip("-").isdigit() else 0, a)
    )
    return text, order


def questionnaire_chart(
    questionnaire_long: pd.DataFrame, scale: list[str] | None = None, items: dict[str, str] | None = None
) -> alt.Chart:
    """Share of each answer per questionnaire item (columns participant, item, answer).

    With `scale` (the questionnaire's answer labels, lowest first) answers are drawn in
    scale order with the diverging palette; otherwise numbers sort numerically. `items`
    maps item ids to the statements participants read, shown instead of the ids.
    """
    _need(questionnaire_long, QUESTIONNAIRE, ["participant", "item", "answer"], "questionnaire table")
    df = questionnaire_long.dropna(subset=["answer"])
    df = df[df["item"] != COMMENT_ITEM]  # free text: listed on the dashboard, not charted
    if scale is not None:
        df = df[df["answer"].isin(scale)]  # free-text items (e.g. a comment) are not on the scale
    if df.empty:
        return _empty("No questionnaire answers yet")
    counts = df.groupby(["item", "answer"]).size().rename("count").reset_index()
    counts["share"] = counts["count"] / counts.groupby("item")["count"].transform("sum")
    if items:
        counts["item"] = counts["item"].map(lambda i: items.get(i, i))
    if scale is not None:
        order = list(scale)
        counts["rank"] = counts["answer"].map(order.index)
        color = alt.Color(
            "answer:N",
            sort=order,
            scale=alt.Scale(domain=order, scheme=DIVERGING),
            legend=alt.Legend(title="Answer", orient="bottom", direction="horizontal", columns=len(order)),
        )
    else:
        counts["answer"], order = _answer_order(counts["answer"])
        counts["rank"] = counts["answer"].map(order.index)
        color = alt.Color("answer:O", sort=order, scale=alt.Scale(domain=order), title="Answer")
    return (
        alt.Chart(counts)
        .mark_bar()
        .encode(
            y=alt.Y(
                "item:N",
                title=None if items else "Questionnaire item",
                sort=list(items.values()) if items else None,
                axis=alt.Axis(labelLimit=420),
            ),
            x=alt.X("share:Q", stack="normalize", axis=alt.Axis(format="%"), title="Share of answers"),
            color=color,
            order=alt.Order("rank:Q"),
            tooltip=[
                alt.Tooltip("item:N", title="Item"),
                alt.Tooltip("answer:N", title="Answer"),
                alt.Tooltip("count:Q", title="Participants"),
                alt.Tooltip("share:Q", format=".1%", title="Share"),
            ],
        )
        .properties(width="container")
    )
