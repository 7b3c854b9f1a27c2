"""Bots cannot be mistaken for people (issue 40, item 6): every record they write is marked, their clock never
runs ahead of now, the quality they plant is explicit, and removing them leaves everyone else's records alone."""

from datetime import UTC, datetime, timedelta

import pytest

from infact.errors import InfactError
from infact.participation import bots as bots_module
from infact.participation.bot_store import participants_in, remove_bots
from infact.participation.bots import SimClock, describe_quality, planted_quality, run_bots
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import people
from tests.support.paths import DEMO_STUDY
from tests.support.studies import make_study


@pytest.fixture(scope="module")
def demo():
    return load_study(DEMO_STUDY)


def test_every_record_a_bot_writes_carries_its_strategy(demo):
    storage = MemoryStorage()
    played = run_bots(demo, storage, 6, seed=3)
    by_token = {r.token: r.strategy for r in played}
    records = [r for r in storage.records(study=demo.id) if r["participant"] in by_token]
    assert records and all(r.get("bot") == by_token[r["participant"]] for r in records)


def test_a_person_is_not_marked(demo):
    storage = MemoryStorage()
    (token,) = people(demo, storage, 1)
    assert not any(r.get("bot") for r in storage.records(participant=token))
    assert participants_in(storage, demo.id) == (set(), {token})


def test_last_activity_is_never_in_the_future(demo):
    """A bot's clock used to start now and run ahead: 'Last activity' up to 9 minutes in the future."""
    storage = MemoryStorage()
    run_bots(demo, storage, 12, seed=1, concurrency=3)
    now = datetime.now(UTC)
    stamps = [r.get(k) for r in storage.records() for k in ("at", "shown_at", "answered_at", "ended_at")]
    latest = max(datetime.fromisoformat(s) for s in stamps if s)
    assert latest <= now


def test_the_clock_waits_for_the_wall_clock_rather_than_run_ahead(monkeypatch):
    wall = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    slept = []
    monkeypatch.setattr(bots_module.time, "sleep", slept.append)
    clock = SimClock(wall - timedelta(seconds=10), wall=lambda: wall)
    clock.spend(4)
    assert slept == []
    clock.spend(30)  # 24 s ahead of the wall clock: the bot waits that long
    assert slept == [pytest.approx(24)]
    with pytest.raises(ValueError, match="future"):
        SimClock(wall + timedelta(minutes=5), wall=lambda: wall)


def test_the_planted_quality_is_explicit(demo):
    alike = planted_quality(demo, "alike")
    assert len(set(alike.values())) == 1 and set(alike) == set(demo.systems)
    ordered = planted_quality(demo, "ordered")
    assert list(ordered) == list(demo.systems) and sorted(ordered.values(), reverse=True) == list(ordered.values())
    a, b, c = demo.systems
    assert planted_quality(demo, f"{a}=2,{b}=4.5,{c}=3") == {a: 2.0, b: 4.5, c: 3.0}
    assert describe_quality(alike).startswith("every system alike")
    assert describe_quality({a: 2.0, b: 4.5, c: 3.0}) == f"{b} 4.5 > {c} 3.0 > {a} 2.0"
    for bad in (f"{a}=4", f"{a}=9,{b}=1,{c}=1", "nobody=3", f"{a}=x,{b}=1,{c}=1"):
        with pytest.raises(InfactError, match="--quality"):
            planted_quality(demo, bad)


def test_alike_bots_plant_no_ranking(tmp_path):
    """With every system alike the bots' mean ratings differ by noise only (the old default planted A > B > C)."""
    study = load_study(make_study(tmp_path, per_participant=6))
    storage = MemoryStorage()
    run_bots(study, storage, 30, strategy="attentive", seed=2, quality=planted_quality(study, "alike"))
    from infact.results.study_results import StudyResults

    ratings = StudyResults(study, storage.records()).tables.ratings
    means = ratings[~ratings["is_attention_check"]].groupby("system")["rating"].mean()
    assert means.max() - means.min() < 0.5


def test_removing_bots_leaves_everyone_else_alone(tmp_path, storage):
    """`bots --remove` deletes the bots through the storage protocol's purge, as withdrawal with deletion does."""
    study = load_study(make_study(tmp_path, per_participant=2))
    tokens = people(study, storage, 2)
    before = sorted((r["key"], r.get("answered_at")) for r in storage.records() if r["participant"] in tokens)
    played = run_bots(study, storage, 3, strategy="attentive", seed=5)
    assert participants_in(storage, study.id) == ({r.token for r in played}, set(tokens))
    removed, records = remove_bots(storage, study.id)
    assert removed == 3 and records > 3 * 4
    left = storage.records()
    assert {r["participant"] for r in left if not r["participant"].startswith("_")} == set(tokens)
    assert sorted((r["key"], r.get("answered_at")) for r in left if r["participant"] in tokens) == before
    assert remove_bots(storage, study.id) == (0, 0)
