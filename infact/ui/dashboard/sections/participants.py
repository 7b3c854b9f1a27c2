"""Participants: every participant's stage and flags, and the form that excludes or re-includes them."""

from __future__ import annotations

import streamlit as st

from infact.results.dashboard import running_study
from infact.results.quality import exclusion as quality
from infact.results.quality import funnel
from infact.ui.dashboard.registry import section


@section("Participants")
def show_participants(view) -> None:
    overview = view.overview()
    stages = st.multiselect("Show stages", list(funnel.STAGES), default=list(funnel.STAGES), key="stage_filter")
    st.caption(
        "Visits that left before consenting are counted in *Visited* (and `visits.csv`) but not listed: "
        "nothing about them is stored except when they came."
    )
    st.dataframe(
        running_study.participants_view(overview, stages),
        hide_index=True,
        key="participants_table",
        column_config={
            "last_activity": st.column_config.DatetimeColumn("Last activity", format="YYYY-MM-DD HH:mm:ss"),
            "active_now": st.column_config.CheckboxColumn("Active now"),
            "platform_warnings": st.column_config.TextColumn(
                "Platform ID warnings",
                help="The platform ID does not look like one the "
                "platform issues (e.g. a Prolific ID that is not 24 hex characters): "
                "accepted, but check it before approving or paying.",
            ),
        },
    )
    least_reliable(view)
    exclude_picker(view, overview)


def least_reliable(view) -> None:
    """The few annotators the crowd label models find least reliable (ratings studies; docs/llm.md). Fitted on
    request, once per data version: the models take seconds per thousand ratings, too long for every refresh."""
    if "ratings" not in view.kinds:
        return
    from infact.results.crowd import label_models
    from infact.results.crowd import report as crowd

    if not label_models.available():
        st.caption(crowd.NOT_INSTALLED)
        return
    if not st.toggle(
        "Show the least reliable annotators (Dawid–Skene, MACE)",
        key="reliability_on",
        help="Fits the crowd label models on the ratings (crowd-kit): seconds per thousand ratings, refitted when "
        f"new ratings arrive; above {crowd.DASHBOARD_MAX_RATINGS:,} ratings left to `analyze --label-models`.",
    ):
        return
    flagged = view.include_flagged
    found = view.derived(
        "least_reliable",
        lambda r: crowd.least_reliable(r.tables.ratings, flagged, max_ratings=crowd.DASHBOARD_MAX_RATINGS),
        flagged,
    )
    if found["note"]:
        st.caption(found["note"])
        return
    st.markdown(f"**Least reliable annotators** (of {found['annotators']}, crowd label models over all ratings)")
    st.caption(
        "Dawid–Skene's expected accuracy and MACE's probability that the annotator knows the answer "
        "(crowd-kit; docs/llm.md). Low values: check this participant's answers before relying on them."
    )
    st.dataframe(found["rows"], hide_index=True, key="least_reliable_table")


def exclude_picker(view, overview) -> None:
    study = view.study
    st.subheader("Exclude or re-include participants")
    labels = running_study.exclusion_choices(overview)
    with st.form("manual_decision"):
        who = st.multiselect(
            "Participants (platform ID · stage · decision · flags)",
            list(labels),
            format_func=labels.get,
            key="manual_participants",
        )
        action = st.radio("Decision", ["exclude", "include"], horizontal=True, key="manual_action")
        note = st.text_input("Note (why)", key="manual_note")
        if st.form_submit_button("Save decision", key="manual_save"):
            try:
                events = [
                    quality.manual_event(p, action, note, study=study.id, dataset_version=study.dataset_version)
                    for p in who
                ]
            except ValueError as exc:
                st.error(str(exc))
            else:
                for event in events:
                    view.storage.append(event)
                st.success(
                    f"Saved: {action} {len(events)} participant(s). Nothing is deleted; each decision is an "
                    "event in the log."
                )
