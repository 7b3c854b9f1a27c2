"""The conversation protocol in a real browser: data/demo-conversations on a laptop and a phone.

A participant reads four whole conversations; under every chatbot message its two scales, after the
last message three questions about the conversation. On the first page one scale is left empty on
purpose: the refusal names the chatbot message and is in view. The gold conversation (the one that
answers a comedy request with the weather) is answered against its gold answers on purpose: the
participant still completes, and the store holds a failed gold check. On the phone every chatbot
message's scales are right below it, in the same screenful. Screenshots: test-artifacts/conversation-*.png.
"""

from __future__ import annotations

import re

import pytest

from simulations.browser import (
    DEMO_STUDY,
    DEVICES,
    finish_questionnaires,
    open_study,
    scroll_to_bottom,
    shot,
    start_after_consent,
    start_server,
    stop_server,
    token_of,
    wait_idle,
)

pytestmark = pytest.mark.e2e
DEMO = DEMO_STUDY.parent / "demo-conversations"
TOTAL = 4
GOLD_MARK = "The weather in Paris"


@pytest.fixture(scope="module")
def conversation_server(tmp_path_factory):
    from simulations.browser import require_chromium

    require_chromium()
    server = start_server(tmp_path_factory.mktemp("e2e-conversation"), DEMO)
    yield server
    stop_server(server)


def pick(page, key: str, label: str) -> None:
    page.locator(f".st-key-{key}").get_by_text(label, exact=True).click()


def step_name(page) -> str:
    key = next(
        c
        for c in page.locator('[class*="st-key-conversation-"][class*="-t1-relevance"]')
        .first.get_attribute("class")
        .split()
        if c.startswith("st-key-conversation-")
    )
    return re.match(r"st-key-(conversation-\d+)-t1-relevance", key).group(1)


def scales_beside_turns(page, step: str, height: int) -> None:
    """Each chatbot message's scales start right below it and fit in one screenful with its top."""
    for ind in (1, 3, 5):
        turn = page.locator(f'.infact-annotated-turn[data-turn="{ind}"]')
        turn.scroll_into_view_if_needed()
        t = turn.bounding_box()
        for aspect in ("relevance", "interestingness"):
            g = page.locator(f".st-key-{step}-t{ind}-{aspect}").bounding_box()
            assert g["y"] >= t["y"] + t["height"] - 1, f"turn {ind}: {aspect} is above its turn"
            assert g["y"] - (t["y"] + t["height"]) < 200, f"turn {ind}: {aspect} is {g['y'] - t['y']:.0f} px away"
        last = page.locator(f".st-key-{step}-t{ind}-interestingness").bounding_box()
        assert last["y"] + last["height"] - t["y"] <= height, f"turn {ind} and its scales need more than a screen"


def answer(page, step: str, *, gold: bool, skip: str | None = None) -> None:
    for ind in (1, 3, 5):
        for aspect, label in (
            ("relevance", "3 Very relevant" if gold else "2 Relevant"),
            ("interestingness", "1 Somewhat"),
        ):
            key = f"{step}-t{ind}-{aspect}"
            if key != skip:
                pick(page, key, label)
    for aspect in ("understanding", "task_completion", "overall_impression"):
        pick(page, f"{step}-d-{aspect}", "4 Completely" if aspect != "overall_impression" else "4 Excellent")


def submit(page) -> None:
    scroll_to_bottom(page)
    page.get_by_role("button", name="Submit and continue").click()


def play(page, url: str, device: str) -> tuple[str, int]:
    from playwright.sync_api import expect

    open_study(page, url)
    start_after_consent(page)
    gold_at = None
    for n in range(1, TOTAL + 1):
        page.get_by_text(f"Conversation {n} of {TOTAL}", exact=True).wait_for()
        wait_idle(page)
        step = step_name(page)
        is_gold = GOLD_MARK in page.locator(".infact-annotated-turn").all_inner_texts()[1]
        assert page.locator(".infact-annotated-turn").count() == 6  # the whole conversation
        assert page.locator(".infact-annotated-turn .infact-user").count() == 3
        if device == "phone":
            scales_beside_turns(page, step, DEVICES["phone"]["viewport"]["height"])
        if n == 1:
            shot(page, f"conversation-{device}-1")
            answer(page, step, gold=is_gold, skip=f"{step}-t3-relevance")  # message 2 left unanswered
            submit(page)
            error = page.get_by_text("Please rate chatbot message 2: relevance.")
            error.wait_for()
            wait_idle(page)
            expect(error).to_be_in_viewport()
            shot(page, f"conversation-{device}-1-refused")
            pick(page, f"{step}-t3-relevance", "3 Very relevant" if is_gold else "2 Relevant")
        else:
            answer(page, step, gold=is_gold)
        if is_gold:
            gold_at = n
            shot(page, f"conversation-{device}-gold-answered")
        submit(page)
    page.get_by_role("button", name="Continue", exact=True).wait_for()
    wait_idle(page)
    token = token_of(page)
    assert finish_questionnaires(page)
    shot(page, f"conversation-{device}-done")
    return token, gold_at


@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_a_participant_annotates_conversations_and_fails_the_gold_on_purpose(conversation_server, browser, device):
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(60_000)
    try:
        token, gold_at = play(context.new_page(), conversation_server.url, device)
    finally:
        context.close()
    records = conversation_server.records(participant=token)
    annotated = sorted((r for r in records if r["kind"] == "conversation"), key=lambda r: r["index"])
    assert [r["index"] for r in annotated] == [1, 2, 3, 4] and gold_at is not None
    gold = annotated[gold_at - 1]
    assert gold["attention_check"] and gold["attention_passed"] is False
    assert "turn 1 relevance: 3 (gold 0)" in gold["gold_misses"]
    regular = [r for r in annotated if not r["attention_check"]]
    assert all(r["annotations"]["turns"]["3"] == {"relevance": 2, "interestingness": 1} for r in regular)
    assert all(r["annotations"]["dialogue"]["overall_impression"] == 4 for r in regular)
    assert any(r["kind"] == "complete" and r["outcome"] == "completed" for r in records)
