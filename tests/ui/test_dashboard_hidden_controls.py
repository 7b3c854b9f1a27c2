"""Participants' text on the dashboard shows its hidden controls (issue 36 item 11): a right-to-left override,
an isolate or a zero-width character in a comment is drawn as its code point, never obeyed and
never silently dropped; the stored record keeps the text exactly as the participant gave it."""

from __future__ import annotations

import pytest

from infact.participation.flow import Flow
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_dashboard
from tests.support.studies import FakeClock, answers_for, make_study, walk

COMMENT = "Response B\u202e was rude\u2066 really\u200b \ufeffhidden\u2028next\u200d"
SHOWN = "Response B[U+202E] was rude[U+2066] really[U+200B] [U+FEFF]hidden[U+2028]next[U+200D]"


@pytest.fixture
def commented(tmp_path):
    study_dir = make_study(
        tmp_path,
        n_situations=4,
        per_participant=2,
        questionnaire={"comment": {"enabled": True}},
    )
    study = load_study(study_dir)
    storage = TinyDBStorage(tmp_path / "db")
    flow = Flow(study, storage, clock=FakeClock())
    token = flow.arrive({})
    walk(flow, token, until="questionnaire")
    answers = answers_for(study, flow.current(flow.state(token)))
    assert flow.submit(token, "questionnaire", dict(answers, comment=COMMENT)).ok
    walk(flow, token)
    [record] = storage.records(participant=token, kind="questionnaire")
    storage.close()
    return study_dir, tmp_path / "db", token, record


@pytest.mark.slow  # 1.5 s: the whole dashboard page under AppTest
def test_the_comments_table_shows_hidden_controls_as_code_points(commented, monkeypatch):
    study_dir, db, token, record = commented
    at = open_dashboard(study_dir, db, monkeypatch, "Comments")
    [table] = [d.value for d in at.dataframe]
    [row] = table.to_dict("records")
    assert row["participant"] == token and row["comment"] == SHOWN
    assert record["comment"] == COMMENT.strip()  # the stored record keeps every character


def test_the_comments_the_dashboard_reads_show_hidden_controls(commented):
    from infact.results.dashboard import running_study
    from infact.results.dashboard.data import DashboardData

    study_dir, db, token, _ = commented
    storage = TinyDBStorage(db)
    data = DashboardData(load_study(study_dir))
    data.add(storage.records())
    storage.close()
    shown = running_study.comments(data.progress())
    assert list(shown["comment"]) == [SHOWN] and list(shown["participant"]) == [token]
