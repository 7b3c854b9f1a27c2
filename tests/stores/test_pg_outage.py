"""A real PostgreSQL server stopped under a running study and started again (issue 36, item 10).

Before: with the server stopped for 8 s every page told participants "We could not find your session …
Start the study from the beginning" (their answers were in fact safe: a read that failed looked like an
unknown participant), and nothing was logged. Now the page says saving is paused and their answers are
safe, carries on where they were once the server is back, the process logs one line for the outage (and
one when it ends), and the dashboard shows it. The server is this test's own (the suite's shared one
serves other tests meanwhile); the same with TinyDB is tests/ui/test_store_outage.py.
"""

from __future__ import annotations

import logging

import pytest

from infact.stores import outage as outage_store
from infact.stores.sql.store import SQLStorage
from infact.ui import outage
from tests.support.app import give_consent, open_app, open_dashboard, rate, run, situation_index, token_of
from tests.support.outages import OUTAGE_LOGGER, OwnPostgres, assert_paused, error_lines, outage_records
from tests.support.paths import DEMO_STUDY
from tests.support.stores import postgres_url

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture
def server(monkeypatch):
    postgres_url()  # skips (or fails on CI) where the suite has no PostgreSQL, as every postgres test does
    own = OwnPostgres()
    monkeypatch.setenv("INFACT_DB", own.url)
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    monkeypatch.setattr(outage, "OUTAGE", outage_store.Outage())
    try:
        yield own
    finally:
        own.remove()


def test_a_stopped_database_is_told_as_an_outage_and_the_study_carries_on(server, monkeypatch, caplog):
    at = give_consent(open_app())
    token = token_of(at)
    rate(at)
    at.button(key="submit-situation-1").click()
    run(at)
    assert situation_index(at) == 2
    caplog.set_level(logging.INFO)
    server.stop()
    # The participant reloads their link (twice), and presses submit on the page they had open.
    assert_paused(run(open_app({"p": token})))
    assert_paused(run(open_app({"p": token})))
    rate(at)
    at.button(key="submit-situation-2").click()
    run(at)
    assert_paused(at, unsent=True)
    assert "could not find" not in caplog.text
    dashboard = open_dashboard(DEMO_STUDY, server.url, monkeypatch, "Progress")
    assert any("The store is unavailable" in e.value for e in dashboard.error), [e.value for e in dashboard.error]
    assert outage.OUTAGE.status().failures >= 3
    assert error_lines(caplog) == error_lines(caplog, OUTAGE_LOGGER) and len(error_lines(caplog)) == 1, caplog.text
    # The server is back: the paused page's own check reruns it, where the participant was.
    server.start()
    at.session_state["infact_outage_paused"] = 0.0  # as if RETRY_S had passed
    run(at)
    assert situation_index(at) == 2 and outage.BACK in [i.value for i in at.info]
    assert [r.levelno for r in caplog.records if r.name == OUTAGE_LOGGER] == [logging.ERROR, logging.WARNING]
    rate(at)
    at.button(key="submit-situation-2").click()
    run(at)
    assert situation_index(at) == 3
    with SQLStorage(server.url) as store:
        steps = [r["step"] for r in store.records(participant=token) if r["kind"] == "situation"]
        assert steps == ["situation-1", "situation-2"]  # nothing lost, nothing twice
        [stored] = outage_records(store)
    assert stored["failed_requests"] >= 3
    dashboard = open_dashboard(DEMO_STUDY, server.url, monkeypatch, "Progress")
    assert any("Store outages** (1)" in w.value for w in dashboard.warning), [w.value for w in dashboard.warning]
