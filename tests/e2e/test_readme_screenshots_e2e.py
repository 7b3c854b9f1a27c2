"""The README's two pictures, taken in a real browser at laptop size: the participant's rating page
and the researcher's dashboard with twenty bot participants' answers.

Every run writes them to test-artifacts/ (readme-participant.png, readme-dashboard.png); with
INFACT_UPDATE_SCREENSHOTS=1 they also replace docs/img/participant.png and docs/img/dashboard.png,
the files README.md shows. Each picture is taken only once the page shows what the README says it
shows, so a broken page fails here instead of landing in the README.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest
from playwright.sync_api import expect

from infact.study.loader import load_study
from simulations.browser import ARTIFACTS, REPO, RESEARCHER_PASSWORD, consent, open_study, response_letters, wait_idle
from tests.support.participants import played_by_people

pytestmark = pytest.mark.e2e
DOCS_IMG = REPO / "docs" / "img"
BOTS = 20


def picture(page, name: str, height: int) -> None:
    """The top `height` pixels of the page at laptop width, as a PNG in test-artifacts/, and in docs/img/
    when INFACT_UPDATE_SCREENSHOTS=1. (Streamlit scrolls an inner element, so a full-page screenshot is
    only the window: the window is made taller instead.)"""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"readme-{name}.png"
    page.set_viewport_size({"width": 1280, "height": height})
    wait_idle(page)
    page.screenshot(path=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("INFACT_UPDATE_SCREENSHOTS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_IMG / f"{name}.png")


def test_the_participant_page(app_server, page):
    open_study(page, app_server.url)
    consent(page)
    assert response_letters(page) == ["A", "B", "C"]
    expect(page.get_by_text("Situation 1 of 10", exact=True)).to_be_in_viewport()
    assert page.get_by_role("radio", checked=True).count() == 0  # every scale starts empty
    picture(page, "participant", 1500)


def test_the_dashboard(app_server, page):
    # played as people: the participant page's test consented a person on this server, and a dashboard with a person
    # leaves marked bots out (`infact bots`' own dashboards count them only in a store of bots)
    results = played_by_people(load_study(app_server.study_dir), app_server.storage(), BOTS, seed=3)
    completed = sum(r.completed for r in results)
    assert completed > 0
    page.goto(app_server.url)
    page.locator(".st-key-consent_submit").wait_for()
    wait_idle(page)
    page.goto(f"{app_server.url}/researcher")
    page.get_by_label("Password", exact=True).fill(RESEARCHER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name=re.compile("Open the dashboard")).click()
    page.get_by_role("heading", name=re.compile("Dashboard")).wait_for()
    card = page.get_by_test_id("stMetric").filter(has_text="Completed").get_by_test_id("stMetricValue")
    expect(card).to_have_text(str(completed), timeout=30_000)
    page.get_by_test_id("stVegaLiteChart").first.wait_for()  # the progress charts are drawn
    wait_idle(page)
    assert page.get_by_text("This app has encountered an error").count() == 0, app_server.log_tail()
    picture(page, "dashboard", 1300)
