"""Every protocol's participant page and dashboard in a real browser, at 1280×900 and 390×844 (issue 19).

For the rating, pairwise, ACUTE-style, best–worst and live demos (bots fill each store first):
- the participant's first step is drawn and screenshotted; on a laptop short scale labels ("About
  the same") stay on one line, and best–worst's A–D are targets of at least 44 px;
- the dashboard is wide from its first painted frame, after sign-in and after a reload (every
  animation frame's main-block width is recorded from navigation on);
- Results and Statistics show what the protocol collected (never "No ratings yet." for votes), and
  every offered CSV download has rows.
Screenshots: test-artifacts/protocol-<study>-<device>-*.png.
"""

from __future__ import annotations

import io
import re
import shutil

import pandas as pd
import pytest
from playwright.sync_api import expect

from infact.study.loader import load_study
from simulations.browser import (
    DEMO_STUDY,
    DEVICES,
    TIMEOUT_MS,
    require_chromium,
    shot,
    start_after_consent,
    start_server,
    stop_server,
    wait_idle,
)
from tests.support.dashboard_pages import open_section, show_section, sign_in
from tests.support.participants import played_by_people

pytestmark = pytest.mark.e2e
DATA = DEMO_STUDY.parent
STUDIES = {
    "rating": "demo",
    "pairwise": "demo-pairwise",
    "acute": "demo-acute",
    "best-worst": "demo-best-worst",
    "live": "demo-live",
}
FIRST_STEP = {
    "rating": "Situation 1 of",
    "pairwise": "Situation 1 of",
    "acute": "Pair of conversations 1 of",
    "best-worst": "Situation 1 of",
    "live": "Situation 1 of",
}
RESULTS = {
    "rating": "Mean rating per system",
    "pairwise": "Votes per system",
    "acute": "Votes per system",
    "best-worst": "Best and worst choices per system",
    "live": "Arena votes after the live chats",
}
EMPTY = ["No ratings yet.", "Statistics need ratings", "No votes yet.", "No best–worst choices yet."]

# Every animation frame from navigation on: the main block's width while the dashboard is shown. A frame loop
# costs the renderer CPU as long as it runs, so the test stops it (__infactStop) once the widths are checked.
WIDTHS_JS = """
window.__infactWidths = [];
const tick = () => {
  if (window.__infactStop) return;
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const title = [...document.querySelectorAll('h1')].some(h => h.textContent.startsWith('Dashboard ·'));
  if (main && title) window.__infactWidths.push(Math.round(main.getBoundingClientRect().width));
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"""


def study_copy(tmp, name: str):
    """The demo as shipped, but without the onboarding's practice pairs (the tests reach the situations)."""
    folder = tmp / "study"
    shutil.copytree(DATA / STUDIES[name], folder)
    toml = folder / "study.toml"
    text = toml.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^onboarding(_threshold)? = .*\n", "", text)
    toml.write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module", params=list(STUDIES))
def server(request, tmp_path_factory):
    require_chromium()
    tmp = tmp_path_factory.mktemp(f"e2e-protocol-{request.param}")
    folder = study_copy(tmp, request.param)
    srv = start_server(tmp / "app", folder)
    # played as people: the browser's own participant is a person, and a dashboard with a person leaves marked bots out
    played_by_people(load_study(folder), srv.storage(), 6, strategy="attentive", seed=11)
    srv.name = request.param
    yield srv
    stop_server(srv)


@pytest.fixture
def context(browser, device):
    ctx = browser.new_context(**DEVICES[device], accept_downloads=True)
    ctx.set_default_timeout(TIMEOUT_MS)
    yield ctx
    ctx.close()


def one_line(page, locator) -> None:
    """The label is on one line: its height is one line of its own text."""
    for i in range(locator.count()):
        box = locator.nth(i).evaluate(
            "e => [e.getBoundingClientRect().height, parseFloat(getComputedStyle(e).lineHeight)]"
        )
        assert box[0] < 1.5 * box[1], f"{locator.nth(i).inner_text()!r} wraps: {box[0]} px high, line {box[1]} px"


def participant_page(page, srv, device: str) -> None:
    page.goto(srv.url)
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)
    shot(page, f"protocol-{srv.name}-{device}-consent")
    start_after_consent(page)
    page.get_by_text(re.compile(FIRST_STEP[srv.name])).first.wait_for()
    wait_idle(page)
    shot(page, f"protocol-{srv.name}-{device}-participant")
    form = page.locator('[data-testid="stForm"]').first
    if form.count():
        form.scroll_into_view_if_needed()
        shot(page, f"protocol-{srv.name}-{device}-participant-form")
    assert page.evaluate("document.documentElement.scrollWidth") <= DEVICES[device]["viewport"]["width"]
    labels = page.locator('[data-testid="stRadioOption"] p')
    if srv.name in ("pairwise", "acute") and device == "laptop":
        short = labels.filter(has_text=re.compile(r"^(About the same|Response [AB]|Conversation [AB])$"))
        assert short.count() >= 3, "the pairwise choices are not on the page"
        one_line(page, short)
    if srv.name == "best-worst":
        targets = page.locator('[class*="st-key-infact-bw-"] [data-testid="stRadioOption"]')
        assert targets.count() == 8  # A–D, best and worst
        for i in range(targets.count()):
            box = targets.nth(i).bounding_box()
            assert box["height"] >= 44 and box["width"] >= 44, box
        if device == "laptop":  # four in a row, not cramped: each well apart from the next
            boxes = [targets.nth(i).bounding_box() for i in range(4)]
            assert len({round(b["y"]) for b in boxes}) == 1
            assert all(b2["x"] - (b1["x"] + b1["width"]) >= 8 for b1, b2 in zip(boxes, boxes[1:]))


def widths(page) -> list[int]:
    return page.evaluate("window.__infactWidths")


def assert_wide(page, device: str, when: str) -> None:
    seen = widths(page)
    assert seen, f"{when}: the dashboard was never painted"
    viewport = DEVICES[device]["viewport"]["width"]
    # wide: the main block spans the window less Streamlit's padding (centred is 736 px at most)
    assert min(seen) >= (1100 if viewport >= 1280 else viewport - 60), f"{when}: widths {sorted(set(seen))}"
    assert max(seen) - min(seen) <= 20, f"{when}: the layout jumped {sorted(set(seen))}"


def no_empty_parts(page, where: str) -> None:
    body = page.locator('[data-testid="stMain"]').inner_text()
    for empty in EMPTY:
        assert empty not in body, f"{where}: {empty!r}"
    assert "This app has encountered an error" not in body


def downloads_have_rows(page, srv, device: str) -> list[str]:
    buttons = page.get_by_test_id("stDownloadButton")
    buttons.first.wait_for()
    names = [t.split(" — ")[0].strip() for t in buttons.all_inner_texts()]
    assert names, "no downloads offered"
    for name in names:
        if not name.endswith(".csv"):
            continue
        wait_idle(page)  # the live part reruns every 5 s: click a button that is drawn, not one being replaced
        with page.expect_download(timeout=120_000) as info:  # made on click (infact/ui/downloads.py)
            buttons.filter(has_text=f"{name} — ").get_by_role("button").click()
        with open(info.value.path(), "rb") as f:
            table = pd.read_csv(io.BytesIO(f.read()))
        assert len(table) > 0, f"{name} holds only its header"
    return names


def test_participant_page_and_dashboard_of_every_protocol(server, context, device):
    page = context.new_page()
    participant_page(page, server, device)
    researcher = context.browser.new_context(**DEVICES[device], accept_downloads=True)
    researcher.set_default_timeout(TIMEOUT_MS)
    researcher.add_init_script(WIDTHS_JS)
    try:
        page = researcher.new_page()
        page.goto(server.url)  # the entry point once: a fresh server serves pages/ the legacy way until then
        page.get_by_role("button", name="Start the study").wait_for()
        sign_in(page, server)
        assert_wide(page, device, "after sign-in")
        shot(page, f"protocol-{server.name}-{device}-dashboard")
        page.reload()
        page.get_by_role("heading", name=re.compile("Dashboard ·")).wait_for()
        wait_idle(page)
        assert_wide(page, device, "after a reload")
        page.evaluate("window.__infactStop = true")  # the widths are checked: no more frames to record
        for section in ("Results", "Statistics"):
            open_section(page, section)
            if section == "Results":
                expect(page.get_by_role("heading", name=RESULTS[server.name])).to_have_count(1, timeout=60_000)
            else:
                expect(page.get_by_text("95% CI").first).to_be_visible(timeout=120_000)  # bootstrap intervals
            no_empty_parts(page, section)
            show_section(page)
            shot(page, f"protocol-{server.name}-{device}-{section.lower()}")
        open_section(page, "Exports")
        names = downloads_have_rows(page, server, device)
        if server.name != "rating" and server.name != "live":
            assert "ratings.csv" not in names and "ratings_wide.csv" not in names
        if server.name in ("pairwise", "acute", "best-worst", "live"):
            open_section(page, "Ranking")
            no_empty_parts(page, "Ranking")
            show_section(page)
            shot(page, f"protocol-{server.name}-{device}-ranking")
    finally:
        researcher.close()
