"""The dashboard page (AppTest) with bots (issue 40, item 6): a store of bots only shows their figures under a
note that they are bots; once a person is in the store, the cards count the person only and a warning says how
many bots share the store and how to remove them."""

from __future__ import annotations

import pytest

from infact.participation.bots import run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.dashboard_pages import open_dashboard
from tests.support.participants import people
from tests.support.studies import make_study


@pytest.mark.slow  # an AppTest run of the dashboard, twice: several seconds
def test_bots_are_shown_as_bots_and_counted_apart_from_people(tmp_path, monkeypatch):
    study_dir = make_study(tmp_path, per_participant=2)
    study, db = load_study(study_dir), tmp_path / "db"
    storage = TinyDBStorage(db)
    try:
        run_bots(study, storage, 3, strategy="attentive", seed=1)
    finally:
        storage.close()
    at = open_dashboard(study_dir, db, monkeypatch)
    assert {m.label: m.value for m in at.metric}["Completed"] == "3"
    assert any("Every participant in this store is a bot (3" in i.value for i in at.info)
    storage = TinyDBStorage(db)
    try:
        people(study, storage, 1)
    finally:
        storage.close()
    at = open_dashboard(study_dir, db, monkeypatch)
    assert {m.label: m.value for m in at.metric}["Completed"] == "1"
    assert any("3 bot participant(s)" in w.value and "--remove" in w.value for w in at.warning)
