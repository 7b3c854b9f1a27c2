"""Participation security in the app (AppTest): a platform ID alone never takes over a session.

Issue 10, items 9-10: a second browser that knows someone's Prolific ID must not see
their step, their completion code or their withdraw button.
"""

from __future__ import annotations

from datetime import UTC

import pytest

from tests.support.app import (
    COMPLETION_CODE,
    PID,
    PROLIFIC_QUERY,
    finish,
    give_consent,
    open_app,
    prolific_study,
    rate,
    records,
    shown_code,
    situation_index,
    submit_situation,
    token_of,
    view,
    walk_situations,
)


@pytest.mark.slow  # 2.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_prolific_id_alone_does_not_resume_someone_elses_session(store, tmp_path, monkeypatch):
    prolific_study(tmp_path, monkeypatch)
    at = walk_situations(give_consent(open_app(PROLIFIC_QUERY)), until=3)
    token = token_of(at)
    n = len(records(store))

    for query in ({"PROLIFIC_PID": PID}, {"PROLIFIC_PID": PID.upper()}):
        intruder = open_app(query)
        assert "p" not in intruder.query_params, "the intruder got the participant's token"
        texts = " ".join(w.value for w in intruder.warning)
        assert "already takes part" in texts and "another session" in texts
        assert view(intruder)["radios"] == [] and not intruder.get("button"), "a step or the withdraw button is shown"
        assert len(records(store)) == n, "a refused arrival stored something"

    # Another SESSION_ID is another submission (issue 36): a newcomer of its own, never this participant.
    mine = len(records(store, participant=token))
    other = open_app({**PROLIFIC_QUERY, "SESSION_ID": "0" * 24})
    assert "p" not in other.query_params and view(other)["radios"] == []
    assert token_of(give_consent(other)) != token and len(records(store, participant=token)) == mine

    # The participant's own Prolific session (any letter case) resumes as before.
    again = open_app({k: v.upper() if k == "PROLIFIC_PID" else v for k, v in PROLIFIC_QUERY.items()})
    assert token_of(again) == token and view(again) == view(at)


def test_the_completion_code_is_shown_only_to_the_same_session(store, tmp_path, monkeypatch):
    prolific_study(tmp_path, monkeypatch)
    done = finish(give_consent(open_app(PROLIFIC_QUERY)))
    assert shown_code(done) == COMPLETION_CODE
    intruder = open_app({"PROLIFIC_PID": PID, "STUDY_ID": PROLIFIC_QUERY["STUDY_ID"]})
    assert not intruder.get("code") and not any("infact-return" in h.proto.body for h in intruder.get("html"))


@pytest.mark.slow  # 2.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_visits_without_consent_store_no_participant_and_the_tab_keeps_its_participant(store):
    """Item 11: a visit that never consents stores no participant, only that it happened (issue 11:
    infact.participation.visits, one small `_visits` record per visit). Item 3: the bare link in the
    same tab (what Back shows) comes back to the participant instead of starting a second one."""
    from datetime import datetime

    visits = [open_app() for _ in range(5)]
    seen = datetime.now(UTC)
    assert [r["kind"] for r in records(store)] == ["visit"] * 5 and all("p" not in v.query_params for v in visits)
    assert all(r["participant"].startswith("_v") for r in records(store))
    at = give_consent(visits[0])
    token = token_of(at)
    # The consent page's reading time survives: it was shown before anything could be stored.
    [consent] = records(store, participant=token, kind="consent")
    assert datetime.fromisoformat(consent["shown_at"]) <= seen < datetime.fromisoformat(consent["answered_at"])
    rate(at)
    submit_situation(at)
    del at.query_params["p"]  # Back to the bare link, same session
    at.run()
    assert token_of(at) == token and situation_index(at) == 2
    assert {r["participant"] for r in records(store) if r["kind"] != "visit"} == {token}


def test_starting_over_is_an_explicit_choice_on_the_completion_page(store):
    """Own recruitment: after finishing, the next person on this device starts only by the button."""
    at = finish(give_consent(open_app()))
    first = token_of(at)
    del at.query_params["p"]  # the bare link again, same tab: still the finished participant
    at.run()
    assert token_of(at) == first and shown_code(at)
    at.button(key="start_over").click()
    at.run()
    assert "p" not in at.query_params and at.checkbox(key="consent") is not None
    assert token_of(give_consent(at)) != first
