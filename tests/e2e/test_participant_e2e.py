"""A participant in a real browser: the whole demo study, a reload mid-way, refused submits.

Each test uses its own browser context (a new participant); all share one server.
Screenshots of the key steps go to test-artifacts/participant-*.png.
"""

from __future__ import annotations

import pytest

from simulations.browser import (
    DEMO_STUDY,
    complete_participant,
    consent,
    finish_questionnaires,
    open_study,
    rate_all,
    shot,
    situation_view,
    stored_participants,
    submit_situation,
    wait_idle,
    wait_situation,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def app_server(shared_server):
    """The demo as shipped, shared with tests/e2e/test_export_links_e2e.py: it runs bots and signs in
    (one server when both run on one worker)."""
    return shared_server("demo", lambda work: DEMO_STUDY)


def situation_records(server, token: str) -> list[dict]:
    return server.records(participant=token, kind="situation")


def test_complete_study_shows_the_stored_completion_code(app_server, page):
    token, code = complete_participant(page, app_server.url, shots="participant-complete")
    assert page.get_by_text("All your answers are saved.").is_visible()
    [complete] = app_server.records(participant=token, kind="complete")
    assert complete["outcome"] == "completed"
    assert code == complete["completion_code"], "the code on screen differs from the stored one"
    sits = situation_records(app_server, token)
    assert sorted(r["index"] for r in sits) == list(range(1, 11))
    assert all(len(r["responses"]) == 3 and all(x["ratings"] for x in r["responses"]) for r in sits)
    kinds = {r["kind"] for r in app_server.records(participant=token)}
    assert {"arrival", "consent", "assignment", "questionnaire", "demographics", "complete"} <= kinds


def test_reload_midway_resumes_exactly(app_server, page):
    open_study(page, app_server.url)
    token = consent(page)
    for n in range(1, 4):
        rate_all(page)
        submit_situation(page, n)
    before = situation_view(page)
    assert before["progress"] == "Situation 4 of 10"
    shot(page, "participant-reload-before")

    page.reload()
    wait_situation(page, 4)
    after = situation_view(page)
    shot(page, "participant-reload-after")
    assert after == before, "after a reload the participant must see the same situation, dialog and response order"
    assert f"p={token}" in page.url

    for n in range(4, 11):
        rate_all(page)
        submit_situation(page, n)
    code = finish_questionnaires(page)

    sits = situation_records(app_server, token)
    steps = [r["step"] for r in sits]
    keys = [r["key"] for r in app_server.records(participant=token)]
    assert len(keys) == len(set(keys)), "a record was stored twice"
    assert sorted(r["index"] for r in sits) == list(range(1, 11)), f"situations lost or repeated: {steps}"
    assert len({r["situation_id"] for r in sits}) == 10
    [complete] = app_server.records(participant=token, kind="complete")
    assert complete["completion_code"] == code
    # The situation shown at 4 before and after the reload is the one stored at index 4.
    four = next(r for r in sits if r["index"] == 4)
    assert [x["text"] for x in four["responses"]] == before["responses"]


def test_incomplete_situation_is_refused_and_nothing_is_stored(app_server, page):
    open_study(page, app_server.url)
    token = consent(page)
    rate_all(page, letters={"A", "B"})
    page.get_by_role("button", name="Submit and continue").click()
    page.get_by_text("Please rate response C.").wait_for()
    wait_idle(page)
    shot(page, "participant-incomplete-refused")
    assert page.get_by_text("Situation 1 of 10", exact=True).is_visible()
    assert situation_records(app_server, token) == []

    rate_all(page)  # completing the missing rating is enough to go on
    submit_situation(page, 1)
    [stored] = situation_records(app_server, token)
    assert stored["index"] == 1 and all(x["ratings"] for x in stored["responses"])


def test_consent_refusal_shows_the_message(app_server, page):
    before = stored_participants(app_server)
    open_study(page, app_server.url)
    shot(page, "participant-consent")
    page.get_by_role("button", name="Start the study").click()
    page.get_by_text("Please tick the consent box to take part").wait_for()
    wait_idle(page)
    shot(page, "participant-consent-refused")
    assert not page.get_by_text("Situation 1 of 10", exact=True).is_visible()
    assert stored_participants(app_server) == before, "a visit without consent stored a participant"
    assert "p=" not in page.url
