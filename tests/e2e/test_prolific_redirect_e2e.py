"""A Prolific participant is sent back to Prolific in the same tab once every answer is stored (issue 10, item 6).

Prolific is not reachable from the test: requests to app.prolific.com are answered by
a stub page, so the test sees where the browser went.
"""

from __future__ import annotations

import pytest

from simulations.browser import (
    consent,
    rate_all,
    require_chromium,
    small_study,
    start_server,
    stop_server,
    submit_questionnaires,
    submit_situation,
    wait_idle,
)

pytestmark = pytest.mark.e2e
CODE = "C1E2ETST"
QUERY = "?PROLIFIC_PID={pid}&STUDY_ID=6a1b2c3d4e5f6a7b8c9d0e1f&SESSION_ID={session}"
PIDS = {"laptop": "5f3a9c0e1b2d4c6a8e0f1a2b", "phone": "5f3a9c0e1b2d4c6a8e0f1a2c"}


@pytest.fixture(scope="module")
def prolific_server(tmp_path_factory):
    require_chromium()
    work = tmp_path_factory.mktemp("e2e-prolific")
    study = small_study(work, per_participant=2, check_at=1, platform=f'kind = "prolific"\ncompletion_code = "{CODE}"')
    server = start_server(work, study)
    yield server
    stop_server(server)


def test_completion_redirects_in_the_same_tab_with_the_link_as_fallback(prolific_server, device_context, device):
    pages_before = len(device_context.pages)
    page = device_context.new_page()
    page.route(
        "https://app.prolific.com/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body="<title>Prolific stub</title>ok"),
    )
    page.goto(prolific_server.url + QUERY.format(pid=PIDS[device], session=PIDS[device][::-1]))
    page.get_by_role("button", name="Start the study").wait_for()
    wait_idle(page)
    token = consent(page, 2)
    for n in (1, 2):
        rate_all(page)
        submit_situation(page, n, 2)
    submit_questionnaires(page)

    # Read the fallback link the moment it is drawn: the redirect follows shortly after.
    href, target, text = page.wait_for_function(
        """() => { const a = [...document.querySelectorAll('a')].find(a => a.innerText.includes('Return to Prolific'));
                   return a && [a.href, a.getAttribute('target'), document.body.innerText]; }"""
    ).json_value()
    assert href == f"https://app.prolific.com/submissions/complete?cc={CODE}"
    assert target in (None, "", "_self", "_top"), f"the fallback link opens a new tab (target={target})"
    assert CODE in text, "the code is not shown next to the link"
    page.wait_for_url("https://app.prolific.com/submissions/complete?cc=" + CODE, timeout=15_000)
    assert len(device_context.pages) == pages_before + 1, "the redirect opened another tab"
    [complete] = prolific_server.records(participant=token, kind="complete")
    assert complete["outcome"] == "completed"
