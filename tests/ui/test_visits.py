"""Visits to the study page (infact.participation.visits) under AppTest: a visit is stored
once, before and apart from any participant record; a rerun or a reload with the browser's
cookie is the same visit; a Prolific session is one visit on any device and its ID is not
stored; consenting links the visit to the participant, so the funnel counts one person."""

from __future__ import annotations

import importlib
import json
from datetime import UTC, datetime

import pytest

from infact.participation import visits
from infact.results.dashboard.data import DashboardData
from infact.results.quality import funnel
from infact.study.loader import load_study
from tests.support.app import (
    DEMO,
    PID,
    PROLIFIC_QUERY,
    give_consent,
    html_bodies,
    open_app,
    prolific_study,
    records,
    token_of,
)

NOW = datetime(2030, 1, 1, tzinfo=UTC)


def with_cookies(monkeypatch, cookies: dict) -> None:
    """The next AppTest session arrives with these browser cookies (a reload)."""
    monkeypatch.setattr("streamlit.context", type("C", (), {"cookies": cookies})())


def counts(db, study_dir=DEMO) -> dict:
    data = DashboardData(load_study(study_dir))
    data.add(records(db))
    return data.stage_counts(NOW)


def test_a_visit_is_stored_once_and_a_reload_is_the_same_visit(store, monkeypatch):
    at = open_app()
    [visit] = records(store)
    assert visit["kind"] == "visit" and visit["participant"] == "_visits"  # one name for every visit
    assert set(visit) == {"key", "study", "dataset_version", "participant", "kind", "at", "preview", "visit"}
    at.run()  # a rerun of the same tab
    assert len(records(store)) == 1
    name = visits.cookie_name(load_study(DEMO))
    assert any(f"{name}={visit['visit']}" in body for body in html_bodies(at))  # the browser keeps it
    with_cookies(monkeypatch, {name: visit["visit"]})
    again = open_app()  # a reload: a new session with the cookie
    assert len(records(store)) == 1
    assert counts(store)["visited"] == 1 and counts(store)["consented"] == 0
    give_consent(again)
    token = token_of(again)
    linked = [r for r in records(store, kind="visit") if r.get("became")]
    assert [(r["participant"], r["became"]) for r in linked] == [(visit["participant"], token)]
    assert (counts(store)["visited"], counts(store)["consented"]) == (1, 1)  # one person, not two


def test_another_browser_is_another_visit(store, monkeypatch):
    open_app()
    with_cookies(monkeypatch, {})
    open_app()
    assert len(records(store, kind="visit")) == 2 and counts(store)["visited"] == 2


def test_a_prolific_session_is_one_visit_and_its_id_is_not_stored(tmp_path, monkeypatch, store):
    folder = prolific_study(tmp_path, monkeypatch)
    open_app(PROLIFIC_QUERY)
    open_app(PROLIFIC_QUERY)  # the same session on a second device
    [visit] = records(store)
    assert visit["visit"].startswith("s") and PID.lower() not in json.dumps(visit).lower()
    assert counts(store, folder)["visited"] == 1


@pytest.mark.parametrize("cookie", ["", "x" * 25, "../etc", "b" + "0" * 23])
def test_a_forged_visit_cookie_is_not_used(store, monkeypatch, cookie):
    with_cookies(monkeypatch, {visits.cookie_name(load_study(DEMO)): cookie})
    open_app()
    [visit] = records(store)
    assert visit["visit"] != cookie and visits.VISIT_ID.match(visit["visit"])


def test_visits_table_counts_each_visit_once():
    study = type("S", (), {"id": "s", "dataset_version": "v"})()
    from infact.storage import MemoryStorage

    storage = MemoryStorage()
    a, b = "b" + "1" * 24, "b" + "2" * 24
    visits.store_visit(storage, study, a, NOW)
    visits.store_visit(storage, study, a, NOW)  # stored again: the same key, a no-op
    visits.store_visit(storage, study, b, NOW)
    visits.store_consent(storage, study, b, "tok1", NOW)
    table = funnel.visits_table(storage.records())
    at = NOW.isoformat(timespec="milliseconds")
    assert table.to_dict("records") == [
        {"visit": a, "first_seen": at, "became": "", "visits": 1},
        {"visit": b, "first_seen": at, "became": "tok1", "visits": 1},
    ]
    assert funnel.visits_became(table) == {a: False, b: True}


class GateClock:
    """The consent gate's clock, moved on by the page's waiting instead of real time."""

    def __init__(self) -> None:
        self.now, self.slept = 0.0, []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def one_address_gate(monkeypatch, **bounds) -> GateClock:
    """This test's own consent gate on a fake clock, every session from one address (issue 38)."""
    from infact.ui import resources

    participant_page = importlib.import_module("infact.ui.participant_page")  # infact.ui's name is the function
    clock = GateClock()
    monkeypatch.setattr(visits, "_gates", {"demo": visits.ConsentGate(clock=clock, **bounds)})
    monkeypatch.setattr(resources, "client_source", lambda: "198.51.100.7")  # one address, many browsers
    monkeypatch.setattr(participant_page, "time", clock)  # the page's waiting moves the fake clock
    return clock


@pytest.mark.slow  # ~2 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_start_past_the_burst_waits_for_its_place_and_carries_on_by_itself(store, monkeypatch):
    """Issue 38: nobody is turned away or asked to press again; past the allowance the page waits."""
    from infact.ui.participant_page import WAITING

    clock = one_address_gate(monkeypatch, per_source=60, per_minute=0, burst=3)  # then one a second
    for _ in range(3):
        token_of(give_consent(open_app()))
    assert clock.slept == []  # the burst starts at once
    at = give_consent(open_app())  # the fourth, in the same instant: its place is a second later
    assert not at.error and not at.exception  # no refusal, no "press again"
    assert sum(clock.slept) == pytest.approx(1.0)  # waited for its place, by itself
    assert "p" in at.query_params and "consent_submit" not in [b.key for b in at.button]  # on to situation 1
    consented = {r["participant"] for r in records(store) if r["kind"] == "consent"}
    assert len(consented) == 4 and token_of(at) in consented
    assert {r["participant"] for r in records(store, kind="assignment")} == consented  # each drew situations
    assert "Please wait a minute" not in WAITING and "press the button again" not in WAITING


@pytest.mark.slow
def test_a_rerun_while_waiting_keeps_the_place_and_starts_without_another_press(store, monkeypatch):
    from infact.ui.participant_page import PLACE

    clock = one_address_gate(monkeypatch, per_source=60, per_minute=0, burst=1)
    token_of(give_consent(open_app()))
    gate = visits._gates["demo"]
    at = open_app()
    place = gate.admit("198.51.100.7")  # the press whose run a rerun cut short held this place
    assert place.wait() == pytest.approx(1.0)
    at.session_state[PLACE] = place
    at.checkbox(key="consent").check()  # a rerun with no press of "Start the study"
    at.run()
    assert not at.error and not at.exception
    assert "p" in at.query_params and "consent_submit" not in [b.key for b in at.button]  # started by itself
    assert sum(clock.slept) == pytest.approx(1.0)
    assert len({r["participant"] for r in records(store) if r["kind"] == "consent"}) == 2
