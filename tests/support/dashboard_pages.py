"""The researcher dashboard under AppTest (`open_dashboard`) and in a real browser: sign in, open a section, scroll
its content into view (shared by the tests of tests/ui/ and tests/e2e/)."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from infact.access.auth import hash_password
from simulations.browser import RESEARCHER_PASSWORD, wait_idle
from tests.support.paths import REPO

DASHBOARD = REPO / "pages" / "dashboard.py"


def open_dashboard(study_dir, db, monkeypatch, section: str | None = None, *, password: str = "pw") -> AppTest:
    """The dashboard page on the study folder and store, signed in (its password `password`), at `section`;
    a page that raised fails the test."""
    monkeypatch.setenv("INFACT_STUDY", str(study_dir))
    monkeypatch.setenv("INFACT_DB", str(db))
    at = AppTest.from_file(str(DASHBOARD), default_timeout=90)
    at.session_state["researcher_signed_in"] = True
    at.secrets["researcher"] = {"password_hash": hash_password(password)}
    at.run()
    if section:
        at.segmented_control(key="section").set_value(section).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sign_in(page, srv) -> None:
    page.goto(f"{srv.url}/researcher")
    page.get_by_label("Password", exact=True).fill(RESEARCHER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("You are signed in.").wait_for()
    wait_idle(page)
    page.evaluate("window.__infactWidths = []")
    page.get_by_role("link", name=re.compile("Open the dashboard")).click()
    page.get_by_role("heading", name=re.compile("Dashboard ·")).wait_for()
    wait_idle(page)


def open_section(page, name: str) -> None:
    from playwright.sync_api import expect

    page.locator(".st-key-section").get_by_text(name, exact=True).click()
    wait_idle(page)
    page.get_by_test_id("stMetric").first.wait_for()
    recompute = page.get_by_role("button", name="Recompute now")
    if recompute.count():
        recompute.click()
        expect(page.get_by_text("New answers arrived since")).to_have_count(0, timeout=30_000)
        wait_idle(page)


def show_section(page) -> None:
    """Scroll the section's own content (below the cards and the 'Updated …' line) into view."""
    # One query in the page, at the moment of scrolling: the dashboard's live part reruns every few seconds
    # and replaces its headings, so a locator found a moment before can be detached by now.
    page.evaluate(
        """() => { const h = [...document.querySelectorAll('[data-testid="stMain"] h2, """
        """[data-testid="stMain"] h3')]
        .find(e => !e.textContent.startsWith('Dashboard')); if (h) h.scrollIntoView({block: 'start'}); }"""
    )
    wait_idle(page)  # the live part reruns every 5 s: not greyed out in the screenshot
