"""Progress: completions over time, completion times, why participants were excluded, coverage."""

from __future__ import annotations

import streamlit as st

from infact.participation.conditions import condition_counts
from infact.results.dashboard import running_study
from infact.results.quality import funnel
from infact.results.reports import charts
from infact.ui.dashboard.registry import section


@section("Progress")
def show_progress(view) -> None:
    cfg = view.cfg
    left, right = st.columns(2)
    with left:
        st.subheader("Completions over time")
        st.altair_chart(
            charts.completions_chart(running_study.completions_over_time(view.progress())), key="chart_completions"
        )
    with right:
        st.subheader("Completion time")
        done = view.data.participants()
        st.altair_chart(
            charts.completion_time_chart(
                done[done["status"] == "completed"], expected_minutes=cfg.study.expected_minutes
            ),
            key="chart_time",
        )
    if view.study.conditions:
        _conditions(view)
    reasons = funnel.exclusion_reasons(view.overview())
    if len(reasons):
        st.subheader("Why completed participants were excluded")
        st.caption("One participant can have several reasons, so the rows can add up to more than the Excluded card.")
        st.dataframe(reasons, hide_index=True, key="reasons_table")
    st.subheader("Coverage per situation")
    cov = view.coverage()
    k = cfg.assignment.ratings_per_situation
    done_n = sum(1 for c in cov if c["ratings"] >= k)
    st.progress(done_n / max(1, len(cov)), text=f"{done_n} of {len(cov)} situations have ≥ {k} ratings")
    st.dataframe(cov, hide_index=True, height=260, key="coverage_table")


def _conditions(view) -> None:
    """A between-subjects study: each condition's completions and places held (infact/participation/conditions.py)."""
    cfg = view.cfg
    counts = condition_counts(
        view.records(), view.study.id, view.study.conditions, cfg.assignment.lease_minutes, view.now
    )
    st.subheader("Progress per condition")
    st.caption(
        "New participants go to the condition with the fewest completions plus places held; a place whose lease "
        f"ended ({cfg.assignment.lease_minutes:g} minutes, or returned on the platform) is given again."
    )
    rows = [
        {
            "condition": name,
            "completed": n["completed"],
            "in progress (place held)": n["active"],
            "abandoned (place given again)": n["abandoned"],
            "screened out": n["screened_out"],
            "withdrawn": n["withdrawn"],
        }
        for name, n in counts.items()
    ]
    st.dataframe(rows, hide_index=True, key="conditions_table")
