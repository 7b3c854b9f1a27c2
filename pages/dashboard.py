"""Researcher dashboard: progress, coverage, live charts, quality flags, exports.

Registered only after sign-in (streamlit_app.py) and checked again here. The live
part is a fragment that reruns every few seconds and reads only new records.
"""

from datetime import datetime, timezone

import altair as alt
import pandas as pd
import streamlit as st
from streamlit_extras.metric_cards import style_metric_cards

from infact.results import analysis
from infact.results import charts
from infact.results import quality
from infact import ui
from infact.participation.assignment import coverage
from infact.errors import InfactError
from infact.results.export import FILES, collect, export_bytes
from infact.stores.live import LiveRecords
from infact.results.report import render_html, render_markdown
from infact.storage import TinyDBStorage
from infact.stores.config import on_community_cloud

st.set_page_config(page_title="INFACT dashboard", layout="wide")

if not ui.is_researcher():
    st.error("Please sign in first.")
    st.markdown("[Researcher sign-in](/researcher)")  # a plain link works in every routing mode
    st.stop()

try:
    study = ui.get_study()
except InfactError as exc:
    ui.show_problems(exc, "The study configuration has problems:")
    st.stop()

storage = ui.get_storage(study)
target, source = ui.store_target(study)


@st.cache_resource(show_spinner=False)
def live_records(target: str, study_id: str) -> LiveRecords:
    return LiveRecords(ui.get_storage(study), study_id)


st.title(f"Dashboard · {study.config.study.title}")
if on_community_cloud() and isinstance(storage, TinyDBStorage):
    st.warning("This app runs on Streamlit Community Cloud with the embedded TinyDB store. Its disk is wiped on "
               "every reboot or redeploy: **answers will be lost**. Configure a PostgreSQL database in the app's "
               "secrets (`[connections.infact]`, see the README) before collecting real data.", icon="⚠️")
st.caption(f"Study `{study.id}` · dataset version `{study.dataset_version}` · {len(study.situations)} situations · "
           f"systems {', '.join(study.systems)} · store: {source}")
for note in study.notes:
    st.info(str(note))

top = st.columns([2, 2, 1])
include_flagged = top[0].toggle("Include flagged participants", value=False, key="include_flagged",
                                help="Off: results use only participants whose decision is 'include'.")
criteria = [c.id for c in study.config.criteria]
criterion = top[1].selectbox("Criterion", criteria, key="criterion") if len(criteria) > 1 else criteria[0]
if top[2].button("Preview study", key="preview", help="Walk through the study; your answers never count."):
    st.switch_page("pages/participant.py", query_params={"preview": "1"})


def compute(records: list[dict], version: int):
    """Tables for the current records; recomputed only when new records arrived."""
    cached = st.session_state.get("dash_cache")
    if cached and cached[0] == version:
        return cached[1]
    t = collect(study, records)
    st.session_state["dash_cache"] = (version, t)
    return t


def analysed(ratings: pd.DataFrame, version: int):
    """The statistics for the current view, computed once per (data version, switches)."""
    key = (version, criterion, include_flagged)
    cached = st.session_state.get("dash_analysis")
    if cached and cached[0] == key:
        return cached[1]
    try:
        result = analysis.analyze(ratings, mixed_model=False, include_flagged=include_flagged, n_boot=1000)
    except InfactError as exc:
        result = exc
    st.session_state["dash_analysis"] = (key, result)
    return result


@st.fragment(run_every=5)
def live() -> None:
    records, version = live_records(target, study.id).refresh()
    t = compute(records, version)
    p = t.participants
    # Finished participants left out of the results (unfinished ones are counted as in progress).
    n_excluded = int((p["excluded"] & p["status"].isin(["completed", "screened_out"])).sum()) if len(p) else 0
    cols = st.columns(5)
    cols[0].metric("Arrived", len(p))
    cols[1].metric("In progress", int((p["status"] == "in_progress").sum()) if len(p) else 0)
    cols[2].metric("Completed", int((p["status"] == "completed").sum()) if len(p) else 0)
    cols[3].metric("Excluded", n_excluded)
    cols[4].metric("Withdrawn", int((p["status"] == "withdrawn").sum()) if len(p) else 0)
    style_metric_cards(border_left_color="#1a56c4")
    st.caption(f"Updated {datetime.now(timezone.utc):%H:%M:%S} UTC · {len(records)} records")

    ratings = t.ratings[t.ratings["criterion"] == criterion] if len(t.ratings) else t.ratings
    shown = ratings if include_flagged else ratings[~ratings["excluded"]]
    tabs = st.tabs(["Progress", "Results", "Participants & flags", "Exports", "Statistics"])

    with tabs[0]:
        funnel = t.funnel
        excl = t.flags.explode("flags") if len(t.flags) else pd.DataFrame(columns=["flags", "decision"])
        excl = excl[excl["decision"] == "exclude"]["flags"].dropna().value_counts()
        st.subheader("Funnel")
        st.altair_chart(alt.Chart(funnel).mark_bar().encode(
            y=alt.Y("stage:N", sort=list(funnel["stage"]), title=None),
            x=alt.X("participants:Q", title="Participants"),
            tooltip=["stage", "participants"]), key="chart_funnel")
        if len(excl):
            st.write("Excluded participants by reason:", excl.rename("participants"))
        st.subheader("Coverage per situation")
        cov = pd.DataFrame(coverage(study, records, datetime.now(timezone.utc)))
        k = study.config.assignment.ratings_per_situation
        done = int((cov["ratings"] >= k).sum())
        st.progress(done / len(cov), text=f"{done} of {len(cov)} situations have ≥ {k} ratings")
        st.dataframe(cov, hide_index=True, height=260, key="coverage_table")

    with tabs[1]:
        if shown.empty:
            st.info("No ratings yet." if ratings.empty else "All rated participants are flagged: switch on 'Include flagged participants'.")
        else:
            st.subheader("Mean rating per system (95% CI, participant bootstrap)")
            result = analysed(ratings, version)
            if isinstance(result, InfactError):
                st.info("Means and intervals are not available yet: " + "; ".join(p.message for p in result.problems))
            else:
                st.altair_chart(charts.mean_ratings_chart(shown, result), key="chart_means")
            st.subheader("Distribution of the scale points")
            st.altair_chart(charts.distribution_chart(shown, study.config.scale.labels), key="chart_dist")
            st.subheader("Position (order) effect")
            st.altair_chart(charts.position_chart(shown), key="chart_position")
        done_p = p[p["status"] == "completed"] if len(p) else p
        if len(done_p):
            st.subheader("Completion time")
            st.altair_chart(charts.completion_time_chart(done_p), key="chart_time")
        if len(t.questionnaire):
            st.subheader("Questionnaire")
            q = t.questionnaire if include_flagged else t.questionnaire[~t.questionnaire["participant"].isin(p.loc[p["excluded"], "participant"])]
            st.altair_chart(charts.questionnaire_chart(q), key="chart_questionnaire")

    with tabs[2]:
        if len(t.flags) == 0:
            st.info("No participants yet.")
        else:
            st.dataframe(quality.for_csv(t.flags), hide_index=True, key="flags_table")

    with tabs[3]:
        cached = st.session_state.get("dash_files")
        if not cached or cached[0] != version:  # the XLSX is costly: build files once per data version
            cached = (version, export_bytes(t, study.systems))
            st.session_state["dash_files"] = cached
        files = cached[1]
        for name, data in files.items():
            st.download_button(f"{name} — {FILES[name]}", data, file_name=name, key=f"dl-{name}")

    with tabs[4]:
        if shown.empty or shown["participant"].nunique() < 2:
            st.info("Statistics need ratings from at least two participants.")
        else:
            result = analysed(ratings, version)
            if isinstance(result, InfactError):
                ui.show_problems(result, "The ratings could not be analysed:")
            else:
                st.markdown(render_markdown(result))
                st.download_button("report.html (with charts)", render_html(result, shown), file_name="report.html", key="dl-report")
                st.caption("The mixed model is left out here for speed; `python -m infact analyze --study … --db …` runs it.")


live()

st.subheader("Exclude or re-include a participant")
records_now, _ = live_records(target, study.id).refresh()
participants = sorted({r["participant"] for r in records_now if not r["participant"].startswith("_") and not r.get("preview")})
with st.form("manual_decision"):
    who = st.selectbox("Participant", participants, index=None, key="manual_participant")
    action = st.radio("Decision", ["exclude", "include"], horizontal=True, key="manual_action")
    note = st.text_input("Note (why)", key="manual_note")
    if st.form_submit_button("Save decision", key="manual_save"):
        try:
            storage.append(quality.manual_event(who, action, note, study=study.id, dataset_version=study.dataset_version))
            st.success(f"Saved: {action} {who}. Nothing is deleted; the decision is an event in the log.")
        except ValueError as exc:
            st.error(str(exc))
