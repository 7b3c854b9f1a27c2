"""Driving the app in a real browser (Debian Chromium through Playwright): servers, waits, clicks. Shared by the
browser tests (tests/e2e) and the benchmarks (bench/participant_clicks.py, bench/replicas.py).

`start_server` runs `streamlit run` headless on a free port with its own temporary TinyDB store
(INFACT_DB), a study (INFACT_STUDY) and a temporary secrets file holding a researcher password
hash (`--secrets.files`), so it never touches the repository's `db/` or secrets; `stop_server`
ends it. The fixtures that use these (app_server, browser, page, device_page) are in
tests/e2e/conftest.py.

Chromium is the Debian package (/usr/bin/chromium), launched by Playwright through
`executable_path` (no `playwright install`). Without it the tests are skipped locally and fail
when the CI environment variable is set (`require_chromium`). INFACT_E2E_CHROMIUM points at
another Chromium binary.

Waiting: a Streamlit page is idle when `stApp` carries `data-test-script-state="notRunning"`.
Right after a click the old run may still report idle for a moment, so helpers first wait for
content that only the next screen has, then for idle — never a fixed sleep.

The one consent helper: `start_after_consent(page)` ticks the box and presses Start for every
protocol; `consent(page)` does that and waits for the first rating situation.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from infact.access.auth import hash_password
from infact.storage import TinyDBStorage
from simulations.study_folders import copy_study

REPO = Path(__file__).resolve().parents[1]
DEMO_STUDY = REPO / "data" / "demo"

ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = os.environ.get("INFACT_E2E_CHROMIUM", "/usr/bin/chromium")  # Debian's package
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RESEARCHER_PASSWORD = "e2e-researcher-password"

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"][data-test-connection-state="CONNECTED"]'
# Set for a moment after a participant step changes: clicks are dropped then (a late second click
# must not land on the next page), and the new step is held at its top (`data-infact-top`: a click
# Playwright scrolls to would land on whatever the top of the page holds). A test waits for both to
# clear before clicking.
UNGUARDED = "html:not([data-infact-guard]):not([data-infact-top])"
TIMEOUT_MS = 60_000  # generous: a 2-core CI machine running ten browsers is slow
SERVER_START_S = 90
SCALE = [
    "Entirely meaningless",
    "Meaningless",
    "Between meaningless and meaningful",
    "Somewhat meaningful",
    "Perfectly meaningful",
]
CHECK_MARK = 'I give a rating of "Meaningless"'  # the demo study's instructed response


def require_chromium() -> None:
    """Skip locally, fail on CI (env CI set), when the browser stack is missing."""
    problem = None
    if not Path(CHROMIUM).exists():
        problem = f"{CHROMIUM} not found: apt-get install -y chromium"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "playwright is not installed: pip install playwright pytest-playwright"
    if problem:
        import pytest  # the e2e tests' own check: bench/ runs without pytest

        if os.environ.get("CI"):
            pytest.fail(f"e2e tests need Chromium + Playwright on CI: {problem}")
        pytest.skip(problem)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class AppServer:
    url: str  # base URL, no trailing slash
    db: Path  # the TinyDB store directory (INFACT_DB)
    study_dir: Path
    log: Path
    proc: subprocess.Popen

    def storage(self) -> TinyDBStorage:
        """A fresh handle on the server's store (file-locked: safe next to the server process)."""
        return TinyDBStorage(self.db)

    def records(self, **filters) -> list[dict]:
        return self.storage().records(**filters)

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no server log)"


def start_server(
    workdir: Path, study_dir: Path = DEMO_STUDY, app: Path | None = None, *, store: str | None = None
) -> AppServer:
    """`streamlit run` the app (or another script, e.g. a benchmark's baseline) headless on a free port;
    `store` (e.g. a PostgreSQL URL) instead of its own TinyDB folder."""
    workdir.mkdir(parents=True, exist_ok=True)
    secrets = workdir / "secrets.toml"
    secrets.write_text(f'[researcher]\npassword_hash = "{hash_password(RESEARCHER_PASSWORD)}"\n', encoding="utf-8")
    db = workdir / "db"
    log = workdir / "streamlit.log"
    port = free_port()
    env = {**os.environ, "INFACT_DB": store or str(db), "INFACT_STUDY": str(study_dir), "PYTHONUNBUFFERED": "1"}
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app or REPO / "streamlit_app.py"),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--secrets.files",
        str(secrets),
    ]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = AppServer(f"http://127.0.0.1:{port}", db, study_dir, log, proc)
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode} before it was healthy:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200 and resp.read().strip() == b"ok":
                    return server
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    stop_server(server)
    raise RuntimeError(f"streamlit was not healthy after {SERVER_START_S} s:\n{server.log_tail()}")


def stop_server(server: AppServer) -> None:
    if server.proc.poll() is None:
        server.proc.terminate()
        try:
            server.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(timeout=15)


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_idle(page, timeout: int = TIMEOUT_MS) -> None:
    """Wait until the app is connected, no script run is in progress and clicks are taken."""
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_selector(UNGUARDED, state="attached", timeout=timeout)


def token_of(page) -> str:
    values = parse_qs(urlparse(page.url).query).get("p")
    assert values, f"no ?p= token in the URL {page.url}"
    return values[0]


def open_study(page, url: str) -> None:
    """Open the participant page at its consent step (nothing is stored before consent)."""
    page.goto(url)
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)


def consent(page, total: int = 10) -> str:
    """Tick consent and start; return the participant token the URL then holds."""
    start_after_consent(page)
    wait_situation(page, 1, total)
    page.wait_for_url(re.compile(r"[?&]p="))
    return token_of(page)


def start_after_consent(page) -> None:
    """Tick the consent box (checking it really got ticked) and press Start, for every protocol.

    On a loaded 2-core CI machine a click on a page that is still settling is sometimes not taken:
    the page moved between Playwright's scroll to the element and the press, which then lands on
    whatever is there (the box stays empty, or the page stays on consent: a person sees that and
    clicks again, nothing is stored). So the box is checked until ticked, and Start is pressed again
    only when the press did not reach the button (`_pressed`, read at once: no wait for a run that
    will never come) or the page is visibly still the consent page with no participant (no ?p= token)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    box = page.get_by_role("checkbox", name=re.compile("I have read the information above"))
    start = page.get_by_role("button", name="Start the study")
    for _ in range(3):
        for _ in range(3):
            if box.is_checked():
                break
            page.get_by_text("I have read the information above").click()
            try:
                expect(box).to_be_checked(timeout=5_000)
                break
            except AssertionError:
                wait_idle(page)
        _watch_presses(page)
        start.click()
        if not _pressed(page, "Start the study"):
            wait_idle(page)
            continue
        try:
            page.wait_for_url(re.compile(r"[?&]p="), timeout=20_000)
            return
        except PlaywrightTimeout:
            if not (start.count() and start.is_visible()):
                return  # the page moved on; the caller's own wait decides
            wait_idle(page)


# What the last click reached: the text of the button (or element) it landed on, seen by the document
# before the page's own handlers.
_WATCH_PRESSES_JS = """() => {
  window.__infactPressed = null;
  if (window.__infactWatching) return;
  window.__infactWatching = true;
  document.addEventListener('click', e => {
    const el = e.target.closest('button') || e.target;
    window.__infactPressed = (el.innerText || '').trim();
  }, true);
}"""


def _watch_presses(page) -> None:
    page.evaluate(_WATCH_PRESSES_JS)


def _pressed(page, label: str) -> bool:
    """Did the last click land on the button labelled `label` (not on what the page held there a moment later)?"""
    return page.evaluate("() => window.__infactPressed") == label


def wait_situation(page, n: int, total: int = 10) -> None:
    page.get_by_text(f"Situation {n} of {total}", exact=True).wait_for()
    wait_idle(page)


def response_letters(page) -> list[str]:
    return [t.strip().removeprefix("Response ").strip() for t in page.locator(".infact-letter").all_inner_texts()]


def situation_view(page) -> dict:
    """What the participant sees on a situation: dialog and responses in display order."""
    return {
        "progress": page.get_by_text(re.compile(r"^Situation \d+ of \d+$")).inner_text(),
        "dialog": page.locator(".infact-dialog").inner_text(),
        "responses": page.locator(".infact-response .infact-text").all_inner_texts(),
    }


def choose(page, widget_key: str, label: str) -> None:
    """Click the radio option `label` of the widget with Streamlit key `widget_key`."""
    page.locator(f".st-key-{widget_key}").get_by_text(label, exact=True).click()


def rate_all(page, label: str = "Somewhat meaningful", *, letters=None, follow_check: bool = True) -> None:
    """Rate responses (default: all) of the situation on screen with `label`.

    With `follow_check`, the instructed attention-check response gets the rating it asks for.
    """
    responses = page.locator(".infact-response")
    for i in range(responses.count()):
        resp = responses.nth(i)
        letter = resp.locator(".infact-letter").inner_text().removeprefix("Response ").strip()
        if letters is not None and letter not in letters:
            continue
        text = resp.locator(".infact-text").inner_text()
        value = "Meaningless" if (follow_check and CHECK_MARK in text) else label
        # Keys: situation-<n>-<letter>-<criterion>; the demo study has one criterion.
        group = page.locator(f'[class*="st-key-situation-"][class*="-{letter}-meaningful"]')
        group.get_by_text(value, exact=True).click()


def submit_situation(page, n: int, total: int = 10) -> None:
    page.get_by_role("button", name="Submit and continue").click()
    if n < total:
        wait_situation(page, n + 1, total)
    else:
        page.get_by_role("button", name="Continue", exact=True).wait_for()
        wait_idle(page)


def answer_all_radios(page, pick: str) -> None:
    """Questionnaire/demographics: choose the first or last option of every radio group."""
    groups = page.locator('[data-testid="stForm"] [role="radiogroup"]')
    for i in range(groups.count()):
        options = groups.nth(i).locator('[data-testid="stRadioOption"]')
        (options.first if pick == "first" else options.last).click()


def submit_questionnaires(page) -> None:
    """Questionnaire (last option: passes 'select the last option'), then demographics, submitted."""
    answer_all_radios(page, "last")
    page.get_by_role("button", name="Continue", exact=True).click()
    page.get_by_role("button", name="Finish", exact=True).wait_for()
    wait_idle(page)
    answer_all_radios(page, "first")
    page.get_by_role("button", name="Finish", exact=True).click()


def finish_questionnaires(page) -> str:
    """Questionnaire and demographics; return the completion code shown."""
    submit_questionnaires(page)
    page.get_by_text("All your answers are saved.").wait_for()
    wait_idle(page)
    return completion_code(page)


def completion_code(page) -> str:
    return page.locator('[data-testid="stCode"]').inner_text().strip()


def complete_participant(page, url: str, *, shots: str | None = None) -> tuple[str, str]:
    """Walk a new participant through the whole study; returns (token, completion code)."""
    open_study(page, url)
    token = consent(page)
    for n in range(1, 11):
        rate_all(page)
        if shots and n == 1:
            shot(page, f"{shots}-situation-1-rated")
        submit_situation(page, n)
    code = finish_questionnaires(page)
    if shots:
        shot(page, f"{shots}-done")
    return token, code


# ------------------------------------------------------------------ what a participant sees (issue 10)

DEVICES = {
    "laptop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}


def small_study(workdir: Path, *, per_participant: int = 3, check_at: int = 2, platform: str | None = None) -> Path:
    """A copy of the demo study with fewer situations (fast browser walks).

    `platform` replaces the `[platform]` table's body, e.g. 'kind = "prolific"\\ncompletion_code = "C1E2E"'.
    """
    edits = {
        "situations_per_participant = 10": f"situations_per_participant = {per_participant}",
        "positions = [3, 8]": f"positions = [{check_at}, {check_at}]",
    }
    if platform:
        edits['[platform]\nkind = "none"'] = f"[platform]\n{platform}"
    return copy_study(DEMO_STUDY, workdir / "study", edits)


# The element that actually scrolls is Streamlit's `stMain`, not the window: read every
# element that scrolls a good part of the window (not a 1-px "skip to content" link) and
# the window itself, and report the largest offset.
_SCROLL_JS = (
    """() => {
  let top = Math.max(window.scrollY, document.scrollingElement ? document.scrollingElement.scrollTop : 0);
  for (const el of document.querySelectorAll('*')) {
    if (el.scrollTop > top && el.scrollHeight > el.clientHeight && """
    """el.clientHeight >= window.innerHeight / 3) top = el.scrollTop;
  }
  return top;
}"""
)


def scroll_position(page) -> float:
    """How far down the participant's view is scrolled, in CSS pixels."""
    return page.evaluate(_SCROLL_JS)


def scroll_to_bottom(page) -> None:
    page.evaluate("""() => { for (const el of document.querySelectorAll('*'))
                               if (el.scrollHeight > el.clientHeight + 10) el.scrollTop = el.scrollHeight; }""")


def stored_participants(server) -> set[str]:
    """Participants with records; a visit's own `_visits` record (infact/participation/visits.py) is not one."""
    return {r["participant"] for r in server.records() if not r["participant"].startswith("_")}


# What the second click of `click_twice` is about to hit.
_UNDER_POINTER_JS = """([x, y, marker]) => {
  const el = document.elementFromPoint(x, y);
  return {next_page: document.body.innerText.includes(marker),
          in_form: !!(el && el.closest('[data-testid="stForm"]')),
          control: !!(el && el.closest('button, label, input')),
          guarded: document.documentElement.hasAttribute('data-infact-guard'),
          what: el ? el.outerHTML.slice(0, 120) : null};
}"""


def click_twice(page, locator, gap_ms: int = 700, next_marker: str = "") -> dict:
    """Click `locator`, then click the same screen point again at least `gap_ms` later.

    The second click comes once the next page (`next_marker` text) is drawn — on an idle
    server it is after ~0.4 s, on a loaded one it can take longer than `gap_ms`, and a
    click on the old page would prove nothing. Returns what was under the pointer at the
    second click: whether the next page was drawn, whether the point was on its form / a
    control, and whether the page's click guard was on."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    page.wait_for_timeout(gap_ms)
    if next_marker:
        page.wait_for_function("m => document.body.innerText.includes(m)", arg=next_marker)
    under = page.evaluate(_UNDER_POINTER_JS, [x, y, next_marker])
    page.mouse.click(x, y)
    return under


def axe_violations(page, name: str, impacts=("serious", "critical")) -> list[dict]:
    """Run axe-core on the page; keep the report in test-artifacts/; return serious/critical violations."""
    import json

    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(page)
    violations = result.response.get("violations", [])
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"axe-{name}.json").write_text(json.dumps(violations, indent=1), encoding="utf-8")
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"][:5]]}
        for v in violations
        if v.get("impact") in impacts
    ]
