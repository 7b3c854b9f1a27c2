"""A live chat with endpoint systems on a phone (390×844): two OpenAI-compatible LLMs (the local
stub, answering as the demo systems) in the arena. The participant sees the answers and never the
hidden system prompt; the store keeps each answer's call record and never the API key.
Screenshots: test-artifacts/live-endpoint-phone-*.png."""

from __future__ import annotations

import re

import pytest

from simulations.browser import DEVICES, TIMEOUT_MS, shot, start_after_consent, start_server, stop_server, wait_idle
from simulations.openai_stub import serve_openai
from tests.support.llm_studies import KEY_ENV, demo_rule, endpoint_live_study

pytestmark = pytest.mark.e2e
KEY = "sk-e2e-phone-31b7c0d9a2"
HIDDEN = "(you recommend movies)"  # part of every endpoint system's system prompt (tests/support/llm_studies.py)


@pytest.fixture(scope="module")
def endpoint_server(tmp_path_factory):
    from simulations.browser import require_chromium

    require_chromium()
    work = tmp_path_factory.mktemp("e2e-live-endpoint")
    with serve_openai(rule=demo_rule) as stub, pytest.MonkeyPatch.context() as mp:
        mp.setenv(KEY_ENV, KEY)  # the app's process reads the key by its name
        study = endpoint_live_study(work / "study", stub.url)
        toml = (study / "study.toml").read_text(encoding="utf-8")
        edits = {
            'systems = ["GenreBot", "RetrievalBot", "PopBot"]': 'systems = ["GenreBot", "PopBot"]',
            "situations_per_participant = 3   # including the attention check": "situations_per_participant = 0",
            "[attention_check]\nenabled = true": "[attention_check]\nenabled = false",
        }
        for old, new in edits.items():
            assert old in toml, f"{old!r} is no longer in data/demo-live/study.toml"
            toml = toml.replace(old, new)
        toml = re.sub(r"\[live\.systems\.RetrievalBot\]\n(?:[^\[\n][^\n]*\n)*", "", toml)
        (study / "study.toml").write_text(toml, encoding="utf-8")
        server = start_server(work, study)
        yield server, stub
        stop_server(server)


def on_screen(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


def say(page, text: str) -> None:
    answers = page.locator(".infact-chat-bot").count()
    box = page.get_by_placeholder("Type your message…")
    box.fill(text)
    box.press("Enter")
    page.wait_for_function("n => document.querySelectorAll('.infact-chat-bot').length > n", arg=answers)
    wait_idle(page)


def test_two_endpoint_systems_chat_on_a_phone(endpoint_server, browser):
    endpoint_server, stub = endpoint_server
    context = browser.new_context(**DEVICES["phone"])
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        page.goto(endpoint_server.url)
        page.get_by_role("button", name="Start the study").wait_for()
        wait_idle(page)
        start_after_consent(page)
        page.wait_for_url(re.compile(r"[?&]p="))
        token = re.search(r"[?&]p=([^&]+)", page.url).group(1)
        for slot, ending in (("A", "I found what I wanted: end the chat"), ("B", "I give up: end the chat")):
            page.get_by_role("heading", name=f"Chatbot {slot}", exact=True).wait_for()
            wait_idle(page)
            say(page, "hi! something scary please")
            say(page, "seen it, anything else?")
            newest = page.locator(".infact-chat-bot").last
            assert newest.inner_text().strip() and on_screen(page, newest), "the newest answer is off screen"
            assert HIDDEN not in page.locator("body").inner_text()  # the system prompt is never shown
            shot(page, f"live-endpoint-phone-chat-{slot}")
            page.get_by_role("button", name=ending).click()
            page.get_by_text(f"About chatbot {slot}").wait_for()
            wait_idle(page)
            for i in range(5):
                page.locator(f'[class*="st-key-live-rubric-{slot}-"]').nth(i).get_by_text("Agree", exact=True).click()
            page.get_by_role("button", name="Continue", exact=True).click()
            page.get_by_text(f"About chatbot {slot}").wait_for(state="detached")
            wait_idle(page)
        page.get_by_text("Which chatbot was better?").wait_for()
        wait_idle(page)
        page.locator(".st-key-live-vote").get_by_text("Chatbot A", exact=True).click()
        shot(page, "live-endpoint-phone-vote")
        page.get_by_role("button", name="Submit my vote").click()
        page.get_by_text("Which chatbot was better?").wait_for(state="detached")
        wait_idle(page)
    finally:
        context.close()
    assert len(stub.requests) == 4 and all(a == f"Bearer {KEY}" for a in stub.auth)
    assert all(r["messages"][0]["role"] == "system" and HIDDEN in r["messages"][0]["content"] for r in stub.requests)
    answers = [r for r in endpoint_server.records(participant=token, kind="chat_message") if r["role"] == "assistant"]
    assert len(answers) == 4 and all(r["error"] is None and r["extra"]["llm"]["model"] == "stub-model" for r in answers)
    [vote] = endpoint_server.records(participant=token, kind="chat_vote")
    assert vote["winner"] in ("GenreBot", "PopBot")
    assert not [p for p in endpoint_server.db.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
