"""Dashboard parts for votes and best–worst choices (Results, Statistics), beside the rating charts.

The numbers come from infact/results/dashboard/comparisons.py and results/ranking; this only
lays them out. Each part says plainly when there is nothing yet, so a section of a study whose
protocols collect several kinds of answer shows every kind.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from infact.results.dashboard import comparisons as cr
from infact.results.reports.preferences import render_markdown
from infact.ui.rankings import fit_problem


def show_votes(votes: pd.DataFrame, title: str, key: str) -> None:
    """Won / lost / tied per system, its win-share chart and the position effect."""
    st.subheader(title)
    counts = cr.vote_counts(votes)
    if counts.empty:
        st.info("No votes yet.")
        return
    n_people = votes["participant"].nunique() if "participant" in votes.columns else 0
    st.caption(f"{len(votes)} votes by {n_people} participants; ties count ½ for each side.")
    st.altair_chart(cr.win_share_chart(counts), key=f"chart_{key}")
    st.dataframe(counts.style.format({"win_share": "{:.0%}"}), hide_index=True, key=f"{key}_table")
    left = cr.left_share(votes)
    if left:
        st.caption(
            f"Position effect: the side shown left (on a phone, on top) won {left['left_share']:.0%} of "
            f"{left['n']} decisive votes (50% is no effect)."
        )


def show_best_worst(choices: pd.DataFrame, key: str = "best_worst") -> None:
    st.subheader("Best and worst choices per system")
    counts = cr.best_worst_counts(choices)
    if counts.empty:
        st.info("No best–worst choices yet.")
        return
    st.caption(
        f"{len(choices)} choices by {choices['participant'].nunique()} participants; score = (best − worst) "
        "per showing, from −1 (always worst) to 1 (always best)."
    )
    st.altair_chart(cr.best_worst_chart(counts), key=f"chart_{key}")
    st.dataframe(counts.style.format({"score": "{:.2f}"}), hide_index=True, key=f"{key}_table")


def show_preferences(result: dict | None, title: str, what: str = "votes") -> None:
    """The preference analysis (ranking with intervals, win rates, sign tests) as the CLI prints it."""
    st.subheader(title)
    if result is None:
        st.info(f"No {what} yet.")
    elif "error" in result or "problem" in result:
        st.info(f"Not available yet: {result.get('error') or result.get('problem')}")
    else:
        if (problem := fit_problem(result)) is not None:  # the report as `analyze` prints it, said to be degenerate
            st.warning(
                problem + " `analyze`'s report of that fit follows: read its strengths and intervals as unsettled.",
                icon="⚠️",
            )
        text = render_markdown(result).removeprefix("# Preference analysis\n")
        st.markdown(text.replace("\n## ", "\n#### "))  # its criteria under this part's subheader


def show_annotation_statistics(view) -> None:
    """Per aspect and system: means with intervals, agreement (α), halo, rankings (as `analyze annotations.csv`)."""
    st.subheader("Conversation annotations")
    text = view.annotation_report()
    st.markdown(text.replace("\n## ", "\n#### ") if text else "No annotations yet.")
