"""The Streamlit app under AppTest (no browser): every widget driven by its key.

Each test gets its own TinyDB store (INFACT_DB) and study folder (INFACT_STUDY),
set before the first run; the store is read back with TinyDBStorage to check what
was saved. Covers the participant flow (consent, refused submits, double submit,
resume after a reload, completion code), the Prolific handshake (arrival, resume
by PROLIFIC_PID, redirect, screen-out, broken links), the researcher guard and
dashboard, and HTML escaping of dataset text.
"""

from __future__ import annotations

import re

import pytest

from infact.access.auth import hash_password
from infact.participation.bots import run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import (
    CHECK_TEXT,
    COMPLETION_CODE,
    DEMO,
    PASSWORD,
    PID,
    PROLIFIC_QUERY,
    SCREENOUT_CODE,
    errors,
    finish,
    give_consent,
    html_bodies,
    is_check,
    open_app,
    prolific_study,
    rate,
    records,
    return_link,
    run,
    shown_code,
    situation_index,
    study_copy,
    submit_situation,
    token_of,
    view,
    walk_situations,
)

# ---------------------------------------------------------------- participant flow


def test_consent_refusal_shows_the_message_and_stores_nothing(store):
    at = open_app()
    assert "p" not in at.query_params  # a visit without consent has no participant yet
    at.button(key="consent_submit").click()
    run(at)
    assert any("Please tick the consent box" in e for e in errors(at))
    assert at.checkbox(key="consent") is not None and situation_index(at) is None
    # a visit without consent stores only that it happened (infact.participation.visits), no participant
    assert [r["kind"] for r in records(store)] == ["visit"], "a visit without consent stored a participant"


def test_incomplete_situation_is_refused_and_nothing_is_stored(store):
    at = give_consent(open_app())
    token = token_of(at)
    assert situation_index(at) == 1
    rate(at, letters={"A", "B"})
    submit_situation(at)
    assert "Please rate response C." in errors(at)
    assert situation_index(at) == 1
    assert records(store, participant=token, kind="situation") == []
    rate(at)
    submit_situation(at)
    assert situation_index(at) == 2
    assert len(records(store, participant=token, kind="situation")) == 1


def test_double_submit_of_the_same_step_is_a_no_op(store):
    """Two tabs (or a double click) submit situation 1: the first answer stays, once."""
    first = give_consent(open_app())
    token = token_of(first)
    second = open_app({"p": token})
    assert view(second) == view(first)

    rate(first, "Perfectly meaningful")
    submit_situation(first)
    rate(second, "Entirely meaningless")
    submit_situation(second)  # the same step again: accepted as already stored, moves on

    assert situation_index(first) == situation_index(second) == 2
    assert not errors(second)
    assert any("another tab" in i.value for i in second.info), "the stale tab was not told"
    assert not any("another tab" in i.value for i in first.info)
    [stored] = records(store, participant=token, kind="situation")
    assert stored["index"] == 1
    assert {r["ratings"]["meaningful"] for r in stored["responses"] if not r["instructed"]} == {5}


def test_reload_resumes_exactly_and_nothing_is_lost_or_repeated(store):
    at = give_consent(open_app())
    token = token_of(at)
    walk_situations(at, until=4)
    before = view(at)
    assert before["progress"] == "Situation 4 of 10"

    again = open_app({"p": token})  # a reload: only the URL survives
    assert token_of(again) == token
    assert view(again) == before
    finish(again)

    sits = records(store, participant=token, kind="situation")
    assert sorted(r["index"] for r in sits) == list(range(1, 11))
    assert len({r["situation_id"] for r in sits}) == 10
    keys = [r["key"] for r in records(store, participant=token)]
    assert len(keys) == len(set(keys))
    assert len(records(store, kind="arrival")) == 1, "the reload registered a second participant"


def test_completion_code_is_shown_and_matches_the_stored_one(store):
    at = finish(give_consent(open_app()))
    token = token_of(at)
    assert any("All your answers are saved." in s.value for s in at.success)
    [complete] = records(store, participant=token, kind="complete")
    assert complete["outcome"] == "completed"
    assert shown_code(at) == complete["completion_code"]
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{2}", shown_code(at))
    # Reopening the finished link shows the same code, and stores nothing new.
    n = len(records(store))
    again = open_app({"p": token})
    assert shown_code(again) == complete["completion_code"]
    assert len(records(store)) == n


# ---------------------------------------------------------------- Prolific


def test_prolific_arrival_is_stored_and_resumed_by_pid(store, tmp_path, monkeypatch):
    prolific_study(tmp_path, monkeypatch)
    at = give_consent(open_app(PROLIFIC_QUERY))
    token = token_of(at)
    assert at.query_params["PROLIFIC_PID"] in (PID, [PID])  # kept alongside the token
    [arrival] = records(store, participant=token, kind="arrival")
    assert arrival["platform"] == "prolific" and arrival["platform_id"] == PID
    assert arrival["platform_params"] == PROLIFIC_QUERY
    walk_situations(at, until=3)
    before = view(at)

    again = open_app(PROLIFIC_QUERY)  # the same worker opens the study from Prolific again, no ?p=
    assert token_of(again) == token
    assert view(again) == before
    assert len(records(store, kind="arrival")) == 1


def test_prolific_completion_redirects_with_the_study_code(store, tmp_path, monkeypatch):
    prolific_study(tmp_path, monkeypatch)
    at = finish(give_consent(open_app(PROLIFIC_QUERY)))
    assert shown_code(at) == COMPLETION_CODE
    assert return_link(at) == f"https://app.prolific.com/submissions/complete?cc={COMPLETION_CODE}"
    [complete] = records(store, participant=token_of(at), kind="complete")
    assert complete["outcome"] == "completed"


def test_failed_attention_check_screens_out_with_the_screenout_code(store, tmp_path, monkeypatch):
    cfg = prolific_study(tmp_path, monkeypatch, on_fail="screen_out")
    at = give_consent(open_app(PROLIFIC_QUERY))
    token = token_of(at)
    while not is_check(at):
        rate(at)
        submit_situation(at)
    check_index = situation_index(at)
    rate(at, fail_check=True)
    submit_situation(at)

    assert situation_index(at) is None, "the study went on after a failed check"
    screened_out = load_study(cfg).config.texts.screened_out
    assert any(screened_out in w.value for w in at.warning)
    assert shown_code(at) == SCREENOUT_CODE
    assert return_link(at).endswith(f"cc={SCREENOUT_CODE}")
    [complete] = records(store, participant=token, kind="complete")
    assert complete["outcome"] == "screened_out"
    assert max(r["index"] for r in records(store, participant=token, kind="situation")) == check_index


@pytest.mark.parametrize(
    "query",
    [
        {"PROLIFIC_PID": "{{%PROLIFIC_PID%}}"},
        {"PROLIFIC_PID": "not a valid id!"},
        {"PROLIFIC_PID": PID, "SESSION_ID": ""},
        {"PROLIFIC_PID": PID, "STUDY_ID": "%STUDY_ID%"},
    ],
)
def test_invalid_link_parameters_are_refused_with_a_clear_page(store, tmp_path, monkeypatch, query):
    prolific_study(tmp_path, monkeypatch)
    at = open_app(query)
    assert any("link" in e and ("damaged" in e or "incomplete" in e) for e in errors(at)), errors(at)
    assert at.get("checkbox") == [] or not any(c.key == "consent" for c in at.checkbox)
    assert records(store) == [], "a broken link created a participant"


# ---------------------------------------------------------------- researcher


def test_dashboard_refuses_without_sign_in(store):
    # Always registered (a reload of /dashboard must not land on the participant page),
    # but the page itself refuses anyone not signed in.
    at = open_app(secrets={"researcher": {"password_hash": hash_password(PASSWORD)}})
    at.switch_page("pages/dashboard.py")
    run(at)
    assert "Please sign in first." in errors(at)
    assert not at.metric and not at.get("download_button")


@pytest.mark.slow  # 1.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_wrong_password_is_refused(store):
    at = open_app(secrets={"researcher": {"password_hash": hash_password(PASSWORD)}})
    at.switch_page("pages/researcher.py")
    run(at)
    at.text_input(key="password").input("wrong password")
    at.button(key="sign_in_submit").click()
    run(at)
    assert "Wrong password." in errors(at)
    # /researcher and /dashboard share their names with the page files, so a run can reach the
    # dashboard script directly (as Streamlit's legacy pages/ routing does on a fresh server):
    # the script itself must then refuse.
    try:
        at.switch_page("pages/dashboard.py")
    except ValueError:
        return  # not even registered
    run(at)
    assert "Please sign in first." in errors(at)
    assert not at.metric and not at.get("download_button")


@pytest.mark.slow  # 3.4 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_dashboard_after_sign_in_shows_metrics_and_charts(store):
    study = load_study(DEMO)
    run_bots(study, TinyDBStorage(store), 4, strategy="attentive", seed=3)
    at = open_app(secrets={"researcher": {"password_hash": hash_password(PASSWORD)}})
    at.switch_page("pages/researcher.py")
    run(at)
    at.text_input(key="password").input(PASSWORD)
    at.button(key="sign_in_submit").click()
    run(at)
    assert any("You are signed in." in s.value for s in at.success)
    at.switch_page("pages/dashboard.py")
    run(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Completed"] == "4"
    # The four bots, and this session's own visit to the participant page before signing in:
    # it never consented, so it is a visit (a `_visits` record), never a participant.
    assert metrics["Visited"] == "5" and metrics["Consented"] == "4"
    assert metrics["Included"] == "4" and metrics["Excluded"] == "0"
    assert metrics["Active now"] == "0"
    at.segmented_control(key="section").set_value("Results")
    run(at)
    assert len(at.get("vega_lite_chart")) >= 4  # means, distribution, position, questionnaire
    at.segmented_control(key="section").set_value("Exports")
    run(at)
    labels = [d.proto.label for d in at.get("download_button")]
    assert any(label.startswith("ratings.csv — ") for label in labels)
    assert any(t.value.startswith("Dashboard · ") for t in at.title)


# ---------------------------------------------------------------- escaping


def test_dataset_html_is_escaped(store, tmp_path, monkeypatch):
    script, img = "<script>alert(1)</script>", "<img src=x onerror=alert(1)>"

    def poison(s: dict) -> dict:
        s["context"][-1]["text"] += f" {script}"
        s["responses"] = {k: f"{v} {img}" for k, v in s["responses"].items()}
        return s

    study_copy(tmp_path, monkeypatch, situations=poison)
    at = give_consent(open_app())
    bodies = html_bodies(at)
    [dialog] = [b for b in bodies if '<div class="infact-dialog"' in b]
    dialog = dialog[dialog.index('<div class="infact-dialog"') :]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dialog
    assert "<script" not in dialog
    responses = [b for b in bodies if b.startswith('<div class="infact-response')]
    assert len(responses) == 3
    for body in responses:
        if CHECK_TEXT not in body:
            assert "&lt;img src=x onerror=alert(1)&gt;" in body
        assert "<img" not in body


def test_unknown_personal_link_is_explained_not_silently_restarted(store):
    at = open_app({"p": "NoSuchToken123"})
    assert any("could not find your session" in w.value for w in at.warning)
    assert records(store) == []  # nobody was registered behind the participant's back
    at.button(key="restart").click()
    run(at)
    # the consent page: only a visit is stored (infact.participation.visits), no participant
    assert "p" not in at.query_params and [r["kind"] for r in records(store)] == ["visit"]
    give_consent(at)
    assert token_of(at) != "NoSuchToken123"
    assert len(records(store, kind="arrival")) == 1


def test_damaged_personal_link_is_refused(store):
    at = open_app({"p": "bad token!"})
    assert any("damaged" in e for e in errors(at)), errors(at)
    assert records(store) == []
