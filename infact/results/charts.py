"""Altair charts for the dashboard and the HTML report.

Pure functions: DataFrames in, `alt.Chart` out. Each aggregates in pandas first so the
chart embeds a few dozen rows, not every rating (the spec travels to the browser).
Charts show the rows they are given minus attention checks; whether flagged
participants are in is the caller's switch.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from infact.errors import InfactError, Problem
from infact.participation.steps.questionnaire import COMMENT_ITEM

DEFAULT_LABELS = ["Entirely meaningless", "Rather meaningless", "Neutral", "Rather meaningful", "Perfectly meaningful"]


def _need(df: pd.DataFrame, cols: list[str], what: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InfactError(Problem(what, f"missing column(s) {', '.join(missing)} needed for this chart; "
                                  "pass the exported table unchanged.", key=missing[0]))


def _usable(ratings: pd.DataFrame) -> pd.DataFrame:
    _need(ratings, ["participant", "system", "rating"], "ratings table")
    if "is_attention_check" in ratings.columns:
        ratings = ratings[~ratings["is_attention_check"].astype(str).str.lower().isin(["true", "1"])]
    crit = ratings["criterion"].astype(str) if "criterion" in ratings.columns else "rating"
    return ratings.assign(criterion=crit, rating=pd.to_numeric(ratings["rating"], errors="coerce")).dropna(subset=["rating"])


def _empty(message: str = "No data yet") -> alt.Chart:
    return alt.Chart(pd.DataFrame({"text": [message]})).mark_text(size=14).encode(text="text:N")


def summary_frame(result: dict) -> pd.DataFrame:
    """Per criterion x system mean and ci95 from an `analysis.analyze` result."""
    per = result["criteria"] if "criteria" in result else {result.get("criterion") or "rating": result}
    return pd.DataFrame([{"criterion": c, "system": s, "mean": v["mean"], "ci_low": v["ci95"][0],
                          "ci_high": v["ci95"][1], "n": v["n"]}
                         for c, r in per.items() for s, v in r["systems"].items()])


def mean_ratings_chart(ratings: pd.DataFrame, ci: dict | pd.DataFrame | None = None) -> alt.Chart:
    """Mean rating per system with 95% CI error bars, one panel per criterion.

    `ci` is the `analyze()` result (or its `summary_frame`) so the chart shows the same
    participant-bootstrap intervals as the report; None runs the analysis on `ratings`.
    """
    if ci is None:
        from infact.results.analysis import analyze

        if _usable(ratings).empty:
            return _empty()
        ci = analyze(ratings, include_flagged=True, mixed_model=False, n_boot=1000)
    data = ci if isinstance(ci, pd.DataFrame) else summary_frame(ci)
    if data.empty:
        return _empty()
    base = alt.Chart(data).encode(y=alt.Y("system:N", title=None))
    points = base.mark_point(filled=True, size=80).encode(
        x=alt.X("mean:Q", title="Mean rating (95% CI)", scale=alt.Scale(zero=False)),
        color=alt.Color("system:N", legend=None),
        tooltip=["criterion:N", "system:N", alt.Tooltip("mean:Q", format=".2f"),
                 alt.Tooltip("ci_low:Q", format=".2f"), alt.Tooltip("ci_high:Q", format=".2f"), "n:Q"])
    bars = base.mark_errorbar(ticks=True).encode(x="ci_low:Q", x2="ci_high:Q")
    return alt.layer(bars, points).facet(row=alt.Row("criterion:N", title=None))


def _labels(labels, k: int) -> dict[int, str]:
    if isinstance(labels, dict):
        return {v: str(labels.get(v, labels.get(str(v), ""))) for v in range(1, k + 1)}
    labels = list(labels) if labels is not None else (DEFAULT_LABELS if k <= 5 else [])
    return {v: (labels[v - 1] if v - 1 < len(labels) else str(v)) for v in range(1, k + 1)}


def distribution_chart(ratings: pd.DataFrame, labels=None) -> alt.Chart:
    """Share of each scale point per system (stacked to 100%), legend with the scale labels."""
    df = _usable(ratings)
    if df.empty:
        return _empty()
    k = max(5, int(df["rating"].max()))
    names = _labels(labels, k)
    counts = df.groupby(["criterion", "system", "rating"]).size().rename("count").reset_index()
    counts["share"] = counts["count"] / counts.groupby(["criterion", "system"])["count"].transform("sum")
    counts["rating"] = counts["rating"].astype(int)
    counts["label"] = counts["rating"].map(lambda v: f"{v} {names.get(v, '')}".strip())  # above k: bare number
    order = [f"{v} {names[v]}".strip() for v in range(1, k + 1)]
    return alt.Chart(counts).mark_bar().encode(
        y=alt.Y("system:N", title=None),
        x=alt.X("share:Q", stack="normalize", axis=alt.Axis(format="%"), title="Share of ratings"),
        color=alt.Color("label:N", sort=order, scale=alt.Scale(domain=order, scheme="redyellowgreen"), title="Rating"),
        order=alt.Order("rating:Q"),
        tooltip=["system:N", "label:N", "count:Q", alt.Tooltip("share:Q", format=".1%")],
    ).facet(row=alt.Row("criterion:N", title=None))


def position_chart(ratings: pd.DataFrame) -> alt.Chart:
    """Mean rating per display position, one line per system (order effect)."""
    df = _usable(ratings)
    if "position" not in df.columns or df["position"].isna().all() or df.empty:
        return _empty("No display positions in this table")
    df = df[df["position"].notna()].assign(position=lambda d: pd.to_numeric(d["position"]).astype(int))
    agg = df.groupby(["criterion", "system", "position"])["rating"].agg(mean="mean", n="size").reset_index()
    return alt.Chart(agg).mark_line(point=True).encode(
        x=alt.X("position:O", title="Display position"),
        y=alt.Y("mean:Q", title="Mean rating", scale=alt.Scale(zero=False)),
        color=alt.Color("system:N", title="System"),
        tooltip=["system:N", "position:O", alt.Tooltip("mean:Q", format=".2f"), "n:Q"],
    ).facet(column=alt.Column("criterion:N", title=None))


def completion_time_chart(participants: pd.DataFrame, bins: int = 20) -> alt.Chart:
    """Histogram of total completion time (minutes); binned here, not in the browser."""
    _need(participants, ["total_seconds"], "participants table")
    minutes = pd.to_numeric(participants["total_seconds"], errors="coerce").dropna() / 60
    if minutes.empty:
        return _empty("No completed participants yet")
    counts, edges = np.histogram(minutes, bins=min(bins, max(1, minutes.nunique())))
    hist = pd.DataFrame({"start": edges[:-1], "end": edges[1:], "participants": counts})
    return alt.Chart(hist).mark_bar().encode(
        x=alt.X("start:Q", bin="binned", title="Completion time (minutes)"),
        x2="end:Q",
        y=alt.Y("participants:Q", title="Participants"),
        tooltip=[alt.Tooltip("start:Q", format=".1f"), alt.Tooltip("end:Q", format=".1f"), "participants:Q"],
    )


def questionnaire_chart(questionnaire_long: pd.DataFrame) -> alt.Chart:
    """Share of each answer per questionnaire item (columns participant, item, answer)."""
    _need(questionnaire_long, ["participant", "item", "answer"], "questionnaire table")
    df = questionnaire_long.dropna(subset=["answer"])
    df = df[df["item"] != COMMENT_ITEM]  # free text: listed on the dashboard, not charted
    if df.empty:
        return _empty("No questionnaire answers yet")
    counts = df.groupby(["item", "answer"]).size().rename("count").reset_index()
    counts["share"] = counts["count"] / counts.groupby("item")["count"].transform("sum")
    # answers are scale points (floats once a NaN was in the column) or option labels
    counts["answer"] = counts["answer"].map(lambda a: str(int(a)) if isinstance(a, (int, float)) and float(a).is_integer() else str(a))
    order = sorted(counts["answer"].unique(), key=lambda a: (not a.lstrip("-").isdigit(), int(a) if a.lstrip("-").isdigit() else 0, a))
    return alt.Chart(counts).mark_bar().encode(
        y=alt.Y("item:N", title=None),
        x=alt.X("share:Q", stack="normalize", axis=alt.Axis(format="%"), title="Share of answers"),
        color=alt.Color("answer:O", sort=order, scale=alt.Scale(domain=order), title="Answer"),
        tooltip=["item:N", "answer:N", "count:Q", alt.Tooltip("share:Q", format=".1%")],
    )
