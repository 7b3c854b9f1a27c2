"""The dialog-level (ACUTE-style) study in a real browser: data/demo-acute on a laptop and a phone.

Four conversation gold pairs, then five pairs of whole conversations: side by side on a laptop,
B below A on a phone, each under its label and fully shown; every page opens at its top even
after the participant scrolled down to Submit; the store holds every vote with its left/right
order; the first pair passes axe-core (no serious or critical violations). Screenshots:
test-artifacts/acute-*.png.
"""

from __future__ import annotations

import json

import pytest

from simulations.browser import (
    DEMO_STUDY,
    DEVICES,
    axe_violations,
    finish_questionnaires,
    open_study,
    scroll_position,
    scroll_to_bottom,
    shot,
    start_after_consent,
    start_server,
    stop_server,
    token_of,
    wait_idle,
)

pytestmark = pytest.mark.e2e
DEMO_ACUTE = DEMO_STUDY.parent / "demo-acute"
TOTAL = 5
CHECK_MARK = "please choose THIS conversation"
TOP_PX = 5  # as tests/e2e/test_participant_ux_e2e.py: "at its top"


@pytest.fixture(scope="module")
def acute_server(tmp_path_factory):
    from simulations.browser import require_chromium

    require_chromium()
    server = start_server(tmp_path_factory.mktemp("e2e-acute"), DEMO_ACUTE)
    yield server
    stop_server(server)


def conversations(page) -> tuple[list[dict], list[str], list[str]]:
    """Boxes, labels and texts of the conversations on the page, top/left first."""
    convs = page.locator(".infact-conversation")
    assert convs.count() == 2
    labels = [t.strip() for t in page.locator(".infact-conversation > .infact-letter").all_inner_texts()]
    return [convs.nth(i).bounding_box() for i in range(2)], labels, convs.all_inner_texts()


def assert_layout(page, side_by_side: bool, where: str) -> list[str]:
    (a, b), labels, texts = conversations(page)
    assert labels == ["Conversation A", "Conversation B"], where
    assert all(t.count("USER:") >= 2 and t.count("CHAT-BOT:") >= 2 for t in texts), f"{where}: a conversation is cut"
    if side_by_side:
        assert b["x"] >= a["x"] + a["width"] - 1 and abs(a["y"] - b["y"]) < 5, f"{where}: not side by side {a} {b}"
    else:
        assert b["y"] >= a["y"] + a["height"] - 1 and b["width"] > 300, f"{where}: not stacked {a} {b}"
    return texts


def at_top(page, where: str) -> None:
    top = scroll_position(page)
    assert top <= TOP_PX, f"{where} opened {top:.0f} px down"


def play(page, url: str, device: str) -> str:
    open_study(page, url)
    start_after_consent(page)
    page.get_by_text("Example 1", exact=True).wait_for()
    wait_idle(page)
    at_top(page, "onboarding")
    token = token_of(page)
    for i, line in enumerate((DEMO_ACUTE / "onboarding.jsonl").read_text().splitlines(), start=1):
        answer = json.loads(line)["answer"]
        page.locator(f".st-key-onboarding-{i}").get_by_text(f"Conversation {answer}", exact=True).click()
    shot(page, f"acute-{device}-onboarding")
    scroll_to_bottom(page)
    page.get_by_role("button", name="Continue to the study").click()
    for n in range(1, TOTAL + 1):
        page.get_by_text(f"Pair of conversations {n} of {TOTAL}", exact=True).wait_for()
        wait_idle(page)
        at_top(page, f"pair {n}")
        texts = assert_layout(page, device == "laptop", f"{device} pair {n}")
        if n == 1:
            shot(page, f"acute-{device}-pair-1-top")
            bad = axe_violations(page, f"acute-{device}-pair-1")
            assert not bad, f"axe-core: serious/critical violations on a pair of conversations: {bad}"
        pick = next((f"Conversation {'AB'[i]}" for i, t in enumerate(texts) if CHECK_MARK in t), "Conversation A")
        for crit in ("engaging", "helpful"):
            page.locator(f'[class*="st-key-pairwise-dialog-"][class*="-{crit}"]').get_by_text(pick, exact=True).click()
        page.get_by_label("Briefly, why? (at least 10 characters)").fill(f"{pick} fits what the user asked for.")
        if n == 1:
            shot(page, f"acute-{device}-pair-1-answered")
        scroll_to_bottom(page)  # the participant scrolled down to Submit: the next pair must still open at its top
        page.get_by_role("button", name="Submit and continue").click()
    page.get_by_role("button", name="Continue", exact=True).wait_for()
    wait_idle(page)
    at_top(page, "questionnaire")
    assert finish_questionnaires(page)
    return token


@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_a_participant_completes_the_acute_study(acute_server, browser, device):
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(60_000)
    try:
        token = play(context.new_page(), acute_server.url, device)
    finally:
        context.close()
    records = acute_server.records(participant=token)
    votes = [r for r in records if r["kind"] == "pairwise_dialog"]
    assert len(votes) == TOTAL
    check = [r for r in votes if r["attention_check"]]
    assert len(check) == 1 and check[0]["attention_passed"] is True
    regular = [r for r in votes if not r["attention_check"]]
    # "Conversation A" every time: the winner is whichever system was shown on the left
    assert all(r["choices"] == dict.fromkeys(("engaging", "helpful"), r["conversations"][0]["system"]) for r in regular)
    assert all(r["justification"] == "Conversation A fits what the user asked for." for r in regular)
    assert next(r for r in records if r["kind"] == "onboarding")["correct"] == 4
    assert any(r["kind"] == "complete" and r["outcome"] == "completed" for r in records)
