"""The datasheet of a between-subjects study names its conditions, what each changes and who completed it."""

from __future__ import annotations

from datetime import UTC, datetime

from infact.participation.bots import run_bots
from infact.results.reports.datasheet import datasheet
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.paths import REPO


def test_the_datasheet_lists_each_condition_with_its_changes_texts_and_completions():
    study = load_study(REPO / "data" / "demo-conditions")
    storage = MemoryStorage()
    run_bots(study, storage, 4, strategy="attentive", seed=1, start=datetime(2026, 3, 2, tzinfo=UTC))
    sheet = datasheet(StudyResults(study, storage.records(study=study.id)))
    [field] = [f for s in sheet["sections"].values() for f in s.get("fields", []) if f["id"] == "2.6"]
    by = {c["name"]: c for c in field["value"]}
    assert set(by) == {"definition", "examples"}
    assert by["examples"]["changes"] == ["texts.instructions"] and by["examples"]["completed"] == 2
    assert "Two examples" in by["examples"]["texts"]["instructions"]["text"]
