"""Typed text in a real browser (issue 41, item 3): a paste into a live chat and into a pairwise justification is
counted by the page, stored with the answer, and the researcher finds the `pasted_text` flag (for review) and
the pasted share per system on the dashboard's *Typed text* section.

Servers: `data/demo-live` (built-in systems, no network) and a copy of `data/demo-pairwise` without its practice
pairs. Screenshots: test-artifacts/typed-*.png at 1280×900 and 390×844.
"""

from __future__ import annotations

import re

import pytest

from simulations.browser import (
    DEMO_STUDY,
    RESEARCHER_PASSWORD,
    TIMEOUT_MS,
    consent,
    open_study,
    rate_all,
    shot,
    start_after_consent,
    start_server,
    stop_server,
    submit_situation,
    wait_idle,
)
from simulations.study_folders import copy_study

pytestmark = pytest.mark.e2e
DATA = DEMO_STUDY.parent
PASTE = "Could you recommend a tense psychological thriller with a twist ending, ideally from the nineties?"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    from simulations.browser import require_chromium

    require_chromium()
    root = tmp_path_factory.mktemp("e2e-typed")
    pairwise = copy_study(DATA / "demo-pairwise", root / "pairwise", {'onboarding = "onboarding.jsonl"': ""})
    blocked = copy_study(
        DATA / "demo-pairwise",
        root / "blocked",
        {'onboarding = "onboarding.jsonl"': "", "[platform]": "[quality]\nblock_paste = true\n\n[platform]"},
    )
    out = {"live": start_server(root / "live-run", DATA / "demo-live")}
    try:
        out["pairwise"] = start_server(root / "pairwise-run", pairwise)
        out["blocked"] = start_server(root / "blocked-run", blocked)
        yield out
    finally:
        for server in out.values():
            stop_server(server)


@pytest.fixture
def clip_page(browser):
    """A page whose clipboard the test may write, so Ctrl+V is a real paste event with real text."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


def paste_into(page, field, text: str) -> None:
    page.evaluate("t => navigator.clipboard.writeText(t)", text)
    field.click()
    page.keyboard.press("Control+V")


def open_typed_section(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)
    page.goto(f"{url}/researcher")
    page.get_by_label("Password", exact=True).fill(RESEARCHER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("You are signed in.").wait_for()
    wait_idle(page)
    page.get_by_role("link", name=re.compile("Open the dashboard")).click()
    page.get_by_role("heading", name=re.compile("Dashboard")).wait_for()
    wait_idle(page)
    page.locator(".st-key-section").get_by_text("Typed text", exact=True).click()
    page.get_by_text("Flagged for review").wait_for()
    wait_idle(page)


def test_a_paste_into_a_live_chat_is_stored_and_flagged_on_the_dashboard(servers, clip_page, page):
    server, me = servers["live"], clip_page
    open_study(me, server.url)
    token = consent(me, 3)
    for n in range(1, 4):
        rate_all(me)
        if n < 3:
            submit_situation(me, n, 3)
        else:
            me.get_by_role("button", name="Submit and continue").click()
    me.get_by_role("heading", name="Chatbot A", exact=True).wait_for()
    wait_idle(me)
    assert me.get_by_text(re.compile("Do not use AI tools")).is_visible()  # [texts] no_ai_tools, by default
    box = me.get_by_placeholder("Type your message…")
    box.click()
    box.press_sequentially("hi, something scary please", delay=30)
    box.press("Enter")
    me.locator(".infact-chat-bot").nth(0).wait_for()
    wait_idle(me)
    paste_into(me, box, PASTE)
    box.press("Enter")
    me.locator(".infact-chat-bot").nth(1).wait_for()
    wait_idle(me)
    shot(me, "typed-live-chat")
    me.set_viewport_size(PHONE)
    me.get_by_text(re.compile("Do not use AI tools")).scroll_into_view_if_needed()
    shot(me, "typed-live-chat-phone")

    typed, pasted = [r["typing"] for r in server.records(participant=token, kind="chat_message") if r["role"] == "user"]
    assert typed["pasted_chars"] == 0 and typed["keystrokes"] >= len("hi, something scary please")
    assert typed["typing_ms"] > 0 and typed["chars"] == len("hi, something scary please")
    assert pasted["pasted_chars"] == len(PASTE) and pasted["paste_events"] == 1 and pasted["keystrokes"] <= 1

    system = server.records(participant=token, kind="chat_assignment")[0]["systems"][0]
    open_typed_section(page, server.url)
    flags = page.locator(".infact-typed-flags")
    assert token in flags.inner_text() and "pasted_text" in flags.inner_text()
    row = page.locator(".infact-typed-share tr").filter(has_text=system)
    share = len(PASTE) / (len(PASTE) + len("hi, something scary please"))
    assert re.search(rf"\b2\s+1\s+[\d,]+\s+{share:.0%}", row.inner_text()), row.inner_text()
    shot(page, "typed-dashboard")
    page.set_viewport_size(PHONE)
    page.locator(".infact-typed-flags").scroll_into_view_if_needed()
    shot(page, "typed-dashboard-phone")


def first_justification(me, url: str):
    """Consent, then the first comparison with Response A chosen: (token, the justification's text area)."""
    open_study(me, url)
    start_after_consent(me)
    me.wait_for_url(re.compile(r"[?&]p="))
    token = re.search(r"[?&]p=([^&]+)", me.url).group(1)
    why = me.locator(".st-key-pairwise-1-why textarea")
    why.wait_for()
    wait_idle(me)
    me.locator('[class*="st-key-pairwise-1-"]').get_by_text("Response A", exact=True).first.click()
    return token, why


def test_a_paste_into_a_justification_is_stored_and_flagged_on_the_dashboard(servers, clip_page, page):
    server, me = servers["pairwise"], clip_page
    token, why = first_justification(me, server.url)
    paste_into(me, why, PASTE)
    shot(me, "typed-justification")
    me.get_by_role("button", name="Submit and continue").click()
    me.locator(".st-key-pairwise-2-why textarea").wait_for()
    wait_idle(me)
    (rec,) = server.records(participant=token, kind="pairwise")
    assert rec["justification"] == PASTE
    assert rec["justification_typing"]["pasted_chars"] == len(PASTE)
    assert rec["justification_typing"]["paste_events"] == 1

    open_typed_section(page, server.url)
    flags = page.locator(".infact-typed-flags").inner_text()
    assert token in flags and "pasted_text" in flags and "justification" in flags


def test_block_paste_refuses_the_paste_says_so_and_counts_the_attempt(servers, clip_page):
    server, me = servers["blocked"], clip_page
    token, why = first_justification(me, server.url)
    assert me.get_by_text(re.compile("Pasting is turned off here")).is_visible()
    paste_into(me, why, PASTE)
    why.press_sequentially("A names a film", delay=120)
    assert why.input_value() == "A names a film"  # the paste never reached the field
    shot(me, "typed-justification-blocked")
    me.get_by_role("button", name="Submit and continue").click()
    me.locator(".st-key-pairwise-2-why textarea").wait_for()
    wait_idle(me)
    (rec,) = server.records(participant=token, kind="pairwise")
    m = rec["justification_typing"]
    assert rec["justification"] == "A names a film" and m["blocked_pastes"] == 1
    assert m["pasted_chars"] == 0 and m["paste_events"] == 0 and m["keystrokes"] >= len("A names a film")
