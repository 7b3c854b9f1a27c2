"""The situation load kept up to date from the change feed equals the one counted from
every record (assignment.load), on every backend — leases, withdrawals and previews
included — and a consent no longer reads the whole study."""

from __future__ import annotations

from datetime import timedelta

import pytest

from infact.participation import assignment
from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.participation.situation_load import SituationLoad, for_store
from infact.study.loader import load_study
from tests.support.participants import submit_consent
from tests.support.studies import FakeClock, make_study, walk


def counted_from_records(study, storage, now):
    answered, reserved = assignment.load(study, storage.records(), now)
    return +answered, +reserved  # unary plus drops zero counts


def kept(load: SituationLoad, now):
    answered, reserved = load.current(now)
    return +answered, +reserved


@pytest.mark.parametrize("delete_on_withdraw", [False, True])
def test_kept_load_equals_the_load_counted_from_every_record(tmp_path, storage, delete_on_withdraw):
    study = load_study(
        make_study(
            tmp_path,
            n_situations=12,
            per_participant=5,
            assignment={"lease_minutes": 30},
            study={"delete_on_withdraw": delete_on_withdraw},
        )
    )
    clock = FakeClock()
    start = clock.now
    incremental = SituationLoad(storage, study.id)
    assert kept(incremental, start) == ({}, {})  # nothing stored yet
    run_bots(study, storage, 12, seed=5, start=start)  # a mix: completes, abandons, fails checks …
    flow = Flow(study, storage, clock=clock)
    leaver = flow.arrive({})
    submit_consent(flow, leaver)
    walk(flow, leaver, until="situation-3")
    preview = flow.arrive({}, preview=True)
    submit_consent(flow, preview)
    for minutes in (0, 5, 29, 31, 120, 600):
        now = start + timedelta(minutes=minutes)
        if minutes == 31:
            flow.withdraw(leaver, "changed my mind")
        expected = counted_from_records(study, storage, now)
        assert kept(incremental, now) == expected, f"after {minutes} min"
        assert kept(SituationLoad(storage, study.id), now) == expected  # from nothing, too
    assert sum(expected[0].values()) > 0


def test_a_lease_ending_frees_the_situations_without_new_records(tmp_path, storage):
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
    flow = Flow(study, storage, clock=clock)
    token = flow.arrive({})
    submit_consent(flow, token)
    load = SituationLoad(storage, study.id)
    assert sum(load.current(clock.now)[1].values()) == 4
    assert sum(load.current(clock.now + timedelta(minutes=5))[1].values()) == 0
    # a clock that goes back (tests, or a server whose clock was corrected) counts afresh
    assert sum(load.current(clock.now + timedelta(minutes=4))[1].values()) == 4


class CountingStore:
    """Records which reads a consent makes."""

    def __init__(self, inner):
        self.inner = inner
        self.reads: list[dict] = []

    def records(self, **filters):
        self.reads.append(filters)
        return self.inner.records(**filters)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_consent_reads_only_the_participant_and_what_changed(tmp_path, storage):
    study = load_study(make_study(tmp_path, n_situations=10, per_participant=3))
    store = CountingStore(storage)
    clock = FakeClock()
    run_bots(study, storage, 5, strategy="attentive", seed=1, start=clock.now)
    flow = Flow(study, store, clock=clock)
    token = flow.arrive({})
    store.reads.clear()
    submit_consent(flow, token)
    assert store.reads and all(r.get("participant") == token for r in store.reads), store.reads


def test_one_load_per_store_and_study(tmp_path, storage):
    assert for_store(storage, "a") is for_store(storage, "a")
    assert for_store(storage, "a") is not for_store(storage, "b")


def test_warming_reads_the_study_before_the_first_consent(tmp_path, storage):
    study = load_study(make_study(tmp_path, n_situations=10, per_participant=3))
    clock = FakeClock()
    run_bots(study, storage, 3, strategy="attentive", seed=1, start=clock.now)
    load = SituationLoad(storage, study.id)
    load.warm_in_background(clock).join(timeout=60)
    assert load.warm_in_background(clock) is None  # once per store and study
    answered = +load.answered  # counted before anyone asked
    assert answered and answered == counted_from_records(study, storage, clock.now)[0]
