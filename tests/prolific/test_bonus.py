"""Bonuses in one process: created, priced, paid once; a refused pay call may be paid again, an unanswered one
never by itself. And the whole cycle on every store backend."""

from __future__ import annotations

import pytest

from infact.errors import InfactError
from infact.prolific import bonus, review, setup, sync
from infact.prolific.client import Unavailable
from infact.prolific.session import open_session
from tests.support.prolific import TOKEN, pid, play, submissions
from tests.support.stores import STORAGE_KINDS, make_storage

ROWS = [(pid(0), 0.5), (pid(1), 1.25)]


def test_a_bonus_is_created_priced_and_paid_once(session, stub):
    prolific_id = setup.create(session).prolific_id
    st = bonus.ensure_created(session, ROWS, "b1", prolific_id)
    assert st.created["amount"] == 175 and "total" in bonus.cost_line(st)
    assert not stub.pay_calls()  # created, not paid: paying needs --apply
    st = bonus.pay(session, st)
    assert st.paid and len(stub.pay_calls(st.bonus_id)) == 1
    again = bonus.pay(session, bonus.ensure_created(session, ROWS, "b1", prolific_id))
    assert again.paid and len(stub.pay_calls()) == 1 and len(stub.bonuses) == 1


def test_a_refused_pay_call_is_marked_unpaid_and_sent_again_next_time(session, stub):
    prolific_id = setup.create(session).prolific_id
    st = bonus.ensure_created(session, ROWS, "b1", prolific_id)
    stub.fail("POST", "/pay/$", 403)
    with pytest.raises(InfactError):
        bonus.pay(session, st)
    st = bonus.state(session, "b1")
    assert not st.uncertain and not st.paid
    assert bonus.pay(session, st).paid and len(stub.pay_calls()) == 1


def test_an_unanswered_pay_call_is_never_sent_again_by_itself(session, stub):
    prolific_id = setup.create(session).prolific_id
    st = bonus.ensure_created(session, ROWS, "b1", prolific_id)
    session.client.retries = 0
    stub.fail("POST", "/pay/$", 502)
    with pytest.raises(Unavailable):
        bonus.pay(session, st)
    st = bonus.state(session, "b1")
    assert st.uncertain
    with pytest.raises(bonus.PayUncertain, match="--confirm-unpaid"):
        bonus.pay(session, st)
    st = bonus.confirm(session, "b1", st.bonus_id, paid=False)  # the researcher checked Prolific
    assert bonus.pay(session, st).paid and len(stub.pay_calls()) == 1


def test_the_rule_pays_each_completed_participant(session, stub, study, tmp_path):
    from infact.study.loader import load_study
    from tests.support.prolific import prolific_study_folder

    session.study = load_study(prolific_study_folder(tmp_path / "rule", prolific={"bonus_per_completed": 0.4}))
    play(session.study, session.storage, ["attentive", "abandons", "attentive"])
    assert bonus.rule_rows(session) == [(pid(0), 0.4), (pid(2), 0.4)]


def test_a_bonus_csv_with_a_bad_line_names_the_line(tmp_path):
    f = tmp_path / "b.csv"
    f.write_text("participant_id,amount\nabc,0.5\nxyz,lots\n")
    with pytest.raises(InfactError, match=r"b.csv:3"):
        bonus.read_csv(f)
    f.write_text("abc,0.5\n")
    assert bonus.read_csv(f) == [("abc", 0.5)]


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
        st = bonus.pay(s, bonus.ensure_created(s, ROWS[:1], "b", prolific_id))
        assert bonus.state(s, "b").paid and st.bonus_id
        assert review.apply(s, review.plan(s)).applied == []
        assert len(stub.pay_calls()) == 1 and len(stub.studies) == 1
    finally:
        s.client.close()
        storage.close()
