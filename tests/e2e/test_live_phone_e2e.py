"""The live step on a phone (390×844) with one system that fails: the calm message, Try again and
Skip are on screen, nothing typed is lost, the working chat survives a reload, and the vote
page says the failing system never answered, offers no comparison and stores the forfeit.
Screenshots: test-artifacts/live-phone-*.png."""

from __future__ import annotations

import re
import time

import pytest

from simulations.browser import (
    DEMO_STUDY,
    DEVICES,
    TIMEOUT_MS,
    scroll_position,
    shot,
    start_after_consent,
    start_server,
    stop_server,
    wait_idle,
)
from simulations.chat_stub import serve
from tests.support.studies import copy_study

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def flaky_server(tmp_path_factory):
    """A live-only copy of data/demo-live: GenreBot (built in) and FlakyBot (HTTP 500 every time)."""
    from simulations.browser import require_chromium

    require_chromium()
    work = tmp_path_factory.mktemp("e2e-live-phone")
    with serve("error") as stub:
        edits = {
            'systems = ["GenreBot", "RetrievalBot", "PopBot"]': 'systems = ["GenreBot", "FlakyBot"]',
            "situations_per_participant = 3   # including the attention check": "situations_per_participant = 0",
            "[attention_check]\nenabled = true": "[attention_check]\nenabled = false",
            '[live.systems.RetrievalBot]\ncallable = "infact.chat.demo_systems:retrieval_bot"\n': "",
            '[live.systems.PopBot]\ncallable = "infact.chat.demo_systems:popular_recommender"\n': (
                f'[live.systems.FlakyBot]\nurl = "{stub.url}"\ntimeout_s = 5\n'
            ),
        }
        study = copy_study(DEMO_STUDY.parent / "demo-live", work / "study", edits)  # the live demo, one system failing
        server = start_server(work, study)
        yield server
        stop_server(server)


def on_screen(page, locator) -> bool:
    """Entirely inside the phone's viewport, without scrolling."""
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


def say(page, text: str) -> None:
    answers = page.locator(".infact-chat-bot").count()
    box = page.get_by_placeholder("Type your message…")
    box.fill(text)
    box.press("Enter")
    page.get_by_text(text, exact=True).wait_for()
    page.wait_for_function(
        "n => document.querySelectorAll('.infact-chat-bot').length > n "
        "|| document.body.innerText.includes('did not answer')",
        arg=answers,
    )
    wait_idle(page)


def test_a_failing_system_and_a_working_one_on_a_phone(flaky_server, browser):
    context = browser.new_context(**DEVICES["phone"])
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        page.goto(flaky_server.url)
        page.get_by_role("button", name="Start the study").wait_for()
        wait_idle(page)
        start_after_consent(page)
        page.wait_for_url(re.compile(r"[?&]p="))
        token = re.search(r"[?&]p=([^&]+)", page.url).group(1)
        for slot in "AB":
            page.get_by_role("heading", name=f"Chatbot {slot}", exact=True).wait_for()
            wait_idle(page)
            say(page, f"hi {slot}! something scary please")
            if page.get_by_text("The chatbot did not answer this time.").count():
                _fail_then_skip(page, flaky_server, token, slot)
            else:
                _chat_reload_and_end(page, slot)
        # FlakyBot never answered: the vote page says so and asks no comparison (docs/live.md).
        page.get_by_text("There is nothing to compare", exact=True).wait_for()
        wait_idle(page)
        systems = flaky_server.records(participant=token, kind="chat_assignment")[0]["systems"]
        flaky, working = ("AB"[systems.index(s)] for s in ("FlakyBot", "GenreBot"))
        note = page.get_by_text(f"Chatbot {flaky} never answered, and you skipped it")
        assert note.is_visible() and on_screen(page, note)
        assert not page.get_by_role("radio").count()  # nothing offered as if it had chatted
        assert page.get_by_text(f"Chatbot {working}: read the conversation again").is_visible()
        assert not page.get_by_text(f"Chatbot {flaky}: read the conversation again").count()
        assert page.get_by_text("Step 5 of 5: Your vote", exact=True).is_visible()
        shot(page, "live-phone-vote")
        page.get_by_role("button", name="Continue", exact=True).click()
        page.get_by_text("There is nothing to compare", exact=True).wait_for(state="detached")
        wait_idle(page)
        [vote] = flaky_server.records(participant=token, kind="chat_vote")
        assert vote["winner"] == "GenreBot" and vote["skipped"] == ["FlakyBot"]
        assert vote["choice"] is None and vote["forfeit"] is True
    finally:
        context.close()


def _fail_then_skip(page, server, token: str, slot: str) -> None:
    """HTTP 500: the message stays, the choices are on screen, Try again asks again, Skip moves on."""
    assert page.get_by_text(f"hi {slot}! something scary please").is_visible()
    retry, skip = (page.get_by_role("button", name=n) for n in ("Try again", "Skip this chatbot"))
    assert on_screen(page, retry) and on_screen(page, skip)
    assert page.get_by_text("Your conversation is saved").is_visible()
    shot(page, "live-phone-failure")
    retry.click()

    def attempts() -> int:
        return sum(
            1
            for r in server.records(participant=token, kind="chat_message")
            if r.get("slot") == slot and r["role"] == "assistant"
        )

    deadline = time.monotonic() + 30
    while attempts() < 2 and time.monotonic() < deadline:  # the second attempt is stored …
        time.sleep(0.1)
    page.get_by_text("The chatbot did not answer this time.").wait_for()  # … and said again
    wait_idle(page)
    page.get_by_role("button", name="Skip this chatbot").click()
    page.get_by_role("heading", name=f"Chatbot {slot}", exact=True).wait_for(state="detached")
    wait_idle(page)
    mine = [r for r in server.records(participant=token) if r.get("slot") == slot]
    failed = [r for r in mine if r["kind"] == "chat_message" and r["role"] == "assistant"]
    assert [r["error"]["kind"] for r in failed] == ["http_status", "http_status"]  # both attempts stored
    assert [r["ended_by"] for r in mine if r["kind"] == "chat_end"] == ["skipped"]
    assert [r["text"] for r in mine if r.get("role") == "user"] == [f"hi {slot}! something scary please"]


def _chat_reload_and_end(page, slot: str) -> None:
    """Two turns, a reload in the middle, the newest answer on screen, then the rubric."""
    say(page, "seen it, anything else?")
    page.reload()
    page.get_by_role("heading", name=f"Chatbot {slot}", exact=True).wait_for()
    wait_idle(page)
    bubbles = page.locator(".infact-chat-turn")
    assert bubbles.count() == 4
    say(page, "and a comedy?")
    assert on_screen(page, bubbles.last), "the newest answer is below the fold on a phone"
    assert on_screen(page, page.get_by_placeholder("Type your message…"))
    shot(page, "live-phone-chat")
    page.get_by_role("button", name="I found what I wanted: end the chat").click()
    page.get_by_text(f"About chatbot {slot}").wait_for()
    wait_idle(page)
    assert scroll_position(page) < 40, "the rubric opened scrolled down where the chat ended"
    assert on_screen(page, page.get_by_text(f"Rate chatbot {slot}"))
    for i in range(5):
        page.locator(f'[class*="st-key-live-rubric-{slot}-"]').nth(i).get_by_text("Agree", exact=True).click()
    page.get_by_role("button", name="Continue", exact=True).click()
    page.get_by_text(f"About chatbot {slot}").wait_for(state="detached")
    wait_idle(page)
