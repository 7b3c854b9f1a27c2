"""A store outage is told as an outage (issue 36, item 10), under AppTest on the TinyDB store whose every call
is made to fail as a failing disk fails it (OSError EIO) while `down` is on. The same with a real PostgreSQL
server stopped and started again: tests/stores/test_pg_outage.py.

Before: a participant met "Sorry, something went wrong" (TinyDB) or "We could not find your session … Start
the study from the beginning" (PostgreSQL), and every request logged a traceback (or nothing at all).
"""

from __future__ import annotations

import errno
import logging
import socket

import pytest
from streamlit.testing.v1 import AppTest

from infact.storage import TinyDBStorage
from infact.stores import outage as outage_store
from infact.ui import outage
from tests.support.app import (
    APP,
    give_consent,
    open_app,
    open_dashboard,
    rate,
    run,
    situation_index,
    submit_situation,
    token_of,
)
from tests.support.outages import OUTAGE_LOGGER, FailingDisk, assert_paused, error_lines, outage_records
from tests.support.paths import DEMO_STUDY


@pytest.fixture
def tracker(monkeypatch) -> outage_store.Outage:
    """This test's own outage tracker (the process's one is shared by every session)."""
    fresh = outage_store.Outage()
    monkeypatch.setattr(outage, "OUTAGE", fresh)
    return fresh


@pytest.mark.slow  # about 10 s: a participant, two reloads, two dashboards
def test_participants_see_an_outage_not_a_lost_session_and_it_is_logged_once(store, monkeypatch, tracker, caplog):
    disk = FailingDisk(monkeypatch)
    at = give_consent(open_app())
    token = token_of(at)
    rate(at)
    submit_situation(at)
    assert situation_index(at) == 2
    caplog.set_level(logging.INFO)
    disk.down = True
    # A reload of the personal link, a second participant's reload, and a submit on an open page.
    reloaded = run(open_app({"p": token}))
    assert_paused(reloaded)
    assert_paused(run(open_app({"p": token})))
    rate(at)
    at.button(key="submit-situation-2").click()
    run(at)
    assert_paused(at, unsent=True)
    assert disk.refused >= 3 and tracker.active and tracker.status().failures >= 3
    # One error line for the outage, whatever the number of requests; no traceback for any of them.
    assert len(error_lines(caplog, OUTAGE_LOGGER)) == 1, caplog.text
    assert error_lines(caplog) == error_lines(caplog, OUTAGE_LOGGER), caplog.text
    # The researcher's dashboard says so (from this process's memory: the store cannot be read).
    dashboard = open_dashboard(DEMO_STUDY, store, monkeypatch, "Progress")
    assert any("The store is unavailable" in e.value for e in dashboard.error), [e.value for e in dashboard.error]
    assert len(error_lines(caplog)) == 1, caplog.text
    # The disk is back: the page carries on where the participant was (situation 2, not saved, again),
    # the end is logged once, and the outage is stored for every replica's dashboard.
    disk.down = False
    at.session_state["infact_outage_paused"] = 0.0  # as if RETRY_S had passed: the page's own check reruns it
    run(at)
    assert situation_index(at) == 2 and outage.BACK in [i.value for i in at.info]
    assert not tracker.active
    assert [r.levelno for r in caplog.records if r.name == OUTAGE_LOGGER] == [logging.ERROR, logging.WARNING]
    [stored] = outage_records(TinyDBStorage(store))
    assert stored["failed_requests"] >= 3 and stored["ended_at"] >= stored["started_at"]
    answered = {r["step"] for r in TinyDBStorage(store).records(participant=token) if r["kind"] == "situation"}
    assert answered == {"situation-1"}  # nothing stored was lost, nothing was stored twice
    rate(at)
    submit_situation(at)
    assert situation_index(at) == 3
    dashboard = open_dashboard(DEMO_STUDY, store, monkeypatch, "Progress")
    assert any("Store outages** (1)" in w.value for w in dashboard.warning), [w.value for w in dashboard.warning]


def test_a_visitor_during_an_outage_is_told_it_when_consenting(store, monkeypatch, tracker, caplog):
    disk = FailingDisk(monkeypatch)
    caplog.set_level(logging.INFO)
    disk.down = True
    at = open_app()  # the consent page needs nothing from the store: it is drawn
    assert at.checkbox(key="consent") is not None
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    run(at)
    assert_paused(at, unsent=True)
    assert "p" not in at.query_params
    assert len(error_lines(caplog)) == 1 and len(error_lines(caplog, OUTAGE_LOGGER)) == 1, caplog.text
    disk.down = False
    at.session_state["infact_outage_paused"] = 0.0
    run(at)
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    run(at)
    assert situation_index(at) == 1


def test_a_store_that_reads_but_refuses_a_write_is_not_an_outage(store, monkeypatch, tracker):
    # tests/ui/test_readonly_store.py: that answer is refused beside its button; nothing is paused.
    at = give_consent(open_app())
    rate(at)
    real = TinyDBStorage.append

    def refuse(store, record):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(TinyDBStorage, "append", refuse)
    at.button(key="submit-situation-1").click()
    run(at)
    assert not tracker.active and situation_index(at) == 1
    monkeypatch.setattr(TinyDBStorage, "append", real)


@pytest.mark.slow  # about 2.5 s: three app runs that each try to connect
def test_a_process_started_while_the_database_is_down_pauses_its_participants(monkeypatch, tracker, caplog):
    # Nothing listens on this port: the store cannot even be opened. Not "This study is not available".
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("INFACT_DB", f"postgresql://infact:secret-pw@127.0.0.1:{port}/nowhere")
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    caplog.set_level(logging.INFO)
    for _ in range(3):
        at = run(AppTest.from_file(str(APP), default_timeout=60))
        assert outage.PAUSED in [w.value for w in at.warning], [w.value for w in at.warning]
        assert not [e for e in at.error if "not available" in e.value]
    assert tracker.status().failures == 3
    assert len(error_lines(caplog)) == 1 and "secret-pw" not in caplog.text, caplog.text
