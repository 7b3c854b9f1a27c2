"""The live step with slow systems, at 1280×900 and 390×844 (issue 19, points 1–3).

Two stub systems on 127.0.0.1 speak the chat contract: SlowBot answers every message after
2.5 s; StallBot overruns its 2 s `timeout_s` on a conversation's first message (it would answer
after 15 s), then answers in 1.2 s. What a person sees is asserted:

- after Enter their own message stays on screen with "The chatbot is typing…", and the chat
  input is disabled, until the slow answer arrives;
- StallBot's timeout message ("…taking too long…") shows at its timeout, not before, and instead of the
  stalled system's answer (which would come after 15 s); Try again then gets one, and
  while it is asked the timeout message and its buttons are gone from beside "typing…" (issue 29);
- every screen of the live step says where the participant is ("Step 2 of 5: …");
- each screen opens at its top: on a phone the vote page, taller than the screen, at scroll position 0 from its
  first appearance (it kept rubric B's scroll position and opened scrolled down);
- the vote page lets each conversation be opened again, its movie titles highlighted.

Screenshots: test-artifacts/live-slow-<page>-<device>.png.
"""

from __future__ import annotations

import re
import shutil
import time

import pytest

from simulations.browser import (
    DEMO_STUDY,
    scroll_position,
    shot,
    start_after_consent,
    start_server,
    stop_server,
    wait_idle,
)
from simulations.chat_stub import serve

pytestmark = pytest.mark.e2e
SLOW_S, TIMEOUT_S, STALL_S, RETRY_S = 2.5, 2.0, 15.0, 1.2
INPUT = "Type your message…"


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory):
    """A live-only copy of data/demo-live whose two systems are the stubs."""
    from simulations.browser import require_chromium

    require_chromium()
    work = tmp_path_factory.mktemp("e2e-live-slow")
    study = work / "study"
    shutil.copytree(DEMO_STUDY.parent / "demo-live", study)
    with serve("normal", delay_s=SLOW_S) as slow, serve("normal", delay_s=RETRY_S, first_delay_s=STALL_S) as stall:
        toml = (study / "study.toml").read_text(encoding="utf-8")
        systems = (
            f'[live.systems.SlowBot]\nurl = "{slow.url}"\ntimeout_s = 15\n\n'
            f'[live.systems.StallBot]\nurl = "{stall.url}"\ntimeout_s = {TIMEOUT_S}\n'
        )
        edits = {
            'systems = ["GenreBot", "RetrievalBot", "PopBot"]': 'systems = ["SlowBot", "StallBot"]',
            "situations_per_participant = 3   # including the attention check": "situations_per_participant = 0",
            "[attention_check]\nenabled = true": "[attention_check]\nenabled = false",
            toml[toml.index("[live.systems.GenreBot]") : toml.index("[texts]")]: systems + "\n",
        }
        for old, new in edits.items():
            assert old in toml, f"{old!r} is no longer in data/demo-live/study.toml"
            toml = toml.replace(old, new)
        (study / "study.toml").write_text(toml, encoding="utf-8")
        server = start_server(work, study)
        yield server
        stop_server(server)


def progress_shown(page, text: str) -> None:
    line = page.locator(".infact-progress-text")
    line.wait_for()
    assert line.inner_text() == text
    assert page.get_by_role("progressbar").is_visible()


TALLER = """() => { const m = document.querySelector('[data-testid="stMain"]');
    return m.scrollHeight > m.clientHeight + 100; }"""


def opens_at_top(page) -> bool:
    """The screen's top (its step line) is in view: at most a few pixels scrolled (7 px seen on a phone)."""
    box = page.locator(".infact-progress-text").bounding_box()
    return scroll_position(page) < 40 and box is not None and box["y"] >= 0


def send_and_watch_waiting(page, text: str, device: str, name: str) -> float:
    """Enter a message; while the system thinks: the message, the typing state, a disabled input."""
    box = page.get_by_placeholder(INPUT)
    box.fill(text)
    box.press("Enter")
    start = time.monotonic()
    typing = page.locator(".infact-typing")
    typing.wait_for(timeout=5_000)
    assert typing.inner_text() == "The chatbot is typing…"
    mine = page.locator(".infact-chat-user").filter(has_text=text)
    assert mine.is_visible(), "the participant's own message is not on screen while the chatbot thinks"
    assert page.get_by_placeholder(INPUT).is_disabled(), "the chat input is enabled while the chatbot thinks"
    shot(page, f"live-slow-{name}-{device}")
    assert typing.is_visible() and mine.is_visible()  # still there after the screenshot
    return start


def answers(page) -> int:
    return page.locator(".infact-chat-bot").count()


def wait_answer(page, n: int) -> None:
    page.wait_for_function("n => document.querySelectorAll('.infact-chat-bot').length >= n", arg=n)
    page.locator(".infact-typing").wait_for(state="detached")
    wait_idle(page)


def chat_with_slowbot(page, device: str) -> None:
    start = send_and_watch_waiting(page, "something funny please", device, "waiting")
    wait_answer(page, 1)
    assert time.monotonic() - start >= SLOW_S - 0.2
    assert page.locator(".infact-chat-user").filter(has_text="something funny please").is_visible()
    assert page.get_by_placeholder(INPUT).is_enabled()


def chat_with_stallbot(page, device: str) -> None:
    start = send_and_watch_waiting(page, "a scary one please", device, "stall-waiting")
    message = page.get_by_text("The chatbot is taking too long to answer.")
    message.wait_for()  # waited for, the stalled system's answer would have come instead (after STALL_S)
    took = time.monotonic() - start
    assert TIMEOUT_S - 0.2 <= took, f"the timeout message came after {took:.1f} s, before timeout_s"
    assert not answers(page) and not page.get_by_text("did not answer").count()
    wait_idle(page)
    assert page.locator(".infact-chat-user").filter(has_text="a scary one please").is_visible()
    shot(page, f"live-slow-timeout-{device}")
    page.get_by_role("button", name="Try again").click()
    page.locator(".infact-typing").wait_for()
    assert page.get_by_placeholder(INPUT).is_disabled()
    # While the system is asked again (RETRY_S), nothing of the failed attempt stays beside "typing…".
    assert page.locator(".infact-typing").is_visible()
    assert not message.count() and not page.get_by_role("button", name="Try again").count()
    assert not page.get_by_role("button", name="Skip this chatbot").count()
    wait_answer(page, 1)
    assert not message.count()


def rubric(page, slot: str, n: int, device: str) -> None:
    page.get_by_text(f"About chatbot {slot}").wait_for()
    wait_idle(page)
    progress_shown(page, f"Step {n} of 5: Rate chatbot {slot}")
    if slot == "A":
        shot(page, f"live-slow-rubric-{device}")
    for i in range(5):
        page.locator(f'[class*="st-key-live-rubric-{slot}-"]').nth(i).get_by_text("Agree", exact=True).click()
    page.get_by_role("button", name="Continue", exact=True).click()
    page.get_by_text(f"About chatbot {slot}").wait_for(state="detached")
    wait_idle(page)


def reopen_both(page, device: str) -> None:
    """Each conversation opens again from the vote page, as it was, titles highlighted."""
    for slot in "AB":
        header = page.get_by_text(f"Chatbot {slot}: read the conversation again")
        assert header.is_visible()
        chat = page.locator(f'.infact-chat[aria-label="Conversation with chatbot {slot}"]')
        assert not chat.is_visible()  # closed until asked
        header.click()
        chat.wait_for()
        assert chat.locator(".infact-chat-user").count() == 1 and chat.locator(".infact-chat-bot").count() == 1
        assert chat.locator("mark.infact-item").first.inner_text() == '"Up (2009)"'
    page.wait_for_function("""() => {  // opened all the way (the expander animates)
        const c = document.querySelector('.infact-chat[aria-label$="chatbot B"]'), d = c && c.closest('details');
        return d && d.getBoundingClientRect().bottom >= c.getBoundingClientRect().bottom; }""")
    shot(page, f"live-slow-vote-{device}")


def test_slow_and_stalling_systems(slow_server, device_page, device):
    page = device_page
    page.goto(slow_server.url)
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)
    start_after_consent(page)
    page.wait_for_url(re.compile(r"[?&]p="))
    token = re.search(r"[?&]p=([^&]+)", page.url).group(1)
    for n, slot in ((1, "A"), (3, "B")):
        page.get_by_role("heading", name=f"Chatbot {slot}", exact=True).wait_for()
        wait_idle(page)
        progress_shown(page, f"Step {n} of 5: Chat with chatbot {slot}")
        assert opens_at_top(page), "the chat opened scrolled down (the rubric's Continue is low)"
        systems = slow_server.records(participant=token, kind="chat_assignment")[0]["systems"]
        if systems["AB".index(slot)] == "SlowBot":
            chat_with_slowbot(page, device)
        else:
            chat_with_stallbot(page, device)
        assert page.locator(".infact-chat-bot mark.infact-item").first.inner_text() == '"Up (2009)"'
        shot(page, f"live-slow-chat-{slot}-{device}")
        page.get_by_role("button", name="I found what I wanted: end the chat").click()
        rubric(page, slot, n + 1, device)
    page.get_by_text("Which chatbot was better?").wait_for()
    first = scroll_position(page)  # the vote's first appearance: at its top, not where rubric B's Continue was
    wait_idle(page)
    progress_shown(page, "Step 5 of 5: Your vote")
    assert first == 0 and opens_at_top(page), f"the vote opened scrolled down ({first:.0f} px at first)"
    if device == "phone":  # taller than the phone's screen: it could have opened scrolled down
        assert page.evaluate(TALLER), "the vote fits the phone's screen: its opening at the top proves nothing"
    reopen_both(page, device)
    page.locator(".st-key-live-vote").get_by_text("Chatbot A", exact=True).click()
    page.get_by_role("button", name="Submit my vote").click()
    page.get_by_text("Which chatbot was better?").wait_for(state="detached")
    wait_idle(page)
    [vote] = slow_server.records(participant=token, kind="chat_vote")
    assert vote["choice"] == "A" and vote["winner"] == systems[0] and not vote["skipped"]
    errors = [r["error"]["kind"] for r in slow_server.records(participant=token, kind="chat_message") if r.get("error")]
    assert errors == ["timeout"]
