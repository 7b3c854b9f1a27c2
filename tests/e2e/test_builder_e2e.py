"""The study builder in a real browser, as a new researcher uses it: sign in, upload a CSV of dialogs, see a
problem, fix it, preview the participant's page, save the folder, and run the saved study; then the pairwise
variant of the same table. Screenshots at 1280×900 and 390×844 (test-artifacts/builder-*.png)."""

from __future__ import annotations

import hashlib
import re
import time

import pytest

from infact.study.loader import load_study
from simulations.browser import DEVICES, RESEARCHER_PASSWORD, shot, start_server, stop_server, wait_idle
from tests.support.paths import REPO

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
TABLE = REPO / "tests" / "fixtures" / "table" / "movie_dialogs.csv"
DIGEST = hashlib.sha256(TABLE.read_bytes()).hexdigest()[:8]  # the form of this table: builder:<protocol>-<digest>:…


def _sign_in_and_open_builder(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)
    page.goto(f"{url}/researcher")
    page.get_by_label("Password", exact=True).fill(RESEARCHER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("You are signed in.").wait_for()
    wait_idle(page)
    page.get_by_role("link", name=re.compile("Build a new study")).click()
    page.get_by_role("heading", name="Study builder").wait_for()
    wait_idle(page)


def _field(page, key: str):
    """A builder widget by its key (Streamlit's `st-key-…` class; ':' and '.' are not kept in it)."""
    return page.locator(f".st-key-{re.sub(r'[^A-Za-z0-9_-]', '-', key)}")


def _fill(page, key: str, text: str) -> None:
    box = _field(page, key).locator("textarea, input").first
    box.fill(text)
    box.press("Tab")  # a text area takes effect when it loses focus
    wait_idle(page)


def _choose(page, key: str, option: str) -> None:
    wait_idle(page)
    box = _field(page, key).get_by_role("combobox")
    box.click()
    box.fill(option)  # a select box filters its options as one types
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = start_server(tmp_path_factory.mktemp("e2e-builder"))
    yield srv
    stop_server(srv)


def test_from_a_csv_to_a_running_study_and_its_pairwise_variant(browser, server, tmp_path):
    started = time.monotonic()
    context = browser.new_context(**DEVICES["laptop"])
    page = context.new_page()
    page.set_default_timeout(60_000)
    _sign_in_and_open_builder(page, server.url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(TABLE))
    page.get_by_text("6 situations from").wait_for()
    page.get_by_text("The study is ready to run").wait_for()
    wait_idle(page)
    shot(page, "builder-laptop")
    # a problem: the scale no longer has the attention check's label; shown with the fix, nothing to save
    _fill(page, f"builder:ratings-{DIGEST}:scale.labels", "Bad\nOkay\nGood")
    page.get_by_text(re.compile("problem\\(s\\)")).wait_for()
    assert page.get_by_text(re.compile("attention_check.expected")).count()
    assert page.get_by_role("button", name="Save", exact=True).count() == 0
    shot(page, "builder-problem-laptop")
    # fixed
    _fill(page, f"builder:ratings-{DIGEST}:attention_check.expected", "Bad")
    _fill(page, f"builder:ratings-{DIGEST}:attention_check.text", "Please choose Bad for this response.")
    page.get_by_text("The study is ready to run").wait_for()
    # the preview: a rated situation of the uploaded table, drawn by the participant page's renderer
    _choose(page, "builder:preview-step", "situation-1")
    preview = page.locator(".st-key-builder-preview")
    preview.get_by_text("Bad", exact=True).first.wait_for()
    shot(page, "builder-preview-laptop")
    # save into a folder of this test (never the repository)
    target = tmp_path / "movies"
    _fill(page, "builder:folder", str(target))
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text(re.compile("Saved \\d+ file")).wait_for()
    study = load_study(target)
    assert study.config.scale.labels == ["Bad", "Okay", "Good"] and len(study.situations) >= 1
    assert study.systems == ["MovieBot", "CineLLM", "Baseline"]  # the table's, not the sample's (a new form)
    # the pairwise variant of the same table
    _choose(page, "builder:protocol", "pairwise")
    page.get_by_text("The study is ready to run").wait_for()
    _choose(page, "builder:preview-step", "pairwise-1")
    wait_idle(page)
    shot(page, "builder-pairwise-laptop")
    pairwise = tmp_path / "movies-pairwise"
    _fill(page, "builder:folder", str(pairwise))
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_text(re.compile("Saved \\d+ file")).wait_for()
    variant = load_study(pairwise)
    assert variant.config.protocol.kind == "pairwise" and variant.id == "movie-dialogs-pairwise" != study.id
    minutes = (time.monotonic() - started) / 60
    print(f"builder walk: CSV to two saved studies in {minutes:.1f} min of browser time")  # a figure, not a test
    context.close()
    # run the saved study: the app on that folder shows its consent page and its first situation
    run = start_server(tmp_path / "run", target)
    try:
        page = browser.new_page(**DEVICES["laptop"])
        page.goto(run.url)
        page.get_by_role("button", name="Start the study").wait_for()
    finally:
        stop_server(run)


def test_the_builder_on_a_phone(browser, server):
    context = browser.new_context(**DEVICES["phone"])
    page = context.new_page()
    page.set_default_timeout(60_000)
    _sign_in_and_open_builder(page, server.url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(TABLE))
    page.get_by_text("The study is ready to run").wait_for()
    wait_idle(page)
    shot(page, "builder-phone")
    _choose(page, "builder:preview-step", "situation-1")
    preview = page.locator(".st-key-builder-preview")
    preview.get_by_text("Situation 1 of").wait_for()
    preview.get_by_text("Situation 1 of").scroll_into_view_if_needed()
    wait_idle(page)
    page.screenshot(path=str(shot(page, "builder-preview-phone")))  # the viewport: what the phone shows
    width = page.evaluate("document.querySelector('.st-key-builder-preview').getBoundingClientRect().width")
    assert width <= 390, "the preview fits the phone's width"
    context.close()
