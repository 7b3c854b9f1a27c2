"""The pairwise protocol in a real browser: data/demo-pairwise completed on a laptop and on a phone.

Four onboarding gold pairs first; then two responses side by side on a laptop, stacked (A above B)
on a phone, both labelled; one
choice per situation, the instructed response followed; the store then holds every vote with
its left/right order. Screenshots: test-artifacts/pairwise-*.png.
"""

from __future__ import annotations

import json
import shutil

import pytest

from simulations.browser import (
    DEMO_STUDY,
    finish_questionnaires,
    open_study,
    shot,
    start_after_consent,
    start_server,
    stop_server,
    token_of,
    wait_idle,
)

pytestmark = pytest.mark.e2e
DEMO_PAIRWISE = DEMO_STUDY.parent / "demo-pairwise"
TOTAL = 8
CHECK_MARK = "please choose THIS response"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


@pytest.fixture(scope="module")
def pairwise_server(tmp_path_factory):
    from simulations.browser import require_chromium

    require_chromium()
    server = start_server(tmp_path_factory.mktemp("e2e-pairwise"), DEMO_PAIRWISE)
    yield server
    stop_server(server)


def wait_situation(page, n: int) -> None:
    page.get_by_text(f"Situation {n} of {TOTAL}", exact=True).wait_for()
    wait_idle(page)


def layout(page) -> tuple[dict, dict, list[str], list[str]]:
    """Bounding boxes of responses A and B, their labels and texts."""
    responses = page.locator(".infact-response")
    assert responses.count() == 2
    letters = [t.strip() for t in page.locator(".infact-response .infact-letter").all_inner_texts()]
    texts = responses.locator(".infact-text").all_inner_texts()
    return responses.nth(0).bounding_box(), responses.nth(1).bounding_box(), letters, texts


def play(page, url: str, name: str, *, side_by_side: bool, first_pick: str | None = None) -> str:
    """Complete the study choosing response A (the instructed one on the check); `first_pick` on situation 1."""
    open_study(page, url)
    start_after_consent(page)
    # onboarding: four gold pairs with known answers (3 of 4 needed)
    page.get_by_text("Example 1", exact=True).wait_for()
    wait_idle(page)
    token = token_of(page)  # nothing is stored before consent: the token comes with it
    for i, line in enumerate((DEMO_PAIRWISE / "onboarding.jsonl").read_text().splitlines(), start=1):
        answer = json.loads(line)["answer"]
        page.locator(f".st-key-onboarding-{i}").get_by_text(f"Response {answer}", exact=True).click()
    if name == "phone":
        shot(page, "pairwise-phone-onboarding")
    page.get_by_role("button", name="Continue to the study").click()
    for n in range(1, TOTAL + 1):
        wait_situation(page, n)
        a, b, letters, texts = layout(page)
        assert [x.removeprefix("Response ").strip() for x in letters] == ["A", "B"]
        if side_by_side:
            assert b["x"] >= a["x"] + a["width"] - 1 and abs(a["y"] - b["y"]) < 5
        else:
            assert b["y"] >= a["y"] + a["height"] - 1 and b["width"] > 300
        pick = next((f"Response {'AB'[i]}" for i, t in enumerate(texts) if CHECK_MARK in t), "Response A")
        if n == 1 and first_pick:  # situation 1 is never the check (positions 3 and 6)
            pick = first_pick
        page.locator('[class*="st-key-pairwise-"][class*="-meaningful"]').get_by_text(pick, exact=True).click()
        if n == 1:
            page.get_by_label("Briefly, why? (optional)").fill("It recommends a film that fits.")
            shot(page, f"pairwise-{name}-situation-1")
        page.get_by_role("button", name="Submit and continue").click()
    page.get_by_role("button", name="Continue", exact=True).wait_for()
    wait_idle(page)
    code = finish_questionnaires(page)
    assert code
    shot(page, f"pairwise-{name}-done")
    return token


@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_a_participant_completes_the_pairwise_study(pairwise_server, browser, device):
    options = PHONE if device == "phone" else {"viewport": {"width": 1280, "height": 900}}
    context = browser.new_context(**options)
    context.set_default_timeout(60_000)
    try:
        token = play(context.new_page(), pairwise_server.url, device, side_by_side=device == "laptop")
    finally:
        context.close()
    records = pairwise_server.records(participant=token)
    votes = [r for r in records if r["kind"] == "pairwise"]
    assert len(votes) == TOTAL
    check = [r for r in votes if r["attention_check"]]
    assert len(check) == 1 and check[0]["attention_passed"] is True
    regular = [r for r in votes if not r["attention_check"]]
    # "Response A" every time: the winner is whichever system was shown on the left
    assert all(r["choices"]["meaningful"] == r["responses"][0]["system"] for r in regular)
    assert regular[0]["justification"] == "It recommends a film that fits."
    assert any(r["kind"] == "complete" and r["outcome"] == "completed" for r in records)
    assert next(r for r in records if r["kind"] == "onboarding")["correct"] == 4


@pytest.fixture(scope="module")
def both_bad_server(tmp_path_factory):
    """A copy of the pairwise demo that offers "both bad" (protocol.allow_both_bad)."""
    from simulations.browser import require_chromium

    require_chromium()
    root = tmp_path_factory.mktemp("e2e-pairwise-both-bad")
    study = shutil.copytree(DEMO_PAIRWISE, root / "demo-pairwise-both-bad")
    toml = study / "study.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(
        text.replace('tie_label = "About the same"\n', 'tie_label = "About the same"\nallow_both_bad = true\n')
    )
    assert "allow_both_bad = true" in toml.read_text(encoding="utf-8")
    server = start_server(root / "run", study)
    yield server
    stop_server(server)


def test_both_bad_is_a_fourth_answer_stored_as_its_own_value(both_bad_server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(60_000)
    try:
        token = play(context.new_page(), both_bad_server.url, "both-bad", side_by_side=True, first_pick="Both are bad")
    finally:
        context.close()
    regular = [
        r for r in both_bad_server.records(participant=token) if r["kind"] == "pairwise" and not r["attention_check"]
    ]
    assert regular[0]["choices"]["meaningful"] == "both_bad"
    assert all(r["choices"]["meaningful"] == r["responses"][0]["system"] for r in regular[1:])
