"""The dashboard's Prolific section (AppTest) against the API stub: one poll a minute, statuses beside stages."""

from __future__ import annotations

import pytest

from infact.prolific import setup
from infact.prolific.session import open_session
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from simulations.prolific_stub import ProlificStub
from tests.support.dashboard_pages import open_dashboard
from tests.support.prolific import TOKEN, play, prolific_study_folder, submissions


@pytest.mark.slow  # 2.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_section_syncs_once_a_minute_and_shows_statuses(tmp_path, monkeypatch):
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    with ProlificStub(TOKEN) as stub:
        folder = prolific_study_folder(tmp_path, prolific={"base_url": stub.url})
        study, storage = load_study(folder), TinyDBStorage(tmp_path / "db")
        people = play(study, storage, ["attentive", "abandons"])
        at = open_dashboard(folder, tmp_path / "db", monkeypatch, "Prolific")
        assert any("No Prolific study is recorded" in i.value for i in at.info)
        session = open_session(study, storage, base_url=stub.url)
        submissions(stub, setup.create(session).prolific_id, ["AWAITING REVIEW", "RETURNED"])
        at.run()
        shown = " ".join(c.value for c in at.caption)
        assert "Synced 2 submission(s), 2 new status(es); freed the reserved situations of 1" in shown, shown
        assert "2 submission(s), 2 new status(es), freed the situations of 1 participant(s)" in shown
        statuses = at.table[1].value
        assert statuses.loc["RETURNED", "submissions"] == 1 and statuses.loc["AWAITING REVIEW", "submissions"] == 1
        assert "completed" in at.table[0].value.index
        at.button(key="prolific_sync_now").click().run()
        assert any("less than a minute ago" in w.value for w in at.warning)
        assert len(stub.calls("GET", "/submissions/$")) == 1
        assert storage.records(participant=people[1][1], kind="lease_end")


def test_without_a_token_the_section_says_what_to_set(tmp_path, monkeypatch):
    monkeypatch.delenv("PROLIFIC_TOKEN", raising=False)
    folder = prolific_study_folder(tmp_path)
    storage = TinyDBStorage(tmp_path / "db")
    storage.append(
        {
            "key": "t/_prolific/prolific_study/abc",
            "study": "t",
            "participant": "_prolific",
            "kind": "prolific_study",
            "prolific_id": "abc",
            "at": "2026-03-02T09:00:00+00:00",
        }
    )
    at = open_dashboard(folder, tmp_path / "db", monkeypatch, "Prolific")
    assert any("PROLIFIC_TOKEN" in w.value for w in at.warning), [w.value for w in at.warning]
