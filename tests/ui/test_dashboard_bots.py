"""The dashboard page (AppTest) with bots (issue 40, item 6): a store of bots only shows their figures under a
note that they are bots; once a person is in the store, the cards count the person only and a warning says how
many bots share the store and how to remove them."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from infact.access.auth import hash_password
from infact.participation.bots import run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.participants import people
from tests.support.studies import make_study

DASHBOARD = Path(__file__).resolve().parents[2] / "pages" / "dashboard.py"


def dashboard(study_dir, db, monkeypatch) -> AppTest:
    monkeypatch.setenv("INFACT_STUDY", str(study_dir))
    monkeypatch.setenv("INFACT_DB", str(db))
    at = AppTest.from_file(str(DASHBOARD), default_timeout=90)
    at.session_state["researcher_signed_in"] = True
    at.secrets["researcher"] = {"password_hash": hash_password("bots-pw")}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.slow  # an AppTest run of the dashboard, twice: several seconds
def test_bots_are_shown_as_bots_and_counted_apart_from_people(tmp_path, monkeypatch):
    study_dir = make_study(tmp_path, per_participant=2)
    study, db = load_study(study_dir), tmp_path / "db"
    storage = TinyDBStorage(db)
    try:
        run_bots(study, storage, 3, strategy="attentive", seed=1)
    finally:
        storage.close()
    at = dashboard(study_dir, db, monkeypatch)
    assert {m.label: m.value for m in at.metric}["Completed"] == "3"
    assert any("Every participant in this store is a bot (3" in i.value for i in at.info)
    storage = TinyDBStorage(db)
    try:
        people(study, storage, 1)
    finally:
        storage.close()
    at = dashboard(study_dir, db, monkeypatch)
    assert {m.label: m.value for m in at.metric}["Completed"] == "1"
    assert any("3 bot participant(s)" in w.value and "--remove" in w.value for w in at.warning)
