"""A flood of anonymous visits (a crawler, a client without cookies, random Prolific ID pairs)
costs the store a line each, not a file, and past a per-minute bound only a count, while the
funnel's Visited, visits.csv and the dashboard stay right (infact.participation.visits)."""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from infact.participation import visits
from infact.participation.flow import Flow
from infact.results.dashboard.data import DashboardData
from infact.results.export import export_bytes
from infact.results.quality import funnel
from infact.results.study_results import StudyResults
from infact.storage import TinyDBStorage
from infact.study.loader import load_study

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"
START = datetime(2030, 1, 1, 9, 0, 0, tzinfo=UTC)


def files_in(folder: Path) -> set[str]:
    return {str(Path(root, f).relative_to(folder)) for root, _, names in os.walk(folder) for f in names}


def flood(storage, study, n: int, per_second: float = 10.0) -> list[str]:
    """`n` visits of browsers that keep no cookie, `per_second` of them a second, from START."""
    ids = []
    for i in range(n):
        visit = "b" + f"{i:024x}"
        visits.store_visit(storage, study, visit, START + timedelta(seconds=i / per_second))
        ids.append(visit)
    return ids


def visited(storage, study) -> dict:
    """Visited as the dashboard's first numbers, its live tables and visits.csv read back give it."""
    progress, found = funnel.from_store(storage, study.id)
    first = funnel.stage_counts(progress, START, found)
    data = DashboardData(study)
    data.add(storage.records(study=study.id))
    files = export_bytes(StudyResults(study, storage.records(study=study.id), now=START).tables, study.systems)
    table = pd.read_csv(io.BytesIO(files["visits.csv"]), keep_default_na=False)
    participants = pd.read_csv(io.BytesIO(files["participants.csv"]), keep_default_na=False)
    from_csv = len(participants) + funnel.visits_became(table).left
    return {
        "first": (first["visited"], first["consented"]),
        "live": (data.stage_counts(START)["visited"], data.stage_counts(START)["consented"]),
        "csv_visited": from_csv,
    }


def test_500_anonymous_visits_add_no_file_per_visit_and_are_counted(tmp_path):
    study = load_study(DEMO)
    storage = TinyDBStorage(tmp_path / "db")
    flow = Flow(study, storage, clock=lambda: START)
    token = flow.arrive({})  # one real participant first: the store has its files
    flow.submit(token, "consent", {"consent": True})
    before = files_in(tmp_path / "db")
    ids = flood(storage, study, 500)  # 10 a second: 50 s, within one minute
    visits.recorder(storage, study).flush()  # the busy minute is over (a timer does this in the app)
    added = files_in(tmp_path / "db") - before
    assert len(added) <= 3, sorted(added)  # was 1,060 files for 500 visits: one shard + summary each
    recs = storage.records(study=study.id, participant=visits.VISITS)
    assert sum(1 for r in recs if not r.get("aggregated")) == visits.PER_MINUTE
    assert sum(r["count"] for r in recs if r.get("aggregated")) == 500 - visits.PER_MINUTE
    # Two of the flood consent: one recorded one by one, one only counted. Nobody counts twice.
    for visit in (ids[0], ids[-1]):
        joined = flow.arrive({})
        flow.submit(joined, "consent", {"consent": True})
        visits.store_consent(storage, study, visit, joined, START + timedelta(seconds=55))
    # Visited = 3 participants + the 498 visits that left
    assert visited(storage, study) == {"first": (501, 3), "live": (501, 3), "csv_visited": 501}
    reopened = TinyDBStorage(tmp_path / "db")  # another process reads the same
    assert visited(reopened, study)["first"] == (501, 3)


def test_every_store_keeps_the_bound_and_the_counts(storage, tmp_path):
    study = load_study(DEMO)
    flood(storage, study, 150, per_second=1.0)  # 150 s: three minutes, 60 + 60 + 30
    visits.recorder(storage, study).flush()
    recs = storage.records(study=study.id, participant=visits.VISITS)
    assert sum(1 for r in recs if not r.get("aggregated")) == 60 + 60 + 30
    flood(storage, study, 150, per_second=100.0)  # the same visits again (reloads): nothing new
    visits.recorder(storage, study).flush()
    assert len(storage.records(study=study.id, participant=visits.VISITS)) == len(recs)
    assert funnel.from_store(storage, study.id)[1].left == 150


def test_a_busy_minute_is_written_when_the_next_visit_comes_in_a_later_minute(tmp_path):
    study = load_study(DEMO)
    storage = TinyDBStorage(tmp_path / "db")
    flood(storage, study, 70, per_second=10.0)
    assert funnel.from_store(storage, study.id)[1].left == 60  # the 10 counted are still in memory
    visits.store_visit(storage, study, "b" + "f" * 24, START + timedelta(minutes=2))
    found = funnel.from_store(storage, study.id)[1]
    assert (found.left, found.aggregated, len(found.aggregated_minutes)) == (71, 10, 1)


@pytest.mark.slow  # 4.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_dashboard_says_when_visits_were_aggregated(tmp_path, monkeypatch):
    monkeypatch.setattr(visits, "PER_MINUTE", 1)  # the app's real clock: one recorded a minute, the rest counted
    db = tmp_path / "db"
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO))
    started = datetime.now(UTC)
    for _ in range(8):  # eight browsers without cookies, one after the other
        at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
        at.run()
        assert not at.exception and at.checkbox(key="consent") is not None
    minutes = int((datetime.now(UTC) - started).total_seconds() // 60) + 2  # minutes the runs touched
    storage = TinyDBStorage(db)
    study = load_study(DEMO)
    # (a busy minute's count may already be stored by the timer: only the visits' own records here)
    recorded = sum(1 for r in storage.records(participant=visits.VISITS) if not r.get("aggregated"))
    assert 1 <= recorded <= min(minutes, 7)  # at most one a minute: the others only counted
    for rec in list(visits._recorders.values()):
        for one in rec.values():
            one.flush()  # the busy minutes are over (a timer does this in the app)
    from infact.access.auth import hash_password

    dash = AppTest.from_file(str(REPO / "pages" / "dashboard.py"), default_timeout=90)
    dash.session_state["researcher_signed_in"] = True
    dash.secrets["researcher"] = {"password_hash": hash_password("x", n=2**10)}
    dash.run()
    assert not dash.exception, [e.value for e in dash.exception]
    assert {m.label: m.value for m in dash.metric}["Visited"] == "8"
    notes = [c.value for c in dash.caption if "counted in aggregate" in c.value]
    assert len(notes) == 1 and f"{8 - recorded} visits beyond 1 a minute" in notes[0], notes
    assert visited(storage, study)["csv_visited"] == 8
