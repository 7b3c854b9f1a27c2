"""The researcher in a real browser: sign-in guard, refreshing dashboard, ratings.csv download.

A bot participant (infact.participation.bots) plays the study against the server's own TinyDB
store in a background thread while the dashboard is open; its live fragment
(run_every=5 s) must show the new completion without a reload.
"""

from __future__ import annotations

import csv
import io
import re
import threading
import time

import pandas as pd
import pytest
from playwright.sync_api import expect

from infact.participation.bots import STRATEGIES, run_bots
from infact.results.quality import funnel
from infact.results.quality.funnel import FIGURES
from infact.results.tables.records import RATING_COLUMNS
from infact.study.loader import load_study
from simulations.browser import ARTIFACTS, RESEARCHER_PASSWORD, open_study, shot, wait_idle

pytestmark = pytest.mark.e2e


def metric(page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def open_section(page, name: str) -> None:
    page.locator(".st-key-section").get_by_text(name, exact=True).click()
    wait_idle(page)
    page.get_by_test_id("stMetric").first.wait_for()
    for _ in range(3):  # results older than the data (rebuilt at most every 30 s): make them current
        recompute = page.get_by_role("button", name="Recompute now")
        if not recompute.count():
            return
        recompute.click()
        expect(page.get_by_text("New answers arrived since")).to_have_count(0, timeout=30_000)
        wait_idle(page)


def sign_in_and_open_dashboard(page, url: str) -> None:
    # On a fresh server /researcher is unknown until a session has run streamlit_app.py
    # (see the first test): open the entry point once.
    page.goto(url)
    page.locator(".st-key-consent_submit").wait_for()
    wait_idle(page)
    page.goto(f"{url}/researcher")
    page.get_by_label("Password", exact=True).fill(RESEARCHER_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("You are signed in.").wait_for()
    wait_idle(page)
    # A page link navigates inside the same session: the sign-in is kept.
    page.get_by_role("link", name=re.compile("Open the dashboard")).click()
    page.get_by_role("heading", name=re.compile("Dashboard")).wait_for()
    metric(page, "Completed").wait_for()
    wait_idle(page)


def test_dashboard_is_not_reachable_without_sign_in(app_server, page):
    """Runs first on a fresh server on purpose.

    Until one session has run streamlit_app.py, Streamlit 1.67 still serves the legacy
    auto-discovered `pages/` folder, so /dashboard runs pages/dashboard.py directly and
    only the page's own check stops it ("Please sign in first."). Afterwards /dashboard
    is an unknown page and Streamlit shows the default (participant) page. Either way:
    no dashboard content.
    """
    for attempt in range(2):
        page.goto(f"{app_server.url}/dashboard")
        page.get_by_text("Please sign in first.").or_(page.get_by_text("Welcome, and thank you")).first.wait_for()
        wait_idle(page)
        shot(page, f"researcher-dashboard-refused-{attempt}")
        assert page.get_by_test_id("stMetric").count() == 0
        assert page.get_by_text("Dashboard ·").count() == 0
        assert page.locator(".st-key-section").count() == 0
        assert page.get_by_text("ratings.csv").count() == 0
        page.goto(app_server.url)  # a session that runs the entry point: navigation is now known
        page.locator(".st-key-consent_submit").wait_for()
        wait_idle(page)


def test_wrong_password_is_refused(app_server, page):
    page.goto(f"{app_server.url}/researcher")
    page.get_by_label("Password", exact=True).fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Wrong password.").wait_for()
    assert page.get_by_role("link", name=re.compile("Open the dashboard")).count() == 0


def test_dashboard_updates_live_and_exports_ratings(app_server, page):
    sign_in_and_open_dashboard(page, app_server.url)
    shot(page, "researcher-dashboard-before")
    before = int(metric(page, "Completed").inner_text())

    study = load_study(app_server.study_dir)
    results: list = []
    bot = threading.Thread(
        target=lambda: results.extend(run_bots(study, app_server.storage(), 1, strategy="attentive", seed=7))
    )
    bot.start()
    bot.join(timeout=60)
    assert results and results[0].completed, "the bot did not complete the study"

    # No reload: the dashboard's fragment reruns every 5 s and picks the new records up.
    expect(metric(page, "Completed")).to_have_text(str(before + 1), timeout=20_000)
    wait_idle(page)
    shot(page, "researcher-dashboard-after-bot")
    assert page.get_by_text("This app has encountered an error").count() == 0, app_server.log_tail()

    open_section(page, "Exports")
    button = page.get_by_test_id("stDownloadButton").filter(has_text="ratings.csv — ").get_by_role("button")
    button.wait_for()
    with page.expect_download(timeout=30_000) as info:
        button.click()
    download = info.value
    assert download.suggested_filename == "ratings.csv"
    text = open(download.path(), encoding="utf-8").read()
    rows = list(csv.DictReader(io.StringIO(text)))
    header = text.splitlines()[0].split(",")
    assert header[1] == "condition"  # every answer table: the between-subjects condition next to the participant
    assert [c for c in header if c != "condition"][: len(RATING_COLUMNS)] == RATING_COLUMNS
    # One row per participant x situation x system x criterion, for every stored rating.
    expected = sum(
        len(r["responses"]) * len(study.config.criteria)
        for r in app_server.records(kind="situation")
        if not r.get("preview")
    )
    assert expected == 10 * 3 * 1 * (before + 1)
    assert len(rows) == expected
    assert {row["participant"] for row in rows} >= {results[0].token}
    shot(page, "researcher-exports")
    assert page.get_by_text("This app has encountered an error").count() == 0, app_server.log_tail()


def download(page, name: str) -> bytes:
    button = page.get_by_test_id("stDownloadButton").filter(has_text=f"{name} — ").get_by_role("button")
    with page.expect_download(timeout=30_000) as info:
        button.click()
    return open(info.value.path(), "rb").read()


def cards(page) -> dict[str, str]:
    return {label: metric(page, label).inner_text() for label, _ in FIGURES.values()}


def test_reload_keeps_the_dashboard_and_its_numbers_match_the_exports(app_server, page):
    """F5 on /dashboard: still the dashboard, no participant record stored; the cards
    equal the funnel counted from the exported participants.csv; every chart is
    screenshotted (test-artifacts/chart-*.png)."""
    study = load_study(app_server.study_dir)
    for i, strategy in enumerate(STRATEGIES):
        run_bots(study, app_server.storage(), 2, strategy=strategy, seed=40 + i)
    # A visitor who reads the consent page, reloads it and leaves: one visit, no participant.
    visits_before = len(app_server.records(kind="visit"))
    open_study(page, app_server.url)
    page.reload()
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)
    assert len(app_server.records(kind="visit")) == visits_before + 1, "a reload was counted as a second visit"
    sign_in_and_open_dashboard(page, app_server.url)
    expect(metric(page, "Completed")).not_to_have_text("0", timeout=20_000)
    wait_idle(page)
    stored = len(app_server.records())

    page.reload()
    page.get_by_role("heading", name=re.compile("Dashboard")).wait_for()
    metric(page, "Visited").wait_for()
    wait_idle(page)
    shot(page, "researcher-dashboard-after-reload")
    assert page.url.rstrip("/").endswith("/dashboard")
    assert page.get_by_text("Please sign in first.").count() == 0
    assert len(app_server.records()) == stored, "the reload stored participant records"

    shown = cards(page)
    open_section(page, "Exports")
    for _ in range(3):
        # The export files are rebuilt at most every 30 s (this server's earlier tests built them):
        # until they catch up the page offers "Recompute now". The cards must equal them once current.
        participants = pd.read_csv(io.BytesIO(download(page, "participants.csv")))
        flags = pd.read_csv(io.BytesIO(download(page, "flags.csv")))
        visits = pd.read_csv(io.BytesIO(download(page, "visits.csv")))
        exported = {
            FIGURES[k][0]: str(v) for k, v in funnel.funnel_counts(participants, funnel.visits_became(visits)).items()
        }
        if exported == shown:
            break
        recompute = page.get_by_role("button", name="Recompute now")
        recompute.wait_for(timeout=30_000)
        recompute.click()
        expect(page.get_by_text("New answers arrived since")).to_have_count(0, timeout=30_000)
        wait_idle(page)
    assert exported == shown
    assert int(shown["Excluded"]) == int(((flags["status"] == "completed") & (flags["decision"] == "exclude")).sum())
    assert int(shown["Included"]) + int(shown["Excluded"]) == int(shown["Completed"]) > 0

    for section, heading, n_charts in (
        ("Progress", "Completions over time", 2),
        ("Results", "Mean rating per system", 4),
    ):
        open_section(page, section)
        page.get_by_role("heading", name=re.compile(heading)).wait_for()
        wait_idle(page)
        shot(page, f"researcher-dashboard-{section.lower()}")
        charts = page.get_by_test_id("stVegaLiteChart")
        assert charts.count() == n_charts, (section, charts.count())
        for i in range(n_charts):
            chart = charts.nth(i)
            chart.scroll_into_view_if_needed()
            chart.locator("canvas, svg").first.wait_for()
            ARTIFACTS.mkdir(exist_ok=True)
            chart.screenshot(path=str(ARTIFACTS / f"chart-{section.lower()}-{i + 1}.png"))
    assert page.get_by_text("This app has encountered an error").count() == 0, app_server.log_tail()


def test_sign_out_ends_the_remembered_sign_in(app_server, page):
    sign_in_and_open_dashboard(page, app_server.url)
    page.goto(f"{app_server.url}/researcher")
    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Password", exact=True).wait_for()
    wait_idle(page)
    page.goto(f"{app_server.url}/dashboard")
    page.get_by_text("Please sign in first.").wait_for()
    assert page.get_by_test_id("stMetric").count() == 0


def prolific_demo_copy(tmp_path, stub_url: str):
    """The demo study, run on Prolific through the API stub (its own server: the module's demo is not on Prolific)."""
    import shutil

    from tests.support.paths import DEMO_STUDY
    from tests.support.prolific import CODE

    folder = tmp_path / "prolific-demo"
    shutil.copytree(DEMO_STUDY, folder)
    toml = folder / "study.toml"
    text = toml.read_text(encoding="utf-8").replace(
        '[platform]\nkind = "none"', f'[platform]\nkind = "prolific"\ncompletion_code = "{CODE}"'
    )
    text += f'\n[prolific]\nbase_url = "{stub_url}"\nstudy_url = "https://study.example.org/"\n'
    toml.write_text(text, encoding="utf-8")
    return folder


def test_the_prolific_section_syncs_from_the_api_at_most_once_a_minute(tmp_path, page, monkeypatch):
    """Against the API stub: the section polls once (not on every 5-second rerun), shows Prolific's statuses
    beside INFACT's stages, and the returned participant's lease is ended in the server's store."""
    from infact.prolific import setup
    from infact.prolific.session import open_session
    from simulations.browser import require_chromium, start_server, stop_server
    from simulations.prolific_stub import ProlificStub
    from tests.support.prolific import TOKEN, play, submissions

    require_chromium()
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)  # the server reads it from its environment
    with ProlificStub(TOKEN) as stub:
        folder = prolific_demo_copy(tmp_path, stub.url)
        server = start_server(tmp_path / "app", folder)
        try:
            study = load_study(folder)
            storage = server.storage()
            people = play(study, storage, ["attentive", "abandons"])
            session = open_session(study, storage, base_url=stub.url)
            prolific_id = setup.create(session).prolific_id
            submissions(stub, prolific_id, ["AWAITING REVIEW", "RETURNED"])
            sign_in_and_open_dashboard(page, server.url)
            started = time.monotonic()
            open_section(page, "Prolific")
            synced = page.get_by_text(re.compile(r"last synced .*: 2 submission\(s\), 2 new status\(es\), freed"))
            synced.wait_for(timeout=60_000)
            statuses = page.get_by_test_id("stTable").filter(has_text="RETURNED")
            expect(statuses).to_contain_text("AWAITING REVIEW")
            expect(page.get_by_test_id("stTable").filter(has_text="completed")).to_have_count(1)
            shot(page, "researcher-dashboard-prolific")
            page.wait_for_timeout(11_000)  # two more runs of the 5-second fragment
            page.get_by_role("button", name="Sync now").click()
            answered = page.get_by_text("Synced less than a minute ago").or_(page.get_by_text(re.compile("^Synced 2")))
            answered.first.wait_for(timeout=60_000)
            # at most one poll a minute (a loaded machine may take over a minute to get here: then two)
            allowed = 1 + int((time.monotonic() - started) // 60)
            assert 1 <= len(stub.calls("GET", "/submissions/$")) <= allowed, "polled more than once a minute"
            if allowed == 1:
                expect(page.get_by_text("Synced less than a minute ago")).to_be_visible()
            ends = server.records(participant=people[1][1], kind="lease_end")
            assert len(ends) == 1 and "RETURNED" in ends[0]["reason"]
            assert page.get_by_text("This app has encountered an error").count() == 0, server.log_tail()
            assert TOKEN not in server.log.read_text(errors="replace")
        finally:
            stop_server(server)
