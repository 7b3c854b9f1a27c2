"""Export links in a real browser (infact/ui/downloads.py, media_guard.py): a download's `/media/<id>`
link, which Streamlit serves to anyone without a session, stops answering soon after the click —
also once the researcher's tab is closed, report.html included — and a sign-out ends an open
dashboard's downloads."""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from infact.participation.bots import run_bots
from infact.study.loader import load_study
from infact.ui.downloads import LINK_LIFETIME_MAX
from simulations.browser import DEMO_STUDY, RESEARCHER_PASSWORD, shot, wait_idle

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def app_server(shared_server):
    """The demo as shipped, shared with tests/e2e/test_participant_e2e.py: each of its tests makes its own participant
    (one server when both run on one worker)."""
    return shared_server("demo", lambda work: DEMO_STUDY)


def status(url: str) -> int:
    """What a stranger with the link gets: no cookie, no session."""
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def status_within(url: str, seconds: float) -> int:
    """Ask every half second until the link stops answering (404) or `seconds` have passed; the last status.
    A request for /media runs no script, so it sweeps nothing: the link must die on its own."""
    deadline = time.monotonic() + seconds
    while (code := status(url)) != 404 and time.monotonic() < deadline:
        time.sleep(0.5)
    return code


def sign_in_to_exports(page, url: str, section: str = "Exports") -> None:
    page.goto(url)
    page.locator(".st-key-consent_submit").wait_for()
    wait_idle(page)
    page.goto(f"{url}/researcher")
    page.get_by_label("Password", exact=True).fill(RESEARCHER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("You are signed in.").wait_for()
    wait_idle(page)
    page.get_by_role("link", name=re.compile("Open the dashboard")).click()
    page.get_by_role("heading", name=re.compile("Dashboard")).wait_for()
    page.locator(".st-key-section").get_by_text(section, exact=True).click()
    page.get_by_test_id("stDownloadButton").first.wait_for()
    wait_idle(page)


def download_button(page, name: str):
    return page.get_by_test_id("stDownloadButton").filter(has_text=f"{name} — ").get_by_role("button")


@pytest.fixture(scope="module")
def left_links(app_server, browser) -> dict:
    """Two researchers who each downloaded a file and then closed their tab: participants.csv from Exports,
    report.html from Statistics. Both tabs close only after both downloads, so no script runs after either
    leaves (nothing sweeps: each link must die on its own), and the two lifetimes are waited out at once."""
    study = load_study(app_server.study_dir)
    run_bots(study, app_server.storage(), 1, strategy="attentive", seed=3)
    run_bots(study, app_server.storage(), 3, strategy="attentive", seed=5)
    contexts, seen = [], {}
    for name, section, button in (
        ("participants.csv", "Exports", lambda page: download_button(page, "participants.csv")),
        ("report.html", "Statistics", lambda page: page.get_by_role("button", name="report.html (with charts)")),
    ):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        sign_in_to_exports(page, app_server.url, section)
        if name == "participants.csv":
            shot(page, "exports-deferred")
        with page.expect_download(timeout=30_000) as info:
            button(page).click()
        download = info.value
        seen[name] = {
            "filename": download.suggested_filename,
            "first_line": open(download.path(), encoding="utf-8").readline(),
            "link": download.url,
            "status_before": status(download.url),
        }
    for context in contexts:
        context.close()  # the researchers leave: their sessions end
    closed = time.monotonic()
    for entry in seen.values():
        entry["closed"] = closed
    return seen


def dies_after_closing(entry: dict) -> int:
    """The link's status once it stops answering, or when `LINK_LIFETIME_MAX` + 4 s have passed since the tab closed."""
    return status_within(entry["link"], entry["closed"] + LINK_LIFETIME_MAX + 4 - time.monotonic())


def test_an_export_link_stops_answering_after_the_tab_is_closed(left_links):
    left = left_links["participants.csv"]
    assert left["filename"] == "participants.csv"
    assert left["first_line"].startswith("participant")
    assert "/media/" in left["link"]
    assert dies_after_closing(left) == 404, "the export link still answers after the researcher left"


def test_report_html_stops_answering_within_the_link_lifetime_after_the_tab_is_closed(left_links):
    """report.html is a plain button in the dashboard's live part: it answered 200 at 195 s after the tab
    closed (Streamlit keeps a closed tab's session two minutes, and sweeps only when a script runs)."""
    left = left_links["report.html"]
    link = left["link"]
    assert "/media/" in link and len(link.rsplit("/", 1)[1].split(".")[0]) == 32  # a random id, not a hash
    assert left["status_before"] == 200
    # nobody uses the app meanwhile: no script run sweeps
    assert dies_after_closing(left) == 404, "report.html still answers after the researcher left"


def test_a_sign_out_elsewhere_ends_the_downloads_of_an_open_dashboard(app_server, browser):
    dashboard_ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    dashboard = dashboard_ctx.new_page()
    sign_in_to_exports(dashboard, app_server.url)
    with dashboard.expect_download(timeout=30_000) as info:  # while signed in, the button works
        download_button(dashboard, "participants.csv").click()
    assert info.value.suggested_filename == "participants.csv"
    other_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    other = other_ctx.new_page()
    sign_in_to_exports(other, app_server.url)
    other.goto(f"{app_server.url}/researcher")
    other.get_by_role("button", name="Sign out").click()
    other.get_by_label("Password", exact=True).wait_for()
    other_ctx.close()
    # The dashboard tab still shows its buttons (its next generation check is up to 30 s away),
    # but a click no longer makes a file.
    with pytest.raises(PlaywrightTimeout):
        with dashboard.expect_download(timeout=8_000):
            download_button(dashboard, "participants.csv").click()
    shot(dashboard, "exports-after-sign-out-elsewhere")
    dashboard_ctx.close()
