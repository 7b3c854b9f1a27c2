"""The German and the Arabic demo (data/demo-de, data/demo-ar) walked in a real browser from consent to the
completion page, on a laptop (1280×900) and a phone (390×844), a screenshot of every page in
test-artifacts/ (lang-<code>-<device>-<page>.png). Every label the walk presses or reads is the catalogue's
translation; the Arabic page is drawn right to left (its scales run from the right), the German one left to
right (issue 41, item 1)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from infact.text import catalogue
from simulations.browser import ARTIFACTS, DEVICES, TIMEOUT_MS, wait_idle
from tests.support.paths import REPO
from tests.support.studies import copy_study

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
LANGUAGES = ["de", "ar"]
TOTAL = 4  # situations per participant in both demos


def tr(code: str, message: str) -> str:
    """The catalogue's translation of `message` in language `code` (what the page must show)."""
    catalogue.use(code)
    try:
        return catalogue._(message)
    finally:
        catalogue.use(catalogue.SOURCE)


def shoot(page, code: str, device: str, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    wait_idle(page)
    page.screenshot(path=str(ARTIFACTS / f"lang-{code}-{device}-{name}.png"))


def situation(code: str, n: int) -> str:
    return tr(code, "Situation {n} of {total}").format(n=n, total=TOTAL)


def rate(page, code: str) -> None:
    """Every response of the situation on screen: the instructed one as it asks, the others 'Somewhat'."""
    check = tr(code, 'I am reading this carefully, and I give a rating of "Meaningless" to this response.')
    for card in page.locator(".infact-response").all():
        letter = card.locator(".infact-letter").inner_text().strip()[-1]
        label = "Meaningless" if check in card.locator(".infact-text").inner_text() else "Somewhat meaningful"
        group = page.locator(f'[class*="st-key-situation-"][class*="-{letter}-meaningful"]')
        group.get_by_text(tr(code, label), exact=True).click()


def answer_every_radio(page, pick: str) -> None:
    groups = page.locator('[data-testid="stForm"] [role="radiogroup"]')
    for i in range(groups.count()):
        options = groups.nth(i).locator('[data-testid="stRadioOption"]')
        (options.first if pick == "first" else options.last).click()


def mirrored(page) -> bool:
    """Whether the first option of the first horizontal scale is drawn right of the second."""
    options = page.locator('[role="radiogroup"][aria-orientation="horizontal"]').first.locator(
        '[data-testid="stRadioOption"]'
    )
    first, second = options.nth(0).bounding_box(), options.nth(1).bounding_box()
    return first["x"] > second["x"]


@pytest.fixture(params=LANGUAGES)
def demo(request, shared_server):
    code = request.param
    server = shared_server(f"lang-{code}", lambda work: copy_study(REPO / "data" / f"demo-{code}", work / "study"))
    return code, server


@pytest.mark.parametrize("device", list(DEVICES))
def test_a_participant_walks_the_demo_in_its_language(browser, demo, device):
    code, server = demo
    context = browser.new_context(**DEVICES[device])
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        page.goto(server.url)
        start = page.get_by_role("button", name=tr(code, "Start the study"))
        start.wait_for()
        direction = page.locator('[data-testid="stMain"]').evaluate("e => getComputedStyle(e).direction")
        assert direction == catalogue.direction(code)
        shoot(page, code, device, "1-consent")
        box = page.get_by_role("checkbox").first
        box.scroll_into_view_if_needed()
        page.locator('[data-testid="stCheckbox"] label').first.click()
        expect(box).to_be_checked()
        wait_idle(page)
        start.click()
        page.wait_for_url(re.compile(r"[?&]p="))
        for n in range(1, TOTAL + 1):
            page.get_by_text(situation(code, n), exact=True).wait_for()
            wait_idle(page)
            if n == 1:
                shoot(page, code, device, "2-situation")
                assert mirrored(page) == (code == "ar") or device == "phone"  # a phone stacks the options
            rate(page, code)
            if n == 1:
                page.get_by_role("button", name=tr(code, "Submit and continue")).scroll_into_view_if_needed()
                shoot(page, code, device, "3-situation-rated")
            page.get_by_role("button", name=tr(code, "Submit and continue")).click()
        page.get_by_role("button", name=tr(code, "Continue"), exact=True).wait_for()
        shoot(page, code, device, "4-questionnaire")
        answer_every_radio(page, "last")
        page.get_by_role("button", name=tr(code, "Continue"), exact=True).click()
        page.get_by_role("button", name=tr(code, "Finish"), exact=True).wait_for()
        shoot(page, code, device, "5-demographics")
        answer_every_radio(page, "first")
        page.get_by_role("button", name=tr(code, "Finish"), exact=True).click()
        page.get_by_text(tr(code, "All your answers are saved.")).wait_for()
        page.locator('[data-testid="stCode"]').wait_for()  # the completion code
        assert page.get_by_text(tr(code, "**Your completion code**").strip("*"), exact=True).count() == 1
        shoot(page, code, device, "6-done")
        page.get_by_text(tr(code, "Withdraw from the study")).wait_for(state="detached")  # gone once done
    finally:
        context.close()


def test_the_withdraw_panel_in_arabic_on_a_phone(browser, shared_server):
    server = shared_server("lang-ar", lambda work: copy_study(REPO / "data" / "demo-ar", work / "study"))
    context = browser.new_context(**DEVICES["phone"])
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        page.goto(server.url)
        page.get_by_role("button", name=tr("ar", "Start the study")).wait_for()
        wait_idle(page)
        panel = page.locator(".st-key-infact-withdraw summary")
        expect(panel).to_contain_text(tr("ar", "Withdraw from the study"))
        panel.scroll_into_view_if_needed()
        panel.click()
        page.get_by_text(re.compile("لم تبدأ بعد")).wait_for()
        shoot(page, "ar", "phone", "7-withdraw-panel")
    finally:
        context.close()
