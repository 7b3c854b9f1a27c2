"""Issue 36 item 5 in a real browser: the comprehension check after consent, its second attempt with the
warning, then the screen-out page (Prolific's screen-out code) after two wrong attempts — or the study."""

from __future__ import annotations

import pytest

from simulations.browser import (
    choose,
    require_chromium,
    small_study,
    start_after_consent,
    start_server,
    stop_server,
    wait_idle,
    wait_situation,
)

pytestmark = pytest.mark.e2e
CODE, SCREEN = "C1E2ECMP", "S1E2ECMP"
QUERY = "?PROLIFIC_PID={pid}&STUDY_ID=6a1b2c3d4e5f6a7b8c9d0e1f&SESSION_ID={session}"
CHECK = """
[comprehension]
enabled = true

[[comprehension.questions]]
id = "task"
text = "What will you do in this study?"
options = ["Rate chatbot responses", "Write stories"]
answer = "Rate chatbot responses"
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    work = tmp_path_factory.mktemp("e2e-comprehension")
    study = small_study(
        work,
        per_participant=2,
        check_at=1,
        platform=f'kind = "prolific"\ncompletion_code = "{CODE}"\nscreenout_code = "{SCREEN}"',
    )
    toml = study / "study.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + CHECK, encoding="utf-8")
    srv = start_server(work, study)
    yield srv
    stop_server(srv)


def attempt(page, n: int, choice: str) -> None:
    page.locator(f".st-key-comprehension-{n}-task").wait_for()
    wait_idle(page)
    choose(page, f"comprehension-{n}-task", choice)
    page.locator(f".st-key-submit-comprehension-{n}").get_by_role("button").click()


def open_as(page, server, pid: str) -> None:
    # The screen-out page sends the browser to Prolific: answered here, so no test reaches the network.
    page.route(
        "https://app.prolific.com/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body="<title>Prolific stub</title>ok"),
    )
    page.goto(server.url + QUERY.format(pid=pid, session=pid[::-1]))
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)
    start_after_consent(page)


def test_two_wrong_attempts_show_the_screen_out_code(server, browser):
    page = browser.new_page()
    open_as(page, server, "5f3a9c0e1b2d4c6a8e0f1a2b")
    attempt(page, 1, "Write stories")
    page.get_by_text("this is your last attempt").wait_for()
    attempt(page, 2, "Write stories")
    page.wait_for_url(f"https://app.prolific.com/submissions/complete?cc={SCREEN}", timeout=30_000)
    page.close()


def test_a_right_second_attempt_goes_on_to_the_situations(server, browser):
    page = browser.new_page()
    open_as(page, server, "5f3a9c0e1b2d4c6a8e0f1a2c")
    attempt(page, 1, "Write stories")
    attempt(page, 2, "Rate chatbot responses")
    wait_situation(page, 1, 2)
    page.close()
