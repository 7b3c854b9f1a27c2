"""A store outage in a real browser (issue 36, item 10): the app on a PostgreSQL server of this test's own,
which is stopped under a participant and started again. The participant's reload shows that saving is
paused and their answers are safe; once the server is back the page carries on by itself (no click: its
own check every few seconds), where they were; the server's log has one line for the outage and one for
its end. AppTest cannot show the "by itself" (it runs no timers): tests/stores/test_pg_outage.py has the
rest, without a browser.
"""

from __future__ import annotations

import pytest

from infact.ui.outage import BACK, RETRY_S
from simulations.browser import (
    DEMO_STUDY,
    consent,
    open_study,
    rate_all,
    shot,
    start_server,
    stop_server,
    submit_situation,
    wait_situation,
)
from tests.support.outages import OwnPostgres
from tests.support.stores import postgres_url

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.timeout(300)]


def test_the_paused_page_carries_on_by_itself_once_the_database_is_back(page, tmp_path):
    postgres_url()  # skips (or fails on CI) where the suite has no PostgreSQL, as every postgres test does
    own = OwnPostgres()
    server = start_server(tmp_path / "app", DEMO_STUDY, store=own.url)
    try:
        open_study(page, server.url)
        consent(page)
        rate_all(page)
        submit_situation(page, 1)
        own.stop()
        page.reload()
        page.get_by_text("Saving is paused for a moment.").wait_for()
        page.get_by_text("Your answers so far are safe.").wait_for()
        assert page.get_by_text("could not find your session").count() == 0
        assert page.get_by_role("button", name="Start the study from the beginning").count() == 0
        shot(page, "store-outage-paused")
        own.start()
        # Nobody clicks: the page's own check finds the server within a few RETRY_S and reruns the page.
        page.get_by_text(BACK).wait_for(timeout=(6 * RETRY_S + 10) * 1000)
        wait_situation(page, 2)
        shot(page, "store-outage-back")
    finally:
        stop_server(server)
        own.remove()
    log = server.log.read_text(errors="replace")
    assert log.count("the store is unavailable") == 1, server.log_tail(60)
    assert log.count("the store is back after") == 1, server.log_tail(60)
    assert "Traceback" not in log, server.log_tail(60)
