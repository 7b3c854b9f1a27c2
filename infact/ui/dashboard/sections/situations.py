"""Situations: each situation's texts beside its ratings or votes, the most disputed first."""

from __future__ import annotations

import streamlit as st

from infact.results.dashboard import running_study
from infact.results.dashboard import situations as cs
from infact.ui.dashboard.registry import draw_parts, part, section


@section("Situations", tables=True)
def show_situations(view) -> None:
    draw_parts("Situations", view)


@part("Situations", "ratings")
def rated(view) -> None:
    _show(
        "Each situation's last user turn and each system's response beside its ratings; the most "
        "disputed first (sd: standard deviation between raters, range: highest minus lowest rating).",
        running_study.situation_overview(view.shown_ratings(), view.study, view.criterion),
        "situations_table",
    )


@part("Situations", "votes")
def voted(view) -> None:
    shown = view.study_results.table("pairwise").kind.caption_for(view.cfg)  # what the study's votes are on
    _show(
        f"{shown}; the most disputed first "
        "(majority share: the share of votes for the most chosen answer; 0.5 is an even split).",
        cs.pairwise_overview(_kept(view, "pairwise.csv"), view.study, view.criterion),
        "situations_table_votes",
    )


@part("Situations", "best_worst")
def chosen(view) -> None:
    _show(
        "Each situation's last user turn and each response beside how often it was shown, chosen best "
        "and chosen worst; the most disputed (best − worst share nearest 0) first.",
        cs.best_worst_overview(_kept(view, "best_worst.csv"), view.study, view.criterion),
        "situations_table_best_worst",
    )


def _show(caption: str, table, key: str) -> None:
    st.caption(caption)
    st.dataframe(table, hide_index=True, key=key)


def _kept(view, name: str):
    """The whole table (every criterion: the overview picks its own), excluded participants left out unless asked."""
    return view.table(name, criterion=False) if view.has_table(name) else None
