"""Exports: every documented file, consistent with the stored records."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from infact.fileio import MANIFEST
from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.results.export import export_bytes, files_of, write_exports
from infact.results.study_results import StudyResults, open_results
from infact.results.tables.records import PARTICIPANT_COLUMNS, RATING_COLUMNS
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.studies import FakeClock, make_study, walk

DOC_FILES = {
    "ratings.csv",
    "ratings_wide.csv",
    "participants.csv",
    "visits.csv",
    "questionnaire.csv",
    "demographics.csv",
    "flags.csv",
    "records.json",
    "infact_sheets.xlsx",
    "datapackage.json",
}


@pytest.fixture
def study(tmp_path):
    return load_study(make_study(tmp_path, systems=("Alpha", "Beta", "Gamma"), n_situations=10, per_participant=4))


@pytest.fixture
def played(study, storage):
    """Three completed participants, one who withdrew half-way, one preview."""
    clock = FakeClock()
    flow = Flow(study, storage, clock=clock)
    done = []
    for _ in range(3):
        token = flow.arrive({})
        walk(flow, token)
        done.append(token)
    gone = flow.arrive({})
    walk(flow, gone, until="situation-3")
    flow.withdraw(gone, "bored")
    preview = flow.arrive({}, preview=True)
    walk(flow, preview)
    return storage, done, gone, preview


def test_write_exports_writes_every_documented_file(study, played, tmp_path):
    storage, done, _, _ = played
    out = tmp_path / "exports"
    written = write_exports(open_results(study, storage), out)
    assert {p.name for p in written} == DOC_FILES == set(files_of(study.config))
    assert {p.name for p in out.iterdir()} == DOC_FILES | {MANIFEST}  # the manifest: what the export wrote
    assert all(p.stat().st_size > 0 for p in written)


def test_ratings_csv(study, played, tmp_path):
    storage, done, gone, preview = played
    write_exports(open_results(study, storage), tmp_path / "x")
    ratings = pd.read_csv(tmp_path / "x" / "ratings.csv")
    assert list(ratings.columns) == ["participant", "condition", *RATING_COLUMNS[1:], "excluded", "bot"]
    assert len(ratings) == 3 * 4 * 3 * 1  # participants × situations × systems × criteria
    assert set(ratings["participant"]) == set(done)  # no withdrawn, no preview
    assert ratings.groupby("participant")["is_attention_check"].sum().eq(3).all()
    assert set(ratings["system"]) == {"Alpha", "Beta", "Gamma"}
    assert ratings["rating_label"].notna().all()
    stored = {
        (r["participant"], r["situation_id"], resp["system"]): resp["ratings"]["meaningful"]
        for r in storage.records(kind="situation")
        for resp in r["responses"]
        if r["participant"] in done
    }
    assert {(r.participant, r.situation_id, r.system): r.rating for r in ratings.itertuples()} == stored


def test_participants_csv(study, played, tmp_path):
    storage, done, gone, preview = played
    write_exports(open_results(study, storage), tmp_path / "x")
    p = pd.read_csv(tmp_path / "x" / "participants.csv")
    assert set(PARTICIPANT_COLUMNS) <= set(p.columns)
    assert {"status", "completion_code", "started_at", "ended_at", "total_seconds", "decision", "excluded"} <= set(
        p.columns
    )
    assert set(p["participant"]) == set(done)
    for token in done:
        row = p[p["participant"] == token].iloc[0]
        [complete] = storage.records(participant=token, kind="complete")
        [arrival] = storage.records(participant=token, kind="arrival")
        assert row["status"] == "completed"
        assert row["completion_code"] == complete["completion_code"]
        assert row["started_at"] == arrival["at"] == complete["started_at"]
        assert row["ended_at"] == complete["ended_at"]
        assert row["total_seconds"] == pytest.approx(complete["total_seconds"])
        assert row["situations_answered"] == 4


def test_include_withdrawn(study, played, tmp_path):
    storage, done, gone, _ = played
    write_exports(open_results(study, storage, include_withdrawn=True), tmp_path / "x")
    p = pd.read_csv(tmp_path / "x" / "participants.csv")
    assert set(p["participant"]) == set(done) | {gone}
    row = p[p["participant"] == gone].iloc[0]
    assert row["status"] == "withdrawn" and pd.isna(row["completion_code"]) and bool(row["excluded"])
    ratings = pd.read_csv(tmp_path / "x" / "ratings.csv")
    assert (ratings["participant"] == gone).sum() == 2 * 3
    flags = pd.read_csv(tmp_path / "x" / "flags.csv")
    assert "withdrawn" in flags.set_index("participant").loc[gone, "flags"]


def test_delete_on_withdraw_removes_them_whatever_is_asked(tmp_path, storage):
    study = load_study(make_study(tmp_path, per_participant=4, study={"delete_on_withdraw": True}))
    flow = Flow(study, storage, clock=FakeClock())
    stays, gone = flow.arrive({}), flow.arrive({})
    walk(flow, stays)
    walk(flow, gone, until="situation-2")
    flow.withdraw(gone)
    assert flow.state(gone).withdrawn["delete_requested"] is True
    t = StudyResults(study, storage.records(), include_withdrawn=True).tables
    # participants.csv keeps a row with nothing but the token, so its counts equal the dashboard's
    row = t.participants.set_index("participant").loc[gone]
    assert row["status"] == "withdrawn" and row["stage"] == "withdrawn" and bool(row["data_deleted"])
    assert (
        row.drop(
            ["status", "stage", "data_deleted", "excluded", "consented", "active_now", "last_activity", "current_step"]
        )
        .isna()
        .all()
    )
    assert not t.participants.set_index("participant").loc[stays, "data_deleted"]
    assert set(t.ratings["participant"]) == {stays}
    assert {r["participant"] for r in t.records} == {stays}
    assert gone not in export_bytes(t)["records.json"].decode()
    from infact.results.quality import funnel

    progress, visits = funnel.from_store(storage, study.id)
    cards = funnel.stage_counts(progress, FakeClock()(), visits)
    assert cards["withdrawn"] == (t.participants["stage"] == "withdrawn").sum() == 1
    assert set(StudyResults(study, storage.records()).tables.participants["participant"]) == {
        stays
    }  # withdrawn left out


def test_other_files(study, played, tmp_path):
    storage, done, _, _ = played
    write_exports(open_results(study, storage), tmp_path / "x")
    wide = pd.read_csv(tmp_path / "x" / "ratings_wide.csv")
    assert len(wide) == 3 * 4
    assert {"Alpha", "Beta", "Gamma", "participant", "situation_id"} <= set(wide.columns)
    q = pd.read_csv(tmp_path / "x" / "questionnaire.csv")
    assert len(q) == 3 * len(study.config.questionnaire.items)
    assert list(q.columns) == ["participant", "condition", "item", "value", "answer", "bot"]
    d = pd.read_csv(tmp_path / "x" / "demographics.csv")
    assert len(d) == 3 * len(study.config.demographics) and set(d["participant"]) == set(done)
    flags = pd.read_csv(tmp_path / "x" / "flags.csv")
    assert {"participant", "flags", "reasons", "decision", "prolific_action"} <= set(flags.columns)
    assert set(flags["participant"]) == set(done)
    records = json.loads((tmp_path / "x" / "records.json").read_text())
    mine = [r for r in storage.records(study=study.id) if r["participant"] in done]
    assert {r["key"] for r in mine} <= {r["key"] for r in records}
    by_key = {r["key"]: r for r in records}
    assert all(by_key[r["key"]] == r for r in mine)  # as stored
    sheets = pd.read_excel(tmp_path / "x" / "infact_sheets.xlsx", sheet_name=None)
    assert len(sheets) >= 2
    assert sum(len(df) for df in sheets.values()) > 0


def test_export_bytes_match_the_written_files(study, played, tmp_path):
    storage, *_ = played
    write_exports(open_results(study, storage), tmp_path / "x")
    data = export_bytes(StudyResults(study, storage.records(study=study.id)).tables)
    assert set(data) == DOC_FILES
    for name in ("ratings.csv", "participants.csv", "flags.csv"):
        assert data[name] == (tmp_path / "x" / name).read_bytes()


def test_export_of_an_empty_store(study, tmp_path):
    written = write_exports(open_results(study, MemoryStorage()), tmp_path / "x")
    assert {p.name for p in written} == DOC_FILES
    assert pd.read_csv(tmp_path / "x" / "ratings.csv").empty
    columns = list(pd.read_csv(tmp_path / "x" / "ratings.csv").columns)
    assert columns == ["participant", "condition", *RATING_COLUMNS[1:], "excluded", "bot"]
    assert pd.read_csv(tmp_path / "x" / "participants.csv").empty
    assert json.loads((tmp_path / "x" / "records.json").read_text()) == []


def test_only_this_studys_records(study, tmp_path):
    storage = MemoryStorage()
    other = load_study(make_study(tmp_path, name="other", study_id="other"))
    run_bots(other, storage, 2, strategy="attentive", seed=1)
    run_bots(study, storage, 1, strategy="attentive", seed=1)
    t = StudyResults(study, storage.records()).tables
    assert t.participants["participant"].nunique() == 1
    assert {r["study"] for r in t.records} == {study.id}


def test_excluded_participants_are_marked(study, tmp_path):
    storage = MemoryStorage()
    start = FakeClock()()
    good = run_bots(study, storage, 4, strategy="attentive", seed=1, start=start)
    bad = run_bots(study, storage, 1, strategy="fails-attention", seed=2, start=start)
    t = StudyResults(study, storage.records()).tables
    excluded = set(t.participants.loc[t.participants["excluded"], "participant"])
    assert excluded == {bad[0].token}
    assert set(t.ratings.loc[t.ratings["excluded"], "participant"]) == {bad[0].token}
    assert not t.ratings[t.ratings["participant"].isin({g.token for g in good})]["excluded"].any()
