"""Ranking (docs/ranking.md): the study's comparisons ranked, and the live arena's votes ranked apart."""

from __future__ import annotations

import streamlit as st

from infact import ui
from infact.ui.dashboard.registry import draw_parts, part, section
from infact.ui.rankings import show_conditions, show_stopping


@section("Ranking", tables=True)
def show_rankings(view) -> None:
    draw_parts("Ranking", view)


@part("Ranking", "votes")
def comparisons(view) -> None:
    if "arena" in view.kinds:
        st.subheader("The study's comparisons")
    result = view.ranking()
    show_stopping(view.cfg.monitoring, result)
    ui.show_ranking(result, view.cfg.protocol.confidence)
    show_conditions(result)  # a between-subjects study: each condition ranked, and condition × system


@part("Ranking", "best_worst")
def best_worst(view) -> None:
    if "votes" not in view.kinds:  # the protocol's one ranking, drawn once
        comparisons(view)


@part("Ranking", "arena")
def arena(view) -> None:
    st.subheader("Arena votes after the live chats")
    result = view.arena()
    if result is not None and "problem" in result:
        st.info(f"Not available yet: {result['problem']}")
    else:
        ui.show_ranking(result, 0.95, key="arena_")
        show_conditions(result, key="arena_")
