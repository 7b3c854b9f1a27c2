"""What a participant sees on a laptop (1280×900) and a phone (390×844), in a real browser (issue 10).

Each test runs on both window sizes against one server with a short copy of the demo
study (3 situations, the attention check second). Screenshots of every step go to
test-artifacts/ux-<device>-*.png, axe-core reports to test-artifacts/axe-*.json.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from simulations.browser import (
    SCALE,
    answer_all_radios,
    axe_violations,
    click_twice,
    consent,
    open_study,
    rate_all,
    scroll_position,
    scroll_to_bottom,
    shot,
    small_study,
    stored_participants,
    submit_situation,
    token_of,
    wait_idle,
    wait_situation,
)

pytestmark = pytest.mark.e2e
TOTAL = 3
TOP_PX = 5  # "at its top": Streamlit's own header offsets nothing in stMain
SHORT_DEMO = "demo-3-situations-check-2"  # shared_server's name of small_study(per_participant=3, check_at=2)


@pytest.fixture(scope="module")
def ux_server(shared_server):
    """The short demo copy, shared with tests/e2e/test_completion_code_e2e.py when both run on one worker."""
    return shared_server(SHORT_DEMO, lambda work: small_study(work, per_participant=TOTAL, check_at=2))


def submit(page, n: int) -> None:
    submit_situation(page, n, TOTAL)


def radio_boxes(group) -> list[dict]:
    return [o.bounding_box() for o in group.locator('[data-testid="stRadioOption"]').all()]


def assert_scale_order(page, device: str, where: str) -> None:
    """Every scale reads in order: one row left to right (laptop) or one column top to bottom (phone)."""
    groups = page.locator('[data-testid="stForm"] [role="radiogroup"]')
    assert groups.count() > 0
    for i in range(groups.count()):
        boxes = radio_boxes(groups.nth(i))
        if len(boxes) > 5:
            continue  # long option lists (demographics) are a column on every device
        xs, ys = [b["x"] for b in boxes], [b["y"] for b in boxes]
        if device == "laptop":
            assert max(ys) - min(ys) <= 2 and xs == sorted(xs), f"{where}: scale {i} is not one row in order: {boxes}"
        else:
            assert max(xs) - min(xs) <= 2 and ys == sorted(ys), (
                f"{where}: scale {i} is not one column in order: {boxes}"
            )


def assert_accessible(page, name: str) -> None:
    bad = axe_violations(page, name)
    assert not bad, f"axe-core: serious/critical violations on {name}: {bad}"


def check_step(page, device: str, name: str) -> None:
    """At every step: opens at its top, a screenshot, an accessibility scan."""
    top = scroll_position(page)
    shot(page, f"ux-{device}-{name}")
    assert top <= TOP_PX, f"{name} opened {top:.0f} px down on a {device}"
    assert_accessible(page, f"{device}-{name}")


def test_every_step_opens_at_its_top_with_ordered_scales(ux_server, device_page, device):
    page = device_page
    open_study(page, ux_server.url)
    check_step(page, device, "consent")
    scroll_to_bottom(page)
    consent(page, TOTAL)
    for n in range(1, TOTAL + 1):
        check_step(page, device, f"situation-{n}")
        assert_scale_order(page, device, f"situation {n}")
        rate_all(page)
        scroll_to_bottom(page)  # the participant scrolled down to Submit
        submit(page, n)
    check_step(page, device, "questionnaire")
    assert_scale_order(page, device, "questionnaire")
    answer_all_radios(page, "last")
    scroll_to_bottom(page)
    page.get_by_role("button", name="Continue", exact=True).click()
    page.get_by_role("button", name="Finish", exact=True).wait_for()
    wait_idle(page)
    check_step(page, device, "demographics")
    answer_all_radios(page, "first")
    scroll_to_bottom(page)
    page.get_by_role("button", name="Finish", exact=True).click()
    page.get_by_text("All your answers are saved.").wait_for()
    wait_idle(page)
    check_step(page, device, "done")


def test_a_late_second_click_never_lands_on_the_next_page(ux_server, device_page, device):
    page = device_page
    open_study(page, ux_server.url)
    token = consent(page, TOTAL)
    rate_all(page)
    under = click_twice(
        page, page.get_by_role("button", name="Submit and continue"), gap_ms=700, next_marker=f"Situation 2 of {TOTAL}"
    )
    # On the next page's form, a click that is not on a control does nothing; one on a control must be dropped.
    assert not (under["next_page"] and under["in_form"] and under["control"] and not under["guarded"]), (
        f"the second click landed on the next situation's answers: {under}"
    )
    wait_situation(page, 2, TOTAL)
    page.wait_for_timeout(800)  # whatever the second click did has been drawn by now
    wait_idle(page)
    shot(page, f"ux-{device}-late-second-click")
    assert not page.get_by_text(re.compile("Please rate response")).count(), "the second click submitted situation 2"
    assert page.get_by_text(f"Situation 2 of {TOTAL}", exact=True).is_visible()
    steps = [r["step"] for r in ux_server.records(participant=token, kind="situation")]
    assert steps == ["situation-1"]


def test_back_reload_and_reopening_never_start_a_second_participant(ux_server, device_context, device):
    page = device_context.new_page()
    before = stored_participants(ux_server)
    open_study(page, ux_server.url)
    assert stored_participants(ux_server) == before, "a visit without consent stored something"
    token = consent(page, TOTAL)
    rate_all(page)
    submit(page, 1)

    page.go_back()  # to the bare link the study was opened with
    wait_situation(page, 2, TOTAL)
    shot(page, f"ux-{device}-after-back")
    assert stored_participants(ux_server) - before == {token}, "Back started a second participant"
    page.reload()  # a new session on whatever URL Back left
    wait_situation(page, 2, TOTAL)
    page.wait_for_url(re.compile(f"[?&]p={re.escape(token)}"))
    rate_all(page)
    submit(page, 2)  # and the participant goes on as themselves
    assert stored_participants(ux_server) - before == {token}

    again = device_context.new_page()  # the bare link reopened in the same browser
    again.goto(ux_server.url)
    wait_situation(again, 3, TOTAL)
    assert token_of(again) == token
    assert stored_participants(ux_server) - before == {token}


def test_a_stale_second_tab_is_told_and_moves_on(ux_server, device_context, device):
    first = device_context.new_page()
    open_study(first, ux_server.url)
    token = consent(first, TOTAL)
    second = device_context.new_page()
    second.goto(first.url)
    wait_situation(second, 1, TOTAL)

    rate_all(first, "Somewhat meaningful")
    submit(first, 1)
    rate_all(second, "Perfectly meaningful")
    second.get_by_role("button", name="Submit and continue").click()
    second.get_by_text("already answered in another tab", exact=False).wait_for()
    wait_situation(second, 2, TOTAL)
    shot(second, f"ux-{device}-stale-tab")
    [stored] = [r for r in ux_server.records(participant=token, kind="situation") if r["step"] == "situation-1"]
    ratings = {x["ratings"]["meaningful"] for x in stored["responses"] if not x["instructed"]}
    assert ratings == {SCALE.index("Somewhat meaningful") + 1}, "the stale tab overwrote the stored answer"


def test_only_items_are_highlighted_on_the_attention_check(ux_server, device_page, device):
    page = device_page
    open_study(page, ux_server.url)
    consent(page, TOTAL)
    rate_all(page)
    submit(page, 1)  # the check is the second situation
    marks = page.locator("mark.infact-item").all_inner_texts()
    shot(page, f"ux-{device}-attention-check")
    assert '"Meaningless"' not in marks, "the check's instruction is highlighted like a movie title"
    assert '"The Godfather (1972)"' in marks
    assert all(re.search(r"\(\d{4}\)\"$", m) for m in marks), marks


def test_rating_groups_are_named_focus_is_visible_text_is_readable(ux_server, device_page, device):
    page = device_page
    open_study(page, ux_server.url)
    consent(page, TOTAL)
    groups = page.locator('[data-testid="stForm"] [role="radiogroup"]')
    # under load the heading is drawn a moment before the scales: wait for the three (retried), then read them
    expect(groups).to_have_count(3)
    names = groups.evaluate_all("gs => gs.map(g => g.getAttribute('aria-label'))")
    assert len(names) == 3 and len(set(names)) == 3, names
    assert [n.split(":")[0] for n in names] == ["Response A", "Response B", "Response C"], names

    page.locator('[data-testid="stRadioOption"] input').first.focus()
    page.keyboard.press("ArrowRight")
    outline = page.evaluate(
        """() => { const l = document.activeElement.closest('[data-testid="stRadioOption"]');
                                        const s = getComputedStyle(l); """
        "return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"
    )
    assert outline[0] != "none" and outline[1] >= 2, f"keyboard focus is not clearly visible: {outline}"

    if device == "phone":
        sizes = page.evaluate(
            """() => [...document.querySelectorAll(
            '.infact-text, [data-testid="stRadioOption"] p, [data-testid="stWidgetLabel"] p, """
            """[data-testid="stMarkdownContainer"] p')]
            .filter(e => e.offsetParent).map(e => parseFloat(getComputedStyle(e).fontSize))"""
        )
        assert sizes and min(sizes) >= 16, f"body text below 16 px on a phone: {sorted(set(sizes))}"
        title = page.locator("h1").first.bounding_box()
        assert title["y"] + title["height"] <= 844 * 0.15, f"the title takes {title} of the first screen"
