"""The live step in a real browser: chat with two systems (3 turns each), reload mid-chat, rubric, vote.

The server runs `data/demo-live` (built-in systems, no network). Screenshots:
test-artifacts/live-*.png.
"""

from __future__ import annotations

import shutil

import pytest

from simulations.browser import (
    DEMO_STUDY,
    consent,
    open_study,
    rate_all,
    shot,
    start_server,
    stop_server,
    submit_situation,
    wait_idle,
)

pytestmark = pytest.mark.e2e
DEMO_LIVE = DEMO_STUDY.parent / "demo-live"
RUBRIC_ITEMS = 5  # the default rubric


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    from simulations.browser import require_chromium

    require_chromium()
    server = start_server(tmp_path_factory.mktemp("e2e-live"), DEMO_LIVE)
    yield server
    stop_server(server)


def say(page, text: str, answers_before: int) -> None:
    box = page.get_by_placeholder("Type your message…")
    box.fill(text)
    box.press("Enter")
    page.locator(".infact-chat-bot").nth(answers_before).wait_for()
    wait_idle(page)


def rubric(page, slot: str, label: str) -> None:
    for i in range(RUBRIC_ITEMS):
        page.locator(f'[class*="st-key-live-rubric-{slot}-"]').nth(i).get_by_text(label, exact=True).click()
    page.get_by_role("button", name="Continue", exact=True).click()


def test_two_chats_reload_rubric_and_vote(live_server, page):
    open_study(page, live_server.url)
    n_situations = 3
    token = consent(page, n_situations)  # nothing is stored before consent: the token comes with it
    for n in range(1, n_situations + 1):
        rate_all(page)
        if n < n_situations:
            submit_situation(page, n, n_situations)
        else:
            page.get_by_role("button", name="Submit and continue").click()
    page.get_by_role("heading", name="Chatbot A", exact=True).wait_for()
    wait_idle(page)
    say(page, "hi! something scary please", 0)
    say(page, "seen it, anything else?", 1)
    shot(page, "live-chat-a")
    page.reload()  # mid-chat: the conversation comes back
    page.get_by_role("heading", name="Chatbot A", exact=True).wait_for()
    wait_idle(page)
    assert page.locator(".infact-chat-turn").count() == 4
    assert page.get_by_text("hi! something scary please").is_visible()
    say(page, "great, thank you", 2)
    page.get_by_role("button", name="I found what I wanted: end the chat").click()
    page.get_by_text("About chatbot A").wait_for()
    wait_idle(page)
    rubric(page, "A", "Agree")
    page.get_by_role("heading", name="Chatbot B", exact=True).wait_for()
    wait_idle(page)
    for n, text in enumerate(("a funny movie please", "something else funny", "ok")):
        say(page, text, n)
    page.get_by_role("button", name="I give up: end the chat").click()
    page.get_by_text("About chatbot B").wait_for()
    wait_idle(page)
    rubric(page, "B", "Disagree")
    page.get_by_text("Which chatbot was better?").wait_for()
    wait_idle(page)
    page.locator(".st-key-live-vote").get_by_text("Chatbot A", exact=True).click()
    page.locator(".st-key-live-vote-reason textarea").fill("A understood me")
    shot(page, "live-vote")
    page.get_by_role("button", name="Submit my vote").click()
    page.get_by_role("button", name="Continue", exact=True).wait_for()  # the questionnaire
    wait_idle(page)
    [vote] = live_server.records(participant=token, kind="chat_vote")
    systems = live_server.records(participant=token, kind="chat_assignment")[0]["systems"]
    assert vote["winner"] == systems[0] and vote["justification"] == "A understood me"
    users = [r for r in live_server.records(participant=token, kind="chat_message") if r["role"] == "user"]
    assert len(users) == 6
    assert {r["slot"]: r["ended_by"] for r in live_server.records(participant=token, kind="chat_end")} == {
        "A": "satisfied",
        "B": "frustrated",
    }
    assert live_server.records(participant=token, kind="live")


@pytest.fixture(scope="module")
def both_bad_server(tmp_path_factory):
    """A copy of the live demo whose arena vote offers "both bad" (live.allow_both_bad)."""
    from simulations.browser import require_chromium

    require_chromium()
    root = tmp_path_factory.mktemp("e2e-live-both-bad")
    study = shutil.copytree(DEMO_LIVE, root / "demo-live-both-bad")
    toml = study / "study.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace("allow_tie = true\n", "allow_tie = true\nallow_both_bad = true\n", 1))
    assert "allow_both_bad = true" in toml.read_text(encoding="utf-8")
    server = start_server(root / "run", study)
    yield server
    stop_server(server)


def test_the_arena_vote_offers_both_bad(both_bad_server, page):
    open_study(page, both_bad_server.url)
    n_situations = 3
    token = consent(page, n_situations)
    for n in range(1, n_situations + 1):
        rate_all(page)
        if n < n_situations:
            submit_situation(page, n, n_situations)
        else:
            page.get_by_role("button", name="Submit and continue").click()
    for slot in ("A", "B"):
        page.get_by_role("heading", name=f"Chatbot {slot}", exact=True).wait_for()
        wait_idle(page)
        say(page, "a funny movie please", 0)
        page.get_by_role("button", name="I give up: end the chat").click()
        page.get_by_text(f"About chatbot {slot}").wait_for()
        wait_idle(page)
        rubric(page, slot, "Disagree")
    page.get_by_text("Which chatbot was better?").wait_for()
    wait_idle(page)
    page.locator(".st-key-live-vote").get_by_text("Both were bad", exact=True).click()
    shot(page, "live-vote-both-bad")
    page.get_by_role("button", name="Submit my vote").click()
    page.get_by_role("button", name="Continue", exact=True).wait_for()
    [vote] = both_bad_server.records(participant=token, kind="chat_vote")
    assert (vote["winner"], vote["choice"]) == ("both_bad", "both_bad")
