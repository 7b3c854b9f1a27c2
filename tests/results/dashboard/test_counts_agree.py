"""The dashboard counts bots apart and its numbers agree (issue 40, items 6 and 7): a store of bots only is a
try-out whose figures are the bots'; beside people, bots are left out of every figure; the banner names the
study's expected time as its setting; the flagged and excluded numbers agree or the page says why."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd

from infact.participation.bots import run_bots
from infact.results.dashboard import running_study
from infact.results.dashboard.data import DashboardData
from infact.results.quality import funnel
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import START, people
from tests.support.studies import make_study


def _dashboard(study, storage) -> DashboardData:
    data = DashboardData(study)
    data.add(storage.records())
    return data


def test_a_store_of_bots_only_counts_the_bots_and_says_so(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=2))
    storage = MemoryStorage()
    run_bots(study, storage, 3, strategy="attentive", seed=1)
    data = _dashboard(study, storage)
    assert data.counts()["completed"] == 3
    level, text = running_study.bots_note(data.progress())
    assert level == "info" and "Every participant in this store is a bot (3" in text
    assert data.study_results()[0].tables.ratings["bot"].all()


def test_beside_people_bots_are_counted_apart(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=2))
    storage = MemoryStorage()
    humans = people(study, storage, 2)
    run_bots(study, storage, 3, strategy="attentive", seed=1)
    data = _dashboard(study, storage)
    counts = data.counts()
    assert counts["completed"] == 2 and counts["visited"] == 2
    assert set(data.overview()["participant"]) == set(humans)
    level, text = running_study.bots_note(data.progress())
    assert level == "warning" and "3 bot participant(s)" in text and "--remove" in text
    assert set(data.study_results()[0].tables.ratings["participant"]) == set(humans)
    progress, _ = funnel.from_store(storage, study.id)  # the first numbers, from the summaries
    assert funnel.stage_counts(progress, datetime.now(UTC))["completed"] == 2


def test_no_note_without_bots(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=2))
    storage = MemoryStorage()
    people(study, storage, 1)
    assert running_study.bots_note(_dashboard(study, storage).progress()) is None


def _finished(minutes: float) -> dict[str, funnel.Progress]:
    p = funnel.Progress("p1")
    for rec in (
        {"kind": "arrival", "at": START.isoformat()},
        {"kind": "complete", "outcome": "completed", "total_seconds": minutes * 60, "at": START.isoformat()},
    ):
        p.add(rec)
    return {"p1": p}


def test_the_banner_names_the_expected_time_as_the_study_setting():
    """It said 'under half the 15 min you stated' of a default the researcher never set."""
    fast = _finished(5)
    unset = running_study.duration_check(fast, 15, default=True)["warning"]
    assert "you stated" not in unset
    assert "under half the study's expected time (15 min, the default: `[study] expected_minutes` is not set)" in unset
    given = running_study.duration_check(fast, 15)["warning"]
    assert "under half the study's expected time (15 min, `[study] expected_minutes`)" in given
    slow = running_study.duration_check(_finished(30), 15, default=True)["warning"]
    assert "200% of the study's expected time (15 min, the default" in slow and "you stated" not in slow


def test_bots_times_never_make_the_banner(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=2))
    storage = MemoryStorage()
    run_bots(study, storage, 4, strategy="speeder", seed=1)
    check = running_study.duration_check(_dashboard(study, storage).progress(), 15, default=True)
    assert check["n"] == 0 and check["warning"] is None


def test_flagged_and_excluded_agree_or_the_page_says_why():
    """The Statistics tab said 9 flagged while the Excluded card said 8: one flagged participant had not finished."""
    overview = pd.DataFrame(
        {
            "participant": [f"p{i}" for i in range(10)],
            "stage": ["completed"] * 8 + ["stalled", "completed"],
            "decision": ["exclude"] * 9 + ["include"],
            "consented": [True] * 10,
            "active_now": [False] * 10,
        }
    )
    flagged = {f"p{i}" for i in range(9)}
    assert funnel.funnel_counts(overview)["excluded"] == 8
    why = running_study.flagged_vs_excluded(overview, flagged)
    assert "leaves out 9 flagged participant(s)" in why and "counts the 8 of them who completed" in why
    assert "stalled: 1" in why
    assert running_study.flagged_vs_excluded(overview, {f"p{i}" for i in range(8)}) is None
    assert "not counted here" in funnel.FIGURES["excluded"][1]


def test_last_activity_of_bots_is_not_in_the_future(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=2))
    storage = MemoryStorage()
    run_bots(study, storage, 5, seed=2)
    now = datetime.now(UTC)
    overview = _dashboard(study, storage).overview(now)
    assert (pd.to_datetime(overview["last_activity"]) <= now + timedelta(seconds=0)).all()
