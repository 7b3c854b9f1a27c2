"""One table schema per step kind (issue 18): the declaration reaches the export, datapackage.json,
the dashboard's downloads, `analyze` and docs/data-model.md — a test-only kind's too, with no core edit."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import frictionless
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from infact.access.auth import hash_password
from infact.errors import InfactError
from infact.fileio import MANIFEST
from infact.participation import steps
from infact.participation.bots import run_bots
from infact.participation.steps import Checked, Step, StepKind
from infact.results import analyze, kinds
from infact.results.export import export_bytes, write_exports
from infact.results.study_results import StudyResults, open_results
from infact.storage import MemoryStorage, TinyDBStorage
from infact.study.loader import load_study
from infact.study.settings_doc import write_blocks
from tests.support.feedback_kind import FEEDBACK
from tests.support.studies import FakeClock, make_study

REPO = Path(__file__).resolve().parents[3]


class Feedback(StepKind):
    name = "feedback"
    schema = FEEDBACK
    bot_seconds = 20.0

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        text = answers.get("feedback")
        if not isinstance(text, str) or not text.strip():
            return Checked.refuse("Please write one sentence of feedback.")
        return Checked(fields={"text": text.strip()})

    def bot_answers(self, study, step, bot) -> dict:
        return {"feedback": f"{bot.strategy} bot: fine"}

    def rows(self, record: dict, scale) -> list[dict]:
        return [{"seconds": record["seconds"], "text": record["text"]}]  # not in the declared order


@pytest.fixture
def feedback():
    # its page, so the participant page can draw it
    kind = steps.register(steps.Kind("feedback", Feedback(), page="tests.support.feedback_kind.page"), before="done")
    yield kind
    steps.unregister("feedback")


@pytest.fixture
def played(tmp_path, feedback):
    study_dir = make_study(tmp_path, n_situations=6, per_participant=3)
    study = load_study(study_dir)
    storage = TinyDBStorage(tmp_path / "db")
    run_bots(study, storage, 4, strategy="attentive", seed=3, start=FakeClock()())
    return study_dir, study, storage


def test_a_new_kinds_table_reaches_the_export_in_its_declared_order(played):
    _, study, storage = played
    files = export_bytes(StudyResults(study, storage.records(study=study.id)).tables, study.systems, study_id=study.id)
    table = pd.read_csv(io.BytesIO(files["feedback.csv"]))
    assert list(table.columns) == ["participant", "condition", "text", "seconds", "excluded", "bot"]
    assert len(table) == 4 and set(table["text"]) == {"attentive bot: fine"}
    package = json.loads(files["datapackage.json"])
    resource = next(r for r in package["resources"] if r["path"] == "feedback.csv")
    assert resource["description"] == FEEDBACK.description
    names = ["participant", "condition", "text", "seconds", "excluded", "bot"]
    assert [f["name"] for f in resource["schema"]["fields"]] == names
    assert resource["schema"]["fields"][2]["constraints"] == {"required": True}


def test_every_export_validates_as_a_frictionless_data_package(played, tmp_path):
    _, study, storage = played
    out = tmp_path / "export"
    write_exports(open_results(study, storage), out)
    report = frictionless.validate(str(out / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:10]
    described = {r["path"] for r in json.loads((out / "datapackage.json").read_text())["resources"]}
    assert described == {p.name for p in out.iterdir()} - {"datapackage.json", MANIFEST}


def test_a_broken_export_fails_the_validation(played, tmp_path):
    """The check can fail: a rating that is not an integer is found, by file, row and column."""
    _, study, storage = played
    out = tmp_path / "export"
    write_exports(open_results(study, storage), out)
    ratings = pd.read_csv(out / "ratings.csv", dtype=str)
    ratings.loc[0, "rating"] = "four"
    ratings.to_csv(out / "ratings.csv", index=False)
    report = frictionless.validate(str(out / "datapackage.json"))
    assert not report.valid
    [error] = [e for e in report.flatten(["fieldName", "type"]) if e[0] == "rating"]
    assert error[1] == "type-error"


def test_the_dashboard_offers_the_new_kinds_table(played, monkeypatch):
    study_dir, _, storage = played
    storage.close()
    monkeypatch.setenv("INFACT_STUDY", str(study_dir))
    monkeypatch.setenv("INFACT_DB", str(Path(study_dir).parent / "db"))
    at = AppTest.from_file(str(REPO / "pages" / "dashboard.py"), default_timeout=90)
    at.session_state["researcher_signed_in"] = True
    at.secrets["researcher"] = {"password_hash": hash_password("schema-test-pw")}
    at.run()
    at.segmented_control(key="section").set_value("Exports").run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [b.proto.label for b in at.get("download_button")]
    assert any(label.startswith("feedback.csv") and FEEDBACK.description in label for label in labels), labels
    assert any(label.startswith("datapackage.json") for label in labels), labels


def test_the_data_model_doc_is_generated_from_the_declarations(tmp_path, feedback):
    assert "### `feedback.csv`" in kinds.data_model_markdown()
    steps.unregister("feedback")  # the committed doc holds the built-in kinds only
    doc = (REPO / "docs" / "data-model.md").read_text(encoding="utf-8")
    block = kinds.DATA_MODEL_BLOCK
    assert block.current(doc) == block.render(), "docs/data-model.md is stale: run `infact settings-doc --write`"
    for schema in kinds.all_schemas().values():
        for column in schema.columns:
            assert f"| `{column.name}` |" in block.current(doc)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "data-model.md").write_text(doc.replace("| `rating` | integer |", "| `rating` | text |"))
    assert write_blocks(tmp_path, (block,)) == [tmp_path / "docs" / "data-model.md"]
    assert block.current((tmp_path / "docs" / "data-model.md").read_text()) == block.render()


def test_analyze_reads_back_with_the_declared_types_and_names_a_missing_column(tmp_path):
    path = tmp_path / "ratings.csv"
    pd.DataFrame(
        {"participant": ["007", "008"], "situation_id": ["1e3", "1e3"], "system": ["A", "B"], "rating": [4, 2]}
    ).to_csv(path, index=False)
    table = analyze.read_table(path)
    assert list(table["participant"]) == ["007", "008"] and list(table["situation_id"]) == ["1e3", "1e3"]
    assert table["rating"].dtype.kind == "i"
    pd.DataFrame({"participant": ["p"], "situation_id": ["s"], "system": ["A"]}).to_csv(path, index=False)
    with pytest.raises(InfactError) as err:
        analyze.analyze_table(analyze.read_table(path), source=str(path))
    assert "rating" in str(err.value) and str(path) in str(err.value)


def test_every_kind_with_a_table_declares_it_and_columns_are_unique():
    for kind in steps.kinds():
        if kind.table:
            assert kind.schema is not None, f"step kind {kind.name} has a table but no schema"
    for schema in kinds.all_schemas().values():
        assert len(schema.names) == len(set(schema.names)), schema.name
        assert all(c.description for c in schema.columns), schema.name


def test_memory_store_export_has_the_same_declared_columns():
    study = load_study(REPO / "data" / "demo")
    storage = MemoryStorage()
    run_bots(study, storage, 2, strategy="attentive", seed=1, start=FakeClock()())
    files = export_bytes(StudyResults(study, storage.records(study=study.id)).tables, study.systems, study_id=study.id)
    for name in ("ratings.csv", "participants.csv", "questionnaire.csv", "demographics.csv"):
        header = files[name].decode().splitlines()[0].split(",")
        declared = kinds.schema_for(name).names
        assert header == [c for c in declared if c in header], name
