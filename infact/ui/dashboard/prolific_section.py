"""The dashboard's Prolific section: the synced submissions, Prolific's statuses beside INFACT's stages.

Streamlit cannot receive Prolific's webhooks, so the section polls: while it is open, and when the
researcher presses "Sync now", but never more than once a minute (infact.prolific.sync.MIN_INTERVAL;
the last sync is a store record, so two browser tabs share the limit). A returned or timed-out
submission frees that participant's reserved situations at once (the sync writes the lease end).
Review, rejections and bonuses stay on the command line (`infact prolific review|bonus --apply`):
they spend money or count against participants, and the command line prints before it acts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime

import pandas as pd
import streamlit as st

from infact.errors import InfactError
from infact.storage import Storage
from infact.stores import prolific_records as rec
from infact.study.loader import Study
from infact.ui.resources import secrets


def show(study: Study, storage: Storage, stages: Mapping[str, int]) -> None:
    """Draw the section; `stages` are INFACT's funnel counts (shown beside Prolific's statuses)."""
    st.subheader("Prolific study")
    records = storage.records(study=study.id, participant=rec.PARTICIPANT)
    prolific_id = rec.study_id(records)
    if prolific_id is None:
        st.info(
            "No Prolific study is recorded for this study yet. Create the draft with "
            "`python -m infact prolific create --study DIR` (docs/prolific.md)."
        )
        return
    pressed = st.button("Sync now", key="prolific_sync_now")
    message = _sync(study, storage, prolific_id)
    if message:
        (st.warning if pressed or message.startswith("Prolific") else st.caption)(message)
    records = storage.records(study=study.id, participant=rec.PARTICIPANT)
    st.caption(f"Prolific study `{prolific_id}` · {_last_sync_line(records)}")
    left, right = st.columns(2)
    with left:
        st.markdown("**INFACT stages**")
        rows = [(k, v) for k, v in stages.items() if isinstance(v, (int, float))]
        st.table(pd.DataFrame(rows, columns=["stage", "participants"]).set_index("stage"))
    with right:
        st.markdown("**Prolific statuses**")
        counts = rec.status_counts(records)
        st.table(pd.DataFrame(list(counts.items()), columns=["status", "submissions"]).set_index("status"))
    subs = pd.DataFrame(list(rec.submissions(records).values()))
    if len(subs):
        cols = [c for c in ("submission_id", "participant_id", "status", "started_at", "completed_at") if c in subs]
        st.dataframe(subs[cols], hide_index=True, key="prolific_submissions")
    st.caption(
        "Approve, reject and pay bonuses with `python -m infact prolific review --apply` and "
        "`python -m infact prolific bonus --apply`: each prints what it will do first (docs/prolific.md)."
    )


def _sync(study: Study, storage: Storage, prolific_id: str) -> str | None:
    """Poll Prolific unless it was polled less than a minute ago; a line to show, or None."""
    from infact.prolific.session import open_session
    from infact.prolific.sync import sync

    try:
        session = open_session(study, storage, environ=os.environ, secrets=secrets(), retries=1, timeout=10)
    except InfactError as exc:
        return f"Prolific is not connected: {exc.problems[0].message}"
    try:
        done = sync(session, prolific_id, force=False)
    except InfactError as exc:  # the error texts never hold the token (infact.prolific.client)
        return f"Prolific sync failed: {exc.problems[0].message}"
    finally:
        session.client.close()
    if done.skipped:
        return f"Synced less than a minute ago; the next sync is at {done.next_at:%H:%M:%S} UTC."
    freed = f"; freed the reserved situations of {len(done.released)} participant(s)" if done.released else ""
    return f"Synced {done.submissions} submission(s), {len(done.changed)} new status(es){freed}."


def _last_sync_line(records: list[dict]) -> str:
    last = rec.last_sync_record(records)
    if last is None:
        return "not synced yet"
    at = datetime.fromisoformat(last["at"])
    freed = f", freed the situations of {last['released']} participant(s)" if last.get("released") else ""
    return (
        f"last synced {at:%H:%M:%S} UTC: {last.get('submissions', 0)} submission(s), "
        f"{last.get('changed', 0)} new status(es){freed}"
    )
