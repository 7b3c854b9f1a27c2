"""The dashboard's frame: the header, the switches, the funnel cards and notes, and the refreshing fragment that
draws the chosen section (pages/dashboard.py only routes to these)."""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st
from streamlit_extras.metric_cards import style_metric_cards

from infact import ui
from infact.participation import visits as visits_module
from infact.prolific import fair_pay
from infact.results.dashboard import running_study
from infact.results.dashboard.data import DashboardData
from infact.results.quality import funnel
from infact.storage import TinyDBStorage
from infact.stores import config as store_config
from infact.stores import prolific_records
from infact.stores.feed import RecordFeed
from infact.ui import outage
from infact.ui.dashboard import registry
from infact.ui.dashboard.view import View

SECTION_KEY = "section"
LAST_SECTION = "dashboard_last_section"


@st.cache_resource(show_spinner=False)
def record_feed(target: str, study_id: str, dataset_version: str, _study) -> RecordFeed:
    """One incremental feed per store and study version, shared by every researcher session."""
    return RecordFeed(ui.get_storage(_study), DashboardData(_study))


def header(study, storage, source: str) -> None:
    st.title(f"Dashboard · {study.config.study.title}")
    if store_config.on_community_cloud() and isinstance(storage, TinyDBStorage):
        st.warning(
            "This app runs on Streamlit Community Cloud with the embedded TinyDB store. Its disk is wiped on "
            "every reboot or redeploy: **answers will be lost**. Configure a PostgreSQL database in the app's "
            "secrets (`[connections.infact]`, see the README) before collecting real data.",
            icon="⚠️",
        )
    st.caption(
        f"Study `{study.id}` · dataset version `{study.dataset_version}` · {len(study.situations)} situations · "
        f"systems {', '.join(study.systems)} · store: {source}"
    )
    for note in study.notes:
        st.info(str(note))


def _keep_a_section() -> None:
    """Clicking the chosen section again unselects it: keep showing it instead of a blank page."""
    state = st.session_state
    if state.get(SECTION_KEY) is None:
        state[SECTION_KEY] = state.get(LAST_SECTION, "Progress")


def controls(study) -> tuple[bool, str, str]:
    """(include flagged, criterion, section) from the switches at the top; Preview and Sign out beside them."""
    cfg = study.config
    top = st.columns([2, 2, 1, 1])
    include_flagged = top[0].toggle(
        "Include flagged participants",
        value=False,
        key="include_flagged",
        help="Off: every section uses only participants whose decision is 'include'.",
    )
    criteria = [c.id for c in cfg.criteria]
    criterion = top[1].selectbox("Criterion", criteria, key="criterion") if len(criteria) > 1 else criteria[0]
    if top[2].button("Preview study", key="preview", help="Walk through the study; your answers never count."):
        st.switch_page("pages/participant.py", query_params={"preview": "1"})
    if top[3].button("Sign out", key="sign_out", help="Signs out every browser signed in to this study."):
        ui.sign_out()  # revoked on the server too (infact/ui/resources.py)
        st.rerun()
    names = registry.offered(cfg, has_judges=(study.folder / "judges").is_dir())
    section = st.segmented_control(
        "Section", names, default="Progress", key=SECTION_KEY, label_visibility="collapsed", on_change=_keep_a_section
    )
    section = section or st.session_state.get(LAST_SECTION, "Progress")
    st.session_state[LAST_SECTION] = section
    return include_flagged, criterion, section


def cards(counts: dict) -> None:
    figures = list(funnel.FIGURES.items())
    for start in (0, 5):  # two rows, so every label is readable
        for col, (name, (label, meaning)) in zip(st.columns(5), figures[start : start + 5]):
            col.metric(label, counts.get(name, "…"), help=meaning)
    style_metric_cards(border_left_color="#1a56c4")


def fair_pay_note(view: View, check: dict) -> None:
    """The effective hourly reward against Prolific's minimum and recommended rates (infact.prolific.fair_pay)."""
    records = view.storage.records(study=view.study.id, participant=prolific_records.PARTICIPANT)
    fair = fair_pay.study_check(view.cfg.prolific, records, check["median_minutes"], check["n"])
    warning = fair.warning()
    if fair.underpays:
        st.error(warning)
    elif warning:
        st.warning(warning)
    elif fair.hourly is not None:
        st.caption(f"Fair pay: {fair.line()}.")


def notes(view: View, feed: RecordFeed) -> None:
    """Files set aside or unreadable, the completion time against the estimate, visits and simulated people."""
    for note in running_study.set_aside_notes(view.storage.problems()):
        st.error(note, icon="🗂️")
    for path in feed.damaged:  # unreadable and not set aside (e.g. no permission to move it)
        st.error(
            f"A participant file cannot be read and is left out: `{path}`. Check its permissions, or "
            "restore it from a backup."
        )
    progress = view.progress()
    bots = running_study.bots_note(progress)
    if bots is not None:
        (st.info if bots[0] == "info" else st.warning)(bots[1])
    default = "expected_minutes" not in view.cfg.study.model_fields_set
    check = running_study.duration_check(progress, view.cfg.study.expected_minutes, default=default)
    if check["warning"]:
        st.warning(check["warning"], icon="⏱️")
    elif check["n"]:
        st.caption(
            f"Median completion time {check['median_minutes']:.1f} min (n = {check['n']}); "
            f"{running_study.expected_time(check['expected_minutes'], default)}."
        )
    if view.cfg.platform.kind == "prolific":
        fair_pay_note(view, check)
    visits = view.data.visits()
    if visits.aggregated:  # infact.participation.visits: a per-minute bound
        st.caption(
            f"ℹ️ In {len(visits.aggregated_minutes)} busy minute(s) since {visits.first_aggregated[:16]} UTC, "
            f"{visits.aggregated} visits beyond {visits_module.PER_MINUTE} a minute per app process were "
            "counted in aggregate, not recorded one by one: *Visited* includes them, `visits.csv` has them "
            "as one `(aggregated)` row."
        )
    n = sum(1 for p in progress.values() if p.simulated and not p.preview)
    if n:  # LLM-played participants are shown apart (Live chats section), never in the figures
        st.caption(
            f"🤖 {n} simulated participant(s) (`infact bots --strategy llm`) are not counted in these figures "
            "or tables; the *Live chats* section compares them with the people."
        )


def behind_note(view: View) -> None:
    """The full tables are rebuilt at most every 30 s: say when they are behind the data, with a button."""
    if view.results()[1]:
        st.caption("New answers arrived since these results were computed; they are recomputed every 30 seconds.")
        st.button(
            "Recompute now",
            key="refresh_results_button",
            on_click=lambda: st.session_state.update(refresh_results=True),
        )


def draw(view: View, name: str) -> None:
    """One section; a section drawn from the full tables in the fragment says when they are behind the data."""
    section, kind = registry.find(name)
    if section.tables and section.refresh:
        behind_note(view)
    section.draw(view, kind) if kind else section.draw(view)


def refreshing(study, storage, target: str, include_flagged: bool, criterion: str, section: str) -> None:
    """The part that reruns every 5 seconds and reads only new records: the cards, the notes, the section.
    While the store cannot be read it says so (since when, what participants are told) instead."""
    try:
        _refreshing(study, storage, target, include_flagged, criterion, section)
    except outage.OUTAGE_ERRORS as exc:
        if not outage.is_outage(exc, storage, study.id):
            raise
        outage.dashboard_unavailable(exc)
        return
    if outage.OUTAGE.active:  # this run read the store: the outage is over if it answers
        outage.store_back(storage, study.id)


def _refreshing(study, storage, target: str, include_flagged: bool, criterion: str, section: str) -> None:
    feed = record_feed(target, study.id, study.dataset_version, study)
    now = datetime.now(UTC)
    figures = st.empty()
    if not feed.started:  # the first read of every record takes seconds at scale: the stage figures first
        with figures.container():
            progress, visits = funnel.from_store(storage, study.id)
            cards(funnel.stage_counts(progress, now, visits))
            st.caption("Reading every answer for the quality checks and tables…")
    feed.poll()
    view = View(
        study, storage, feed.consumer, include_flagged, criterion, now, st.session_state.pop("refresh_results", False)
    )
    with figures.container():
        cards(view.data.counts(now))
    notes(view, feed)
    outage.dashboard_notes(storage, study.id)
    st.caption(f"Updated {now:%H:%M:%S} UTC · {len(view.records())} records")
    chosen = registry.find(section)[0]
    if chosen.refresh:
        draw(view, section)
    elif chosen.tables:  # its body is drawn outside the fragment (offline), its note here with the figures
        behind_note(view)


def offline(study, storage, target: str, include_flagged: bool, criterion: str, section: str) -> None:
    """A section drawn outside the fragment (downloads: a deferred link must keep its id between reruns)."""
    if not registry.find(section)[0].refresh:
        try:
            feed = record_feed(target, study.id, study.dataset_version, study)
            draw(View(study, storage, feed.consumer, include_flagged, criterion, datetime.now(UTC)), section)
        except outage.OUTAGE_ERRORS as exc:  # the refreshing part above says since when, and what participants see
            if not outage.is_outage(exc, storage, study.id):
                raise
            outage.OUTAGE.failed(exc)
