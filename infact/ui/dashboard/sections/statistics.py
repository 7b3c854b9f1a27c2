"""Statistics: the analysis a reviewer expects, per kind of answer: ratings (means, tests, reliability),
votes and best–worst choices (ranking with intervals, win rates, sign tests), annotations, arena votes."""

from __future__ import annotations

import streamlit as st

from infact import ui
from infact.errors import InfactError
from infact.results.analyze import Analysis
from infact.results.dashboard import running_study
from infact.ui.comparison_results import show_annotation_statistics, show_preferences
from infact.ui.dashboard.registry import draw_parts, part, section


@section("Statistics", tables=True)
def show_statistics(view) -> None:
    draw_parts("Statistics", view)


@part("Statistics", "ratings")
def rating_statistics(view) -> None:
    shown = view.shown_ratings()
    if shown.empty or shown["participant"].nunique() < 2:
        st.subheader("Ratings")
        st.info("Statistics need ratings from at least two participants.")
        return
    result = view.statistics()
    if isinstance(result, InfactError):
        ui.show_problems(result, "The ratings could not be analysed:")
        return
    from infact.ui.rankings import settled_text, show_stopping

    show_stopping(view.cfg.monitoring, result)
    for name, one in (result.get("criteria") or {None: result}).items():  # the watched differences, anytime-valid
        if one.get("monitoring"):
            st.markdown((f"{name}: " if name else "Rating differences: ") + settled_text(one["monitoring"], "95%"))
    st.markdown(Analysis.of("ratings", result).render("md"))
    flagged = view.ratings()
    if "excluded" in flagged.columns and len(flagged):
        ids = set(flagged.loc[flagged["excluded"].astype(bool), "participant"])
        why = running_study.flagged_vs_excluded(view.overview(), ids)
        if why:
            st.caption(why)
    # Aggregate statistics, no personal data: a plain button (a deferred one inside this 5-second fragment
    # would get a new id under the click), made once per result.
    st.download_button("report.html (with charts)", view.report_html(result), file_name="report.html", key="dl-report")


@part("Statistics", "votes")
def vote_statistics(view) -> None:
    show_preferences(view.ranking(), view.titled("Preferences"), "votes")


@part("Statistics", "best_worst")
def best_worst_statistics(view) -> None:
    if "votes" not in view.kinds:  # one ranking per study's protocol: drawn once, under votes
        show_preferences(view.ranking(), view.titled("Preferences"), "best–worst choices")


@part("Statistics", "annotations")
def annotation_statistics(view) -> None:
    show_annotation_statistics(view)


@part("Statistics", "arena")
def arena_statistics(view) -> None:
    show_preferences(view.arena(), "Arena votes after the live chats")
