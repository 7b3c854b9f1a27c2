"""Results: a part per kind of answer the study collects (ratings, votes, best–worst, arena votes,
conversation annotations), then the questionnaire."""

from __future__ import annotations

import streamlit as st

from infact.errors import InfactError
from infact.results.reports import charts
from infact.ui import comparison_results as comparison
from infact.ui.dashboard.registry import draw_parts, part, section


@section("Results", tables=True)
def show_results(view) -> None:
    draw_parts("Results", view)
    show_questionnaire(view)


@part("Results", "ratings")
def show_rating_results(view) -> None:
    ratings, shown = view.ratings(), view.shown_ratings()
    if shown.empty:
        st.subheader("Ratings")
        st.info(
            "No ratings yet."
            if ratings.empty
            else "All rated participants are flagged: switch on 'Include flagged participants'."
        )
        return
    st.subheader("Mean rating per system (95% CI, participant bootstrap)")
    result = view.statistics()
    if isinstance(result, InfactError):
        st.info("Means and intervals are not available yet: " + "; ".join(p.message for p in result.problems))
    else:
        st.altair_chart(charts.mean_ratings_chart(shown, result), key="chart_means")
    st.subheader("Distribution of the scale points")
    st.altair_chart(charts.distribution_chart(shown, view.cfg.scale.labels), key="chart_dist")
    st.subheader("Position (order) effect")
    st.altair_chart(charts.position_chart(shown), key="chart_position")


@part("Results", "votes")
def show_votes(view) -> None:
    comparison.show_votes(view.table("pairwise.csv"), view.titled("Votes per system"), "votes")


@part("Results", "best_worst")
def show_best_worst(view) -> None:
    comparison.show_best_worst(view.table("best_worst.csv"))


@part("Results", "arena")
def show_arena_votes(view) -> None:
    comparison.show_votes(view.arena_votes(), "Arena votes after the live chats", "arena")


@part("Results", "annotations")
def show_annotations(view) -> None:
    """Per aspect: the systems ranked by mean with participant-cluster bootstrap intervals, α, the halo check."""
    annotations, result = view.annotations()
    if result is None:
        st.info("No annotations yet.")
        return
    st.caption(
        f"{result['n_participants']} annotators · {result['n_conversations']} conversations · "
        f"{result['n_annotations']} answers (gold conversations left out)"
    )
    for aspect, a in result["aspects"].items():
        alpha = a["krippendorff_alpha"]["value"]
        st.markdown(
            f"**{aspect}** ({a['level']} level) · Krippendorff's α (ordinal) {'—' if alpha is None else f'{alpha:.2f}'}"
        )
        st.dataframe([_aspect_row(a, r) for r in a["ranking"]], hide_index=True, key=f"aspect_{aspect}")
    for level, h in result["halo"].items():
        if h["mean_r"] is not None:
            st.caption(
                f"Halo check ({level} level): mean correlation between aspects within annotators "
                f"r = {h['mean_r']:.2f} (high values: annotators rate a conversation alike on every aspect)."
            )


def _aspect_row(a: dict, r: dict) -> dict:
    ci = a["systems"][r["system"]]["ci95"]
    return {
        "rank": r["rank"],
        "system": r["system"],
        "mean": round(r["mean"], 2),
        "95% CI": "—" if ci[0] is None else "{:.2f}–{:.2f}".format(*ci),
        "n": a["systems"][r["system"]]["n"],
    }


def show_questionnaire(view) -> None:
    q = view.questionnaire()
    if not len(q):
        return
    st.subheader("Questionnaire")
    cfg = view.cfg
    items = {i.id: i.text for i in cfg.questionnaire.items if i.expected is None}  # not the check item
    st.altair_chart(
        charts.questionnaire_chart(q[q["item"].isin(list(items))], cfg.questionnaire.scale, items),
        key="chart_questionnaire",
    )
