"""The dashboard's data without Streamlit: incremental tables, per-version caching,
throttled full tables, the live-study lists and the lock-free shard reader."""

from __future__ import annotations

import json
from datetime import timedelta

import pandas as pd
import pytest

from infact.participation.bots import run_bots
from infact.results.dashboard import running_study
from infact.results.dashboard.data import DashboardData
from infact.results.quality import funnel
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage, TinyDBStorage
from infact.stores.feed import RecordFeed
from infact.study.loader import load_study
from tests.support.participants import START, submit_consent
from tests.support.studies import make_study


@pytest.fixture(scope="module")
def crowd(demo):
    storage = MemoryStorage()
    run_bots(demo, storage, 12, seed=4, start=START)
    return storage.records()


@pytest.mark.slow  # 5.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_record_by_record_equals_all_at_once(demo, crowd):
    one_by_one, at_once = DashboardData(demo), DashboardData(demo)
    for rec in crowd:
        one_by_one.add([rec])
        if rec["kind"] == "situation":
            one_by_one.flags()  # evidence brought up to date in between, as on a live page
    at_once.add(crowd)
    now = START + timedelta(minutes=30)
    pd.testing.assert_frame_equal(one_by_one.overview(now), at_once.overview(now))
    flags = StudyResults(demo, crowd, include_withdrawn=True).tables.flags.set_index("participant")
    assert at_once.flags().set_index("participant")["flags"].to_dict() == flags["flags"].to_dict()


def test_first_numbers_need_no_quality_assessment(demo, crowd):
    data = DashboardData(demo)
    data.add(crowd)
    first = data.stage_counts(START)
    assert "included" not in first and "excluded" not in first
    assert first == {k: v for k, v in data.counts(START).items() if k in first}


def test_flags_are_computed_once_per_data_version(demo, crowd):
    data = DashboardData(demo)
    data.add(crowd)
    before = data.flags()
    assert data.flags() is before
    data.add([{**crowd[0], "key": "extra", "kind": "shown", "step": "x", "shown_at": crowd[0]["at"]}])
    assert data.version == 2 and data.flags() is before  # a page shown changes no flag
    data.add(
        [
            {
                **crowd[0],
                "key": "extra2",
                "kind": "event",
                "action": "exclude",
                "target": crowd[0]["participant"],
                "note": "by hand",
                "participant": "_researcher",
            }
        ]
    )
    assert (
        data.flags() is not before
        and "manually_excluded" in data.flags().set_index("participant").loc[crowd[0]["participant"], "flags"]
    )


def test_full_tables_are_rebuilt_at_most_every_interval(demo, crowd):
    clock = [0.0]
    data = DashboardData(demo, results_interval=30, monotonic=lambda: clock[0])
    data.add(crowd[:50])
    first, behind = data.study_results()
    assert not behind
    data.add(crowd[50:])
    again, behind = data.study_results()
    assert again is first and behind  # new data, but only 0 s later
    assert data.study_results(force=True)[0] is not first  # "Recompute now"
    data.add([{**crowd[0], "key": "later", "kind": "shown", "step": "x", "shown_at": crowd[0]["at"]}])
    clock[0] = 31
    latest, behind = data.study_results()
    assert not behind and len(latest.tables.records) == len(crowd) + 1


def test_derived_values_are_built_once_per_results_version(demo, crowd):
    data = DashboardData(demo)
    data.add(crowd)
    calls = []
    build = lambda r: calls.append(1) or len(r.tables.ratings)  # noqa: E731
    assert data.derived("n", build) == data.derived("n", build)
    assert len(calls) == 1
    data.derived("n", build, "other key")
    assert len(calls) == 2


def test_duration_check_warns_when_the_estimate_is_off():
    def prog(minutes):
        p = funnel.Progress("p", consented=True, outcome="completed", total_seconds=minutes * 60)
        return {"p": p}

    assert running_study.duration_check(prog(12), 12)["warning"] is None
    assert "raise `study.expected_minutes`" in running_study.duration_check(prog(20), 12)["warning"]
    assert "lower the estimate" in running_study.duration_check(prog(4), 12)["warning"]
    assert running_study.duration_check({}, 12)["median_minutes"] is None


def test_prolific_lists_and_the_participant_view():
    overview = pd.DataFrame(
        [
            {
                "participant": "a",
                "platform_id": "P1",
                "stage": "completed",
                "last_activity": 3,
                "prolific_action": "approve",
                "prolific_reason": None,
                "flags": [],
                "reasons": [],
            },
            {
                "participant": "b",
                "platform_id": "P2",
                "stage": "completed",
                "last_activity": 2,
                "prolific_action": "eligible_for_rejection",
                "prolific_reason": "failed 2 checks",
                "flags": ["attention_failed"],
                "reasons": ["failed"],
            },
            {
                "participant": "c",
                "platform_id": "P3",
                "stage": "completed",
                "last_activity": 1,
                "prolific_action": "ask_to_return",
                "prolific_reason": "excluded",
                "flags": ["speeder_rsi"],
                "reasons": ["fast"],
            },
            {
                "participant": "d",
                "platform_id": None,
                "stage": "completed",
                "last_activity": 4,
                "prolific_action": "approve",
                "prolific_reason": None,
                "flags": [],
                "reasons": [],
            },
            {
                "participant": "e",
                "platform_id": "P5",
                "stage": "in_progress",
                "last_activity": 5,
                "prolific_action": None,
                "prolific_reason": None,
                "flags": ["incomplete"],
                "reasons": ["not finished"],
            },
        ]
    )
    lists = running_study.prolific_lists(overview)
    assert list(lists["approve"]["platform_id"]) == ["P1"]  # no platform ID: nothing to approve on Prolific
    assert lists["reject"].to_dict("records") == [
        {"platform_id": "P2", "reason": "failed 2 checks", "participant": "b"}
    ]
    assert list(lists["return"]["platform_id"]) == ["P3"]
    view = running_study.participants_view(overview, ["completed"])
    assert list(view["participant"]) == ["d", "a", "b", "c"]  # most recent activity first
    assert view.set_index("participant").loc["b", "flags"] == "attention_failed"


def test_completions_over_time_counts_completed_only():
    progress = {
        "a": funnel.Progress("a", outcome="completed", ended_at=START + timedelta(minutes=2)),
        "b": funnel.Progress("b", outcome="screened_out", ended_at=START + timedelta(minutes=1)),
        "c": funnel.Progress("c", outcome="completed", ended_at=START),
        "d": funnel.Progress("d", outcome="completed", ended_at=START, preview=True),
    }
    out = running_study.completions_over_time(progress)
    assert list(out["outcome"]) == ["completed", "screened_out", "completed"]
    assert list(out["completed"]) == [1, 1, 2]


def test_situation_overview_puts_disputed_situations_first(demo):
    sid = demo.situations[0].situation_id
    system = demo.systems[0]
    ratings = pd.DataFrame(
        [
            {"situation_id": sid, "system": system, "criterion": "meaningful", "rating": r, "is_attention_check": False}
            for r in (1, 5, 3)
        ]
        + [
            {
                "situation_id": sid,
                "system": demo.systems[1],
                "criterion": "meaningful",
                "rating": 4,
                "is_attention_check": False,
            }
            for _ in range(3)
        ]
    )
    out = running_study.situation_overview(ratings, demo, "meaningful")
    first = out.iloc[0]
    assert (first["system"], first["n"], first["range"]) == (system, 3, 4)
    assert first["response"] == demo.situations[0].responses[system]
    assert first["last_user_turn"] == demo.situations[0].context[-1].text


def test_record_feed_reads_new_records_once_and_quarantines_damaged_files(tmp_path):
    store = TinyDBStorage(tmp_path / "db")

    class Sink:
        def __init__(self):
            self.got = []

        def add(self, records):
            self.got += records
            return len(records)

    def rec(p, n):
        return {"key": f"s/{p}/{n}", "study": "s", "participant": p, "kind": "x", "n": n}

    feed = RecordFeed(store, Sink())
    store.append(rec("a", 1))
    store.append(rec("b", 1))
    assert feed.poll() == 2
    store.append(rec("a", 2))
    assert feed.poll() == 1 and feed.poll() == 0
    (store.shards / "broken.json").write_text("{not json", encoding="utf-8")
    store.append(rec("c", 1))
    assert feed.poll() == 1
    assert sorted(r["key"] for r in feed.consumer.got) == ["s/a/1", "s/a/2", "s/b/1", "s/c/1"]  # each once
    # set aside by the store's own reader, with a note the dashboard shows; the feed goes on
    assert feed.damaged == [] and not (store.shards / "broken.json").exists()
    [problem] = store.problems()
    assert problem["file"] == "broken.json" and "not valid JSON" in problem["reason"]
    assert (store.quarantine / problem["moved_to"].rsplit("/", 1)[-1]).read_text() == "{not json"
    json.loads((store.shards / "a.json").read_text())  # healthy files are never written by the reader


def test_memo_is_per_data_version_and_does_not_build_the_full_tables(demo, crowd):
    data = DashboardData(demo)
    data.add(crowd[:20])
    calls = []
    assert data.memo("n", lambda: calls.append(1) or len(data.records())) == 20
    assert data.memo("n", lambda: calls.append(1) or 0) == 20 and len(calls) == 1
    assert data._results is None  # the coverage on the Progress section must not trigger the full rebuild
    data.add(crowd[20:21])
    assert data.memo("n", lambda: len(data.records())) == 21


def test_withdrawal_with_deletion_reaches_the_dashboard(tmp_path):
    """The purge rewrites the participant's file shorter: the feed must still see the withdrawal."""
    from infact.participation.flow import Flow
    from tests.support.studies import make_study

    study = load_study(make_study(tmp_path, study={"delete_on_withdraw": True}))
    store = TinyDBStorage(tmp_path / "db")
    flow = Flow(study, store, clock=lambda: START)
    token = flow.arrive({})
    submit_consent(flow, token)
    data = DashboardData(study)
    feed = RecordFeed(store, data)
    feed.poll()
    assert data.counts(START)["consented"] == 1
    flow.withdraw(token, "no")
    feed.poll()
    counts = data.counts(START)
    assert counts["withdrawn"] == 1 and counts["visited"] == 1


def test_record_feed_on_every_backend(storage, tmp_path):
    """The dashboard's feed gives each new record once on every store (TinyDB has its own reader)."""
    study = load_study(make_study(tmp_path))
    data = DashboardData(study)
    feed = RecordFeed(storage, data)
    run_bots(study, storage, 2, strategy="attentive", seed=1, start=START)
    feed.poll()
    n = len(storage.records(study=study.id))
    assert len(data.records()) == n and feed.poll() == 0
    run_bots(study, storage, 1, strategy="abandons", seed=2, start=START)
    feed.poll()
    assert len(data.records()) == len(storage.records(study=study.id)) > n
    assert data.counts(START)["completed"] == 2
