"""Balanced assignment: least-rated situations first, leases, no over-filling under concurrency."""

from __future__ import annotations

import math
import threading
from collections import Counter
from datetime import timedelta

import pytest

from infact.participation import assignment
from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.participants import consented, submit_consent
from tests.support.studies import FakeClock, answers_for, make_study, walk


def regular_ids(flow, token) -> list[str]:
    return [s.situation_id for s in flow.steps(flow.state(token)) if s.kind == "situation" and not s.attention_check]


def answer_situations(flow, token, n: int) -> None:
    for _ in range(n):
        st = flow.state(token)
        step = flow.current(st)
        assert step.kind == "situation"
        assert flow.submit(token, step.name, answers_for(flow.study, step)).ok


@pytest.mark.slow
def test_fifty_concurrent_bots_balance_the_situations(tmp_path):
    # 20 situations, 4 regular per participant: 50 participants give 200 ratings, 10 each.
    study = load_study(make_study(tmp_path, n_situations=20, per_participant=5))
    storage = TinyDBStorage(tmp_path / "store")
    start = FakeClock()()
    try:
        results = run_bots(study, storage, 50, strategy="attentive", seed=3, concurrency=12, start=start)
        records = storage.records(study=study.id)
    finally:
        storage.close()
    assert len(results) == 50 and all(r.completed for r in results)
    assert len({r.token for r in results}) == 50
    per_situation = Counter(r["situation_id"] for r in records if r["kind"] == "situation" and not r["attention_check"])
    assert set(per_situation) == {s.situation_id for s in study.situations}
    assert max(per_situation.values()) - min(per_situation.values()) <= 1
    assert sum(per_situation.values()) == 50 * 4
    by_token = {}
    for rec in records:
        by_token.setdefault(rec["participant"], []).append(rec)
    for result in results:
        recs = by_token[result.token]
        answered = [r for r in recs if r["kind"] in ("consent", "situation", "questionnaire", "demographics")]
        assert len(answered) == result.steps_submitted == 1 + 5 + 2  # no lost records
        sids = [r["situation_id"] for r in answered if r["kind"] == "situation"]
        assert len(sids) == len(set(sids)) == 5  # no situation twice for one participant
        assert sum(r["kind"] == "complete" for r in recs) == 1
        assert len({r["key"] for r in recs}) == len(recs)
    cov = assignment.coverage(study, records, start + timedelta(hours=1))
    assert {c["ratings"] for c in cov} == {10} and {c["reserved"] for c in cov} == {0}
    assert {c["missing"] for c in cov} == {0}


def test_twenty_participants_at_the_same_moment_do_not_overfill(tmp_path, storage):
    # Everyone consents at the same clock time from their own thread: 20 × 4 reservations
    # over 20 situations must be exactly 4 each (the lock makes each see the others).
    study = load_study(
        make_study(tmp_path, n_situations=20, per_participant=5, assignment={"ratings_per_situation": 4})
    )
    clock = FakeClock()
    flow = Flow(study, storage, clock=clock)
    tokens = [flow.arrive({}) for _ in range(20)]
    barrier = threading.Barrier(20)
    errors = []

    def go(token):
        try:
            barrier.wait()
            submit_consent(Flow(study, storage, clock=clock), token)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    reserved = Counter(sid for t in tokens for sid in regular_ids(flow, t))
    share = math.ceil(20 * 4 / len(study.situations))
    assert max(reserved.values()) <= share and min(reserved.values()) >= share - 1
    cov = assignment.coverage(study, storage.records(), clock())
    assert all(c["reserved"] == reserved[c["situation_id"]] for c in cov)
    assert all(c["ratings"] == 0 and c["missing"] == 4 for c in cov)


def test_least_rated_situations_first(tmp_path, storage):
    study = load_study(make_study(tmp_path, n_situations=8, per_participant=5))
    flow = Flow(study, storage, clock=FakeClock())
    first = consented(flow)
    second = consented(flow)
    assert set(regular_ids(flow, first)).isdisjoint(regular_ids(flow, second))
    assert set(regular_ids(flow, first)) | set(regular_ids(flow, second)) == {s.situation_id for s in study.situations}
    walk(flow, first)
    walk(flow, second)
    third = consented(flow)
    assert len(set(regular_ids(flow, third))) == 4  # every situation has one rating: any four


def test_prefers_situations_from_different_dialogs(tmp_path, storage):
    # 8 dialogs with 2 situations each, 4 per participant: the first three participants can
    # each see 4 different dialogs among the least-rated situations (the fourth may not: the
    # last 4 unrated situations may be two dialogs, and balance comes first).
    study = load_study(make_study(tmp_path, n_situations=16, per_dialog=2, per_participant=5))
    flow = Flow(study, storage, clock=FakeClock())
    for _ in range(3):
        token = consented(flow)
        dialogs = [study.situation(sid).dialog_id for sid in regular_ids(flow, token)]
        assert len(set(dialogs)) == 4


def test_lease_releases_unanswered_reservations(tmp_path, storage):
    study = load_study(
        make_study(
            tmp_path,
            n_situations=8,
            per_participant=5,
            assignment={"lease_minutes": 5},
            attention_check={"positions": [5, 5]},
        )
    )
    clock = FakeClock()
    t0 = clock.now
    flow = Flow(study, storage, clock=clock)
    gone = consented(flow)
    answer_situations(flow, gone, 1)  # then closes the tab
    mine = regular_ids(flow, gone)
    answered, unanswered = mine[0], set(mine[1:])

    def cov(minutes):
        return {
            c["situation_id"]: (c["ratings"], c["reserved"])
            for c in assignment.coverage(study, storage.records(), t0 + timedelta(minutes=minutes))
        }

    assert cov(4.9)[answered] == (1, 0)
    assert all(cov(4.9)[sid] == (0, 1) for sid in unanswered)
    assert cov(5)[answered] == (1, 0)  # answered ratings keep counting
    assert all(cov(5)[sid] == (0, 0) for sid in unanswered)  # the rest is free again
    # someone arriving before the lease ends avoids all four; after it, takes the freed ones
    clock.advance(60)
    early = consented(flow)
    assert set(regular_ids(flow, early)).isdisjoint(mine)
    clock.now = t0 + timedelta(minutes=5.5)
    assert all(cov(5.5)[sid] == (0, 1) for sid in regular_ids(flow, early))  # early's lease still runs
    late = consented(flow)
    assert unanswered < set(regular_ids(flow, late))


def test_completed_participants_count_only_what_they_answered(tmp_path, storage):
    study = load_study(make_study(tmp_path, n_situations=8, per_participant=5, assignment={"lease_minutes": 5}))
    clock = FakeClock()
    flow = Flow(study, storage, clock=clock)
    token = consented(flow)
    walk(flow, token)
    for minutes in (1, 10):
        cov = assignment.coverage(study, storage.records(), clock.now + timedelta(minutes=minutes))
        assert Counter(c["ratings"] for c in cov) == {1: 4, 0: 4}
        assert all(c["reserved"] == 0 for c in cov)


def test_screened_out_participant_releases_the_rest(tmp_path, storage):
    study = load_study(
        make_study(
            tmp_path,
            n_situations=8,
            per_participant=5,
            attention_check={"positions": [2, 2]},
            quality={"on_attention_fail": "screen_out"},
        )
    )
    flow = Flow(study, storage, clock=FakeClock())
    token = consented(flow)
    answer_situations(flow, token, 1)
    step = flow.current(flow.state(token))
    assert step.attention_check
    flow.submit(token, step.name, answers_for(study, step, fail_check=True))
    assert flow.state(token).complete["outcome"] == "screened_out"
    cov = assignment.coverage(study, storage.records(), flow.clock())
    assert sum(c["ratings"] for c in cov) == 1 and sum(c["reserved"] for c in cov) == 0


def test_coverage_reports_target_and_missing(tmp_path, storage):
    study = load_study(make_study(tmp_path, n_situations=4, per_participant=3, assignment={"ratings_per_situation": 2}))
    flow = Flow(study, storage, clock=FakeClock())
    for _ in range(3):
        walk(flow, consented(flow))
    cov = assignment.coverage(study, storage.records(), flow.clock())
    assert [c["situation_id"] for c in cov] == [s.situation_id for s in study.situations]
    assert sorted(c["ratings"] for c in cov) == [1, 1, 2, 2]
    assert all(c["target"] == 2 and c["missing"] == 2 - c["ratings"] for c in cov)
    assert {"situation_id", "dialog_id", "ratings", "reserved", "target", "missing"} <= set(cov[0])


@pytest.mark.parametrize("seed", range(3))
def test_plan_respects_bounds_and_never_repeats(tmp_path, seed):
    import random

    study = load_study(make_study(tmp_path, n_situations=9, per_participant=10, attention_check={"positions": [3, 8]}))
    steps = assignment.plan_assignment(study, [], rng=random.Random(seed), now=FakeClock()())
    assert [s["index"] for s in steps] == list(range(1, 11))
    assert [s["step"] for s in steps] == [f"situation-{i}" for i in range(1, 11)]
    checks = [s for s in steps if s["attention_check"]]
    assert len(checks) == 1 and 3 <= checks[0]["index"] <= 8
    regular = [s["situation_id"] for s in steps if not s["attention_check"]]
    assert sorted(regular) == sorted(s.situation_id for s in study.situations)
