"""Nobody is paid twice for one reason, whatever stops a run: an exception injected after every store write and
around every call to Prolific (a kill at that point, as far as the store and Prolific can tell), servers that
answer 500 after doing the work or answer too slowly, a refused pay call, a refused create; and the whole
cycle on every store.

What Prolific paid is the stub's record of each submission's `bonus_payments` (cents).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from infact.errors import InfactError
from infact.prolific import bonus, ledger, review, setup, sync
from infact.prolific.bonus_input import Line
from infact.prolific.session import open_session
from tests.support.prolific import TOKEN, pid, play, submissions
from tests.support.stores import STORAGE_KINDS, make_storage

LINES = [Line(pid(0), 50), Line(pid(1), 100), Line(pid(2), 70)]
OWED = {pid(0): [50], pid(1): [100], pid(2): [70]}
EVENTS = 12  # 3 claims, seal, intent, create (before, after), created, pay_sent, pay (before, after), paid


class Crash(Exception):
    """Stands for a kill: the run stops here, with nothing after this point stored or sent."""


def paid(stub) -> dict[str, list[int]]:
    return {s["participant_id"]: s["bonus_payments"] for s in stub.submissions.values() if s["bonus_payments"]}


@pytest.fixture
def prolific_id(session, stub) -> str:
    made = setup.create(session).prolific_id
    for i in range(3):
        stub.add_submission(made, pid(i), "APPROVED")
    return made


@contextmanager
def sessions(tmp_path, study, stub, n: int = 1) -> Iterator[tuple[list, str]]:
    """`n` sessions, each on its own store object on one TinyDB folder (as `n` processes have), and a study on
    Prolific whose three participants are approved; closed at the end."""
    stores = [make_storage("tinydb", tmp_path) for _ in range(n)]
    opened = [
        open_session(study, st, base_url=stub.url, environ={"PROLIFIC_TOKEN": TOKEN}, sleep=lambda _: None)
        for st in stores
    ]
    try:
        prolific_id = setup.create(opened[0]).prolific_id
        for i in range(3):
            stub.add_submission(prolific_id, pid(i), "APPROVED")
        yield opened, prolific_id
    finally:
        for s, st in zip(opened, stores, strict=True):
            s.client.close()
            st.close()


def together(*work: Callable[[], None]) -> None:
    """Run each on its own thread, all at once; return when all are done."""
    threads = [threading.Thread(target=w) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def refused(session, stub, prolific_id: str, path: str, status: int) -> None:
    """Prolific refuses the next POST to `path` with `status`: the run stops with an error, nothing paid."""
    stub.fail("POST", path, status)
    with pytest.raises(InfactError):
        run(session, prolific_id)
    assert not paid(stub)


def run(session, prolific_id: str, lines=LINES, reason: str = "bonus") -> list[ledger.Batch]:
    return bonus.apply(session, bonus.plan(session, lines, reason, prolific_id, source="test"), prolific_id)


def settle(session, stub, prolific_id: str) -> None:
    """Run again until nothing is owed. Where a pay call's fate is unknown and Prolific's list does not show it,
    answer as the researcher who checked on Prolific (the stub knows whether it paid)."""
    for _ in range(4):
        try:
            run(session, prolific_id)
            return
        except bonus.PayUncertain:
            for b in ledger.read(session.records()).unfinished():
                if b.uncertain:
                    bid = b.sent[b.attempts]
                    bonus.confirm(session, bid, paid=stub.bonuses[bid]["pay_calls"] > 0)
    raise AssertionError("still not settled after four runs")


def inject(session, at: int) -> dict:
    """Raise Crash at the `at`-th event: after a bonus record is stored, before or after a POST to Prolific."""
    seen = {"n": 0, "where": None}
    append, post = session.storage.append, session.client.post

    def tick(where: str) -> None:
        seen["n"] += 1
        if seen["n"] == at:
            seen["where"] = where
            raise Crash(where)

    def crashing_append(record: dict) -> bool:
        stored = append(record)
        if record["kind"] in (ledger.CLAIM, ledger.BATCH):
            tick(f"after storing {record['key'].split('/', 3)[3]}")
        return stored

    def crashing_post(path: str, body=None, **kw):
        tick(f"before POST {path}")
        answer = post(path, body, **kw)
        tick(f"after POST {path}")
        return answer

    session.storage.append, session.client.post = crashing_append, crashing_post
    return seen


@pytest.mark.parametrize("at", range(1, EVENTS + 2))
def test_a_run_stopped_at_any_point_then_rerun_pays_each_participant_once(at, tmp_path, study, stub):
    with sessions(tmp_path, study, stub) as ([s], prolific_id):
        seen = inject(s, at)
        try:
            run(s, prolific_id)
        except Crash:
            pass
        assert (seen["where"] is not None) == (at <= EVENTS), seen
        settle(s, stub, prolific_id)
        assert paid(stub) == OWED, seen["where"]
        assert sum(b["pay_calls"] for b in stub.bonuses.values()) == 1
        assert run(s, prolific_id) == [] and paid(stub) == OWED  # and a run after that sends nothing


def test_a_pay_answered_500_after_paying_is_recorded_paid_from_prolifics_list(session, stub, prolific_id):
    session.client.retries = 0
    stub.fail("POST", "/pay/$", 500, after=True)
    with pytest.raises(bonus.PayUncertain, match="500"):
        run(session, prolific_id)
    assert paid(stub) == OWED
    assert run(session, prolific_id) == []  # Prolific's bonus_payments show it: recorded paid, nothing sent
    (b,) = ledger.read(session.records()).batches.values()
    assert b.status == "paid" and "bonus_payments" in b.paid["how"]
    assert paid(stub) == OWED and len(stub.pay_calls()) == 1


def test_a_pay_answered_too_slowly_is_never_sent_again(session, stub, prolific_id):
    session.client._http.timeout = session.client._http.timeout.__class__(0.3)
    stub.delay("POST", "/pay/$", 1.0, after=True)
    with pytest.raises(bonus.PayUncertain, match="no answer in time"):
        run(session, prolific_id)
    session.client._http.timeout = session.client._http.timeout.__class__(20.0)
    run(session, prolific_id)
    assert paid(stub) == OWED and len(stub.pay_calls()) == 1


def test_an_unanswered_pay_call_not_on_prolifics_list_waits_for_the_researcher(session, stub, prolific_id):
    session.client.retries = 0
    stub.fail("POST", "/pay/$", 502)  # not carried out, but the client cannot know
    with pytest.raises(bonus.PayUncertain, match="502"):
        run(session, prolific_id)
    with pytest.raises(bonus.PayUncertain, match="--confirm-unpaid"):
        run(session, prolific_id)
    assert not paid(stub)
    (b,) = ledger.read(session.records()).unfinished()
    bonus.confirm(session, b.sent[1], paid=False)
    run(session, prolific_id)
    assert paid(stub) == OWED and len(stub.pay_calls()) == 1


def test_a_refused_pay_call_is_sent_again_next_time(session, stub, prolific_id):
    refused(session, stub, prolific_id, "/pay/$", 403)
    run(session, prolific_id)
    assert paid(stub) == OWED and len(stub.pay_calls()) == 1


def test_a_refused_create_frees_the_claims(session, stub, prolific_id):
    refused(session, stub, prolific_id, "/submissions/bonus-payments/$", 400)
    (b,) = ledger.read(session.records()).batches.values()
    assert b.status == "void" and not ledger.read(session.records()).unfinished()
    run(session, prolific_id)
    assert paid(stub) == OWED


def test_two_runs_at_once_on_one_store_pay_each_participant_once(tmp_path, study, stub):
    """Two sessions (two store objects on one TinyDB folder, as two processes have) apply at the same time;
    creating a bulk bonus is slow, so both are in flight together."""
    with sessions(tmp_path, study, stub, 2) as (both, prolific_id):
        plans = [bonus.plan(s, LINES, "bonus", prolific_id, source="test") for s in both]  # both see all owed
        stub.delay("POST", "/submissions/bonus-payments/$", 0.5, times=2)
        errors = []

        def go(s, p):
            try:
                bonus.apply(s, p, prolific_id)
            except InfactError as exc:
                errors.append(exc)

        together(*(lambda pair=pair: go(*pair) for pair in zip(both, plans, strict=True)))
        assert not errors
        assert paid(stub) == OWED and len(stub.pay_calls()) == 1


def test_two_runs_finishing_one_batch_at_once_pay_it_once(tmp_path, study, stub):
    """A run sealed a batch and is creating its bulk bonus (slowly) when a second run starts and finishes the
    same batch: two bulk bonuses may be created (creating is free), one pay call is sent."""
    with sessions(tmp_path, study, stub, 2) as (both, prolific_id):
        batch = bonus.open_batch(both[0], LINES, "bonus")
        stub.delay("POST", "/submissions/bonus-payments/$", 0.4, times=2)
        stub.delay("POST", "/pay/$", 0.4, times=2)
        outcomes = []

        def first():
            try:
                outcomes.append(bonus.settle(both[0], batch, prolific_id).status)
            except InfactError as exc:
                outcomes.append(type(exc).__name__)

        def second():
            plan = bonus.plan(both[1], LINES, "bonus", prolific_id, source="test")
            assert not plan.to_pay and [b.name for b in plan.unfinished] == [batch.name]
            try:
                bonus.apply(both[1], plan, prolific_id)
                outcomes.append("paid")
            except InfactError as exc:
                outcomes.append(type(exc).__name__)

        together(first, second)
        assert "paid" in outcomes, outcomes
        assert paid(stub) == OWED and len(stub.pay_calls()) == 1


@pytest.mark.parametrize("kind", STORAGE_KINDS)
def test_the_cycle_on_every_store(kind, tmp_path, stub, study):
    storage = make_storage(kind, tmp_path)
    s = open_session(study, storage, base_url=stub.url, environ={"PROLIFIC_TOKEN": TOKEN}, sleep=lambda _: None)
    try:
        play(study, storage, ["attentive", "abandons"])
        prolific_id = setup.create(s).prolific_id
        assert setup.create(s).prolific_id == prolific_id
        submissions(stub, prolific_id, ["AWAITING REVIEW", "RETURNED"])
        assert len(sync.sync(s).released) == 1
        review.apply(s, review.plan(s))
        (b,) = run(s, prolific_id, LINES[:1])
        assert b.status == "paid" and b.bonus_id
        assert run(s, prolific_id, LINES[:1]) == []
        assert review.apply(s, review.plan(s)).applied == []
        assert len(stub.pay_calls()) == 1 and len(stub.studies) == 1
    finally:
        s.client.close()
        storage.close()
