"""A store outage as people see it (infact/stores/outage.py): the participant is told that saving is paused
and their answers so far are safe, and the page carries on by itself once the store answers (or when they
press "Try again"); the researcher's dashboard says since when the store is down, and which outages were.

Never "We could not find your session … start from the beginning": that is for a link nobody knows.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import streamlit as st

from infact.stores.outage import OUTAGE, stored_outages
from infact.stores.records import StoreUnavailable
from infact.text.catalogue import N_, _
from infact.text.display import page_css, title_html

OUTAGE_ERRORS = (StoreUnavailable, OSError)  # a database gone away; a disk error under the TinyDB store
RETRY_S = 3  # the paused page asks the store again this often
PROBE = "_outage-probe"  # a participant name nobody has: reading it asks the store, finds nothing
PAUSED = N_(
    "**Saving is paused for a moment.** We cannot reach our storage right now. Your answers so far are safe. "
    "This page will carry on by itself as soon as saving works again; you do not need to start over."
)
NOT_SENT = N_("The page you had just sent could not be saved; you will see it again to send it once more.")
BACK = N_("Saving works again. Thank you for waiting: you continue where you were.")


def probe(storage, study_id: str) -> None:
    """A read of the store; raises what an outage raises."""
    storage.records(study=study_id, participant=PROBE)


def store_answers(storage, study_id: str) -> bool:
    """Whether the store answers a read now (an outage met is not counted again: this is the page asking)."""
    try:
        probe(storage, study_id)
    except OUTAGE_ERRORS:
        return False
    return True


def after_unsent_submit(storage, study_id: str) -> None:
    """The run after a submit an outage refused (a consent, too, which reads nothing before it is sent): the
    page pauses again while the store is still away (raises what the store raises)."""
    if st.session_state.get("infact_outage_submit") and OUTAGE.active:
        probe(storage, study_id)


def is_outage(exc: BaseException, storage, study_id: str) -> bool:
    """A failure that is an outage: the store says it is unreachable, or an OSError while the store cannot
    even be read now. A store that reads but refuses a write (a read-only disk) is not paused: that one
    answer is refused, and said so beside it."""
    if isinstance(exc, StoreUnavailable):
        return True
    return isinstance(exc, OSError) and not store_answers(storage, study_id)


def store_back(storage, study_id: str) -> bool:
    """Called after a run that met no outage while one is going on: if the store answers, the outage is
    over (logged once) and stored for every dashboard. Returns whether it is over."""
    if not OUTAGE.active or not store_answers(storage, study_id):
        return not OUTAGE.active
    OUTAGE.succeeded()
    OUTAGE.store_ended(storage, study_id)
    return True


def paused_page(flow, exc: BaseException) -> None:
    """The participant's page while the store is unavailable: what is going on, and a page that goes on by
    itself (a fragment asks the store every RETRY_S seconds and reruns the page once it answers). `flow` is
    None when the store could not even be opened: then the whole page is simply tried again."""
    OUTAGE.failed(exc)
    st.html(page_css() + (title_html(flow.cfg.study.title) if flow is not None else ""))
    st.warning(_(PAUSED), icon=":material/pause_circle:")
    if st.session_state.pop("infact_outage_submit", False):
        st.info(_(NOT_SENT))
    st.session_state["infact_outage_seen"] = True
    st.session_state["infact_outage_paused"] = time.monotonic()
    if st.button(_("Try again"), key="outage_retry", type="primary"):
        st.rerun()
    st.fragment(run_every=RETRY_S)(_wait_for_store)(flow)


def _wait_for_store(flow) -> None:
    """Every RETRY_S seconds (not on the run that drew the pause: a store that reads but cannot write would
    loop): when the store answers, the whole page runs again. The run that then meets no outage ends it
    (`store_back`); one that meets it again pauses again, within the same outage (no new log line)."""
    paused = st.session_state.get("infact_outage_paused", 0.0)
    if time.monotonic() - paused >= 0.8 * RETRY_S and (flow is None or _answers_now(flow)):
        st.rerun(scope="app")
    st.caption(_("Last checked {time} UTC. Please keep this page open.").format(time=f"{datetime.now(UTC):%H:%M:%S}"))


def _answers_now(flow) -> bool:
    """`store_answers`, for the fragment: its runs are not inside the page's own error handling, so any
    failure here only means "not yet"."""
    try:
        return store_answers(flow.storage, flow.study.id)
    except Exception:
        return False


def back_notice() -> str | None:
    """Once, on the first page after a pause this session saw."""
    return _(BACK) if st.session_state.pop("infact_outage_seen", False) else None


def _when(iso: str) -> str:
    return iso.replace("T", " ")[:19].removesuffix("+00:00")


def dashboard_notes(storage, study_id: str) -> None:
    """The outage going on in this process (from memory: the store cannot be read), then the outages every
    process stored once they ended."""
    now = OUTAGE.status()
    if now is not None:
        since = datetime.fromtimestamp(now.started, UTC)
        st.error(
            f"**The store is unavailable** since {since:%Y-%m-%d %H:%M:%S} UTC ({now.failures} request(s) "
            f"met it so far). Participants are told that saving is paused and that their answers so far are safe; "
            f"their pages carry on by themselves once it is back. The store says: {now.reason}",
            icon=":material/pause_circle:",
        )
        return
    try:
        past = stored_outages(storage, study_id)
    except OUTAGE_ERRORS:
        return
    if past:
        lines = [
            f"- {_when(r.get('started_at', '?'))} – {_when(r.get('ended_at', '?'))} UTC: {r.get('seconds', 0):g} s, "
            f"{r.get('failed_requests', 0)} request(s) met it (process {r.get('process', '?')})"
            for r in past[:5]
        ]
        more = f"\n\n…and {len(past) - 5} earlier." if len(past) > 5 else ""
        st.warning(
            f"**Store outages** ({len(past)}): participants were told that saving was paused; no stored answer was "
            "lost.\n\n" + "\n".join(lines) + more,
            icon=":material/pause_circle:",
        )


def dashboard_unavailable(exc: BaseException) -> None:
    """The dashboard's live part when the store cannot be read: the outage, not a traceback."""
    OUTAGE.failed(exc)
    dashboard_notes(None, "")
