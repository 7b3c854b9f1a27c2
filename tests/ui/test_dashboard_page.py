"""The dashboard page (AppTest): every section on bot data of a Prolific study, the
multi-participant exclude picker, the Prolific lists, and the sign-in cookie.

The numbers themselves are checked in tests/results/quality/test_funnel.py; here: the page shows what
the core functions give and nothing fails.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from infact.access import session as researcher_session
from infact.access.auth import hash_password
from infact.participation.bots import Bot
from infact.results.dashboard import running_study
from infact.results.dashboard.data import DashboardData
from infact.results.quality.funnel import FIGURES
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import give_consent
from tests.support.dashboard_pages import DASHBOARD, open_dashboard
from tests.support.studies import make_study

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "streamlit_app.py"
HASH = hash_password("dashboard-test-pw")
STRATEGIES = ["attentive", "attentive", "attentive", "straightliner", "fails-attention", "abandons"]


@pytest.fixture(scope="module")
def prolific_store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dash")
    study_dir = make_study(
        tmp, n_situations=14, per_participant=6, platform={"kind": "prolific", "completion_code": "C1TEST23"}
    )
    study = load_study(study_dir)
    storage = TinyDBStorage(tmp / "db")
    for i, strategy in enumerate(STRATEGIES):
        pid = f"{i:024x}"
        Bot(
            study,
            storage,
            strategy,
            seed=i,
            query={"PROLIFIC_PID": pid, "STUDY_ID": "s" * 24, "SESSION_ID": f"{i:024x}"},
        ).run()
    return study_dir, tmp / "db"


@pytest.mark.parametrize(
    "section", ["Progress", "Participants", "Prolific", "Results", "Situations", "Statistics", "Comments", "Exports"]
)
@pytest.mark.slow  # 1.9 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_every_section_renders_on_bot_data(prolific_store, monkeypatch, section):
    at = open_dashboard(*prolific_store, monkeypatch, section)
    metrics = {m.label: m.value for m in at.metric}
    assert list(metrics) == [label for label, _ in FIGURES.values()]
    assert (metrics["Visited"], metrics["Completed"], metrics["Included"], metrics["Excluded"]) == ("6", "5", "3", "2")
    assert not [e.value for e in at.error]


def test_prolific_lists_hold_the_platform_ids(prolific_store, monkeypatch):
    at = open_dashboard(*prolific_store, monkeypatch, "Prolific")
    blocks = [c.value for c in at.code]
    approve, reject = blocks[0].split("\n"), blocks[1].split("\n")
    # attentive bots, and the straightliner: excluded from the data but paid (no failed explicit check)
    assert sorted(approve) == [f"{i:024x}" for i in range(4)]
    assert reject == [f"{4:024x}"]  # fails-attention: two failed explicit checks in a 12-minute study
    assert f"{5:024x}" not in "\n".join(blocks)  # the abandoner has submitted nothing
    assert any(df.value["reason"].str.contains("failed 2 explicit attention check").any() for df in at.dataframe)


def test_exclude_picker_takes_several_participants(prolific_store, monkeypatch, tmp_path):
    study_dir, db = prolific_store
    copy = tmp_path / "db"
    shutil.copytree(db, copy)
    at = open_dashboard(study_dir, copy, monkeypatch, "Participants")
    picker = at.multiselect(key="manual_participants")
    data = DashboardData(load_study(study_dir))
    data.add(TinyDBStorage(copy).records())
    labels = running_study.exclusion_choices(data.overview())
    assert sorted(picker.options) == sorted(labels.values())  # platform ID · stage · decision · flags
    assert any(label.startswith(f"{0:024x} · completed · include · no flags") for label in picker.options)
    assert any(label.startswith(f"{3:024x} · completed · exclude · straightliner") for label in picker.options)
    attentive = [p for p, label in labels.items() if "· include ·" in label][:2]
    picker.set_value(attentive)
    at.text_input(key="manual_note").input("answered in another language")
    at.button(key="manual_save").click().run()
    assert any("2 participant(s)" in s.value for s in at.success)
    events = TinyDBStorage(copy).records(kind="event")
    assert sorted(e["target"] for e in events) == sorted(attentive)
    at.run()
    assert {m.label: m.value for m in at.metric}["Excluded"] == "4"


def test_sign_in_cookie_restores_the_session_after_a_reload(monkeypatch, tmp_path):
    """A reload is a new session: the signed cookie alone lets the researcher back in."""
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    key = researcher_session.signing_key({"researcher": {"password_hash": HASH}})
    monkeypatch.setattr(
        "streamlit.context", type("C", (), {"cookies": {researcher_session.COOKIE: researcher_session.token(key)}})()
    )
    at = AppTest.from_file(str(DASHBOARD), default_timeout=90)
    at.secrets["researcher"] = {"password_hash": HASH}
    at.run()
    assert not at.error and at.metric


def test_a_forged_or_foreign_cookie_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    other = researcher_session.signing_key({"researcher": {"password_hash": hash_password("another-password")}})
    monkeypatch.setattr(
        "streamlit.context", type("C", (), {"cookies": {researcher_session.COOKIE: researcher_session.token(other)}})()
    )
    at = AppTest.from_file(str(DASHBOARD), default_timeout=90)
    at.secrets["researcher"] = {"password_hash": HASH}
    at.run()
    assert [e.value for e in at.error] == ["Please sign in first."] and not at.metric


def test_a_signed_in_researcher_opening_the_study_is_a_preview(monkeypatch, tmp_path):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(REPO / "data" / "demo"))
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.secrets["researcher"] = {"password_hash": HASH}
    at.session_state["researcher_signed_in"] = True
    at.run()
    assert not at.exception and TinyDBStorage(tmp_path / "db").records() == []  # stored with the consent
    give_consent(at)
    (arrival,) = TinyDBStorage(tmp_path / "db").records(kind="arrival")
    assert arrival["preview"] is True  # left out of every count, table and export


def test_set_aside_files_and_unusual_platform_ids_are_shown(prolific_store, monkeypatch, tmp_path):
    """A damaged participant file: named with what is wrong, where it went and what to do;
    the rest is still counted. An unusual Prolific ID: its warning in the participants view."""
    study_dir, db = prolific_store
    copy = tmp_path / "db"
    shutil.copytree(db, copy)
    store = TinyDBStorage(copy)
    Bot(
        load_study(study_dir),
        store,
        "abandons",
        seed=9,
        query={"PROLIFIC_PID": "oddid7", "STUDY_ID": "s" * 24, "SESSION_ID": "t" * 24},
    ).run()
    (store.shards / "p-damaged.json").write_bytes(b"\xff\xfe not a record file")
    at = open_dashboard(study_dir, copy, monkeypatch, "Participants")
    [note] = [e.value for e in at.error]
    assert "p-damaged.json is not UTF-8 text" in note and "What to do" in note
    [problem] = store.problems()
    assert problem["moved_to"] in note and not (store.shards / "p-damaged.json").exists()
    assert {m.label: m.value for m in at.metric}["Visited"] == "7"  # the six bots and the new one
    [table] = [df.value for df in at.dataframe if "platform_warnings" in df.value]
    warned = table.set_index("platform_id")["platform_warnings"]
    assert "PROLIFIC_PID 'oddid7' is not the usual 24-character Prolific id" in warned["oddid7"]
    assert not warned.drop("oddid7").str.contains("PROLIFIC_PID").any()  # (their STUDY_ID is a made-up one)
