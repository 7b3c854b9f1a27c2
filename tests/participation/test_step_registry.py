"""The registry of step kinds: a kind registered from a test goes through Flow, the
bots, the tables and the participant page without touching a core module."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import frictionless
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from infact import ui
from infact.cli.main import main
from infact.participation import steps
from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.participation.steps import Checked, Step, StepKind
from infact.results import kinds
from infact.results.dashboard import offer
from infact.results.export import write_exports
from infact.results.study_results import open_results
from infact.results.tables import records as tables
from infact.storage import MemoryStorage, TinyDBStorage
from infact.study.loader import load_study
from tests.support.feedback_kind import FEEDBACK
from tests.support.participants import submit_consent
from tests.support.paths import DEMO_STUDY, REPO
from tests.support.studies import FakeClock, make_study, walk

BUILT_IN = (
    "consent",
    "comprehension",
    "onboarding",
    "situation",
    "pairwise",
    "pairwise_dialog",
    "best_worst",
    "conversation",
    "live",
    "questionnaire",
    "demographics",
    "done",
)


class Feedback(StepKind):
    """Test-only: one free-text sentence of feedback, after demographics."""

    name = "feedback"
    schema = FEEDBACK  # its table, declared once: the results half needs nothing else (infact/results/kinds.py)
    bot_seconds = 20.0

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        text = answers.get("feedback")
        if not isinstance(text, str) or not text.strip():
            return Checked.refuse("Please write one sentence of feedback.")
        return Checked(fields={"text": text.strip()})

    def bot_answers(self, study, step, bot) -> dict:
        return {"feedback": f"{bot.strategy} bot: fine"}

    def rows(self, record: dict, scale) -> list[dict]:
        return [{"text": record["text"], "seconds": record["seconds"]}]


@pytest.fixture
def feedback():
    kind = steps.register(steps.Kind("feedback", Feedback(), page="tests.support.feedback_kind.page"), before="done")
    yield kind
    steps.unregister("feedback")


@pytest.fixture
def study(tmp_path):
    return load_study(make_study(tmp_path, n_situations=6, per_participant=3, attention_check={"positions": [1, 3]}))


def test_the_built_in_sequence_is_the_registry():
    assert steps.sequence() == BUILT_IN
    assert steps.answer_kinds() == frozenset(BUILT_IN[:-1])
    assert all(callable(ui.hooks.page(k)) for k in BUILT_IN), "every built-in kind has a page"


def test_registration_mistakes_are_refused(feedback):
    with pytest.raises(ValueError, match="already registered"):
        steps.register(steps.Kind("feedback", Feedback()))
    with pytest.raises(ValueError, match="unknown step kind 'nope'"):
        steps.register(steps.Kind("other", type("Other", (StepKind,), {"name": "other"})()), before="nope")
    with pytest.raises(KeyError, match="unknown step kind 'nope'"):
        steps.get("nope")


def test_a_new_kind_takes_its_place_in_every_participant_s_steps(feedback, study):
    assert steps.sequence() == (
        "consent",
        "comprehension",
        "onboarding",
        "situation",
        "pairwise",
        "pairwise_dialog",
        "best_worst",
        "conversation",
        "live",
        "questionnaire",
        "demographics",
        "feedback",
        "done",
    )
    flow = Flow(study, MemoryStorage(), clock=FakeClock())
    token = flow.arrive({})
    submit_consent(flow, token)
    names = [s.name for s in flow.steps(flow.state(token))]
    assert names[-3:] == ["demographics", "feedback", "done"]


def test_flow_checks_stores_and_completes_only_after_the_new_kind(feedback, study):
    storage = MemoryStorage()
    flow = Flow(study, storage, clock=FakeClock())
    token = flow.arrive({})
    walk(flow, token, until="feedback")
    st = flow.state(token)
    assert flow.current(st).name == "feedback" and st.complete is None, "completed before the new step"

    refused = flow.submit(token, "feedback", {"feedback": "   "})
    assert not refused.ok and refused.errors == ("Please write one sentence of feedback.",)
    assert storage.records(participant=token, kind="feedback") == []

    flow.mark_shown(flow.state(token), flow.current(flow.state(token)))
    flow.clock.advance(12)
    result = flow.submit(token, "feedback", {"feedback": " Clear instructions. "})
    assert result.ok and result.stored and result.next_step.kind == "done"
    [rec] = storage.records(participant=token, kind="feedback")
    assert rec["text"] == "Clear instructions." and rec["step"] == "feedback" and rec["seconds"] == 12
    assert result.state.complete["outcome"] == "completed"
    again = flow.submit(token, "feedback", {"feedback": "twice"})
    assert again.ok and not again.stored


def test_bots_answer_the_new_kind_and_tables_show_it(feedback, study):
    storage = MemoryStorage()
    results = run_bots(study, storage, 3, strategy="attentive", seed=5, start=FakeClock()())
    assert all(r.outcome == "completed" for r in results)
    records = storage.records()
    found = open_results(study, storage)
    table = found.table("feedback").frame
    assert sorted(table["participant"]) == sorted(r.token for r in results)
    assert set(table["text"]) == {"attentive bot: fine"}
    assert (table["seconds"] >= 3).all()
    step_rows = tables.steps_table(records)
    assert (step_rows["kind"] == "feedback").sum() == 3
    # The built-in tables are unchanged by the new kind.
    assert {t.kind.name for t in found.with_kinds()} == {
        "ratings",
        "questionnaire",
        "demographics",
        "feedback",
    }
    assert {k.name for k in kinds.kinds()} == {
        "ratings",
        "pairwise",
        "best_worst",
        "annotations",
        "questionnaire",
        "demographics",
        "feedback",
    }


def test_the_new_kind_reaches_the_export_the_datapackage_analyze_and_the_dashboard_with_no_core_edit(
    feedback, study, tmp_path, capsys
):
    storage = TinyDBStorage(tmp_path / "db")
    run_bots(study, storage, 3, strategy="attentive", seed=5, start=FakeClock()())
    out = tmp_path / "export"
    write_exports(open_results(study, storage), out)
    written = pd.read_csv(out / "feedback.csv")
    # declared + the decision + the bot mark
    assert list(written.columns) == ["participant", "condition", "text", "seconds", "excluded", "bot"]
    package = json.loads((out / "datapackage.json").read_text())
    [resource] = [r for r in package["resources"] if r["path"] == "feedback.csv"]
    names = ["participant", "condition", "text", "seconds", "excluded", "bot"]
    assert [f["name"] for f in resource["schema"]["fields"]] == names
    assert [f["type"] for f in resource["schema"]["fields"]] == [
        "string",
        "string",
        "string",
        "number",
        "boolean",
        "boolean",
    ]
    assert frictionless.validate(str(out / "datapackage.json")).valid
    # analyze FILE.csv: the file's name declares its kind; the default analysis describes it
    storage.close()
    assert main(["analyze", str(out / "feedback.csv"), "--json", "--include-bots"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["kind"] == "table" and result["rows"] == 3 and result["participants"] == 3
    assert result["columns"]["text"] == {"filled": 3, "distinct": 1}
    # the dashboard: its download, and a section (the results side: its name and summary)
    offered, _ = offer.offered_files(study.config, open_results(study, tmp_path / "db").files())
    assert "feedback.csv" in offered
    offered_package = json.loads(offered["datapackage.json"])  # the dashboard's datapackage.json describes it too
    assert "feedback.csv" in [r["path"] for r in offered_package["resources"]]
    kind = kinds.for_table("feedback")
    assert kind.summarise(written) == {"rows": 3, "participants": 3}
    from infact.ui.dashboard import registry

    assert registry.kind_sections()["Feedback"][0] == "feedback"  # its own section, by default the generic one
    # a missing column is named, with its meaning
    written.drop(columns=["text"]).to_csv(out / "feedback.csv", index=False)
    assert main(["analyze", str(out / "feedback.csv")]) == 2
    assert "[text] missing column: feedback.csv needs `text` (the sentence)" in capsys.readouterr().err


def test_the_page_draws_the_new_kind_from_its_registered_page(feedback, tmp_path, monkeypatch):
    db = tmp_path / "db"
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    flow = Flow(load_study(DEMO_STUDY), TinyDBStorage(db))
    token = flow.arrive({})
    walk(flow, token, until="feedback")

    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    at.query_params["p"] = token
    at.run()
    assert not at.exception
    at.button(key="submit-feedback").click()
    at.run()
    assert [e.value for e in at.error] == ["Please write one sentence of feedback."]
    at.text_input(key="feedback").input("Nice study")
    at.button(key="submit-feedback").click()
    at.run()
    assert any("All your answers are saved." in s.value for s in at.success)
    [rec] = TinyDBStorage(db).records(participant=token, kind="feedback")
    assert rec["text"] == "Nice study"


@pytest.mark.slow  # 1.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_dashboard_gives_the_new_kind_a_section(feedback, tmp_path, monkeypatch):
    """No section claims the new kind: the dashboard offers a generic one with its table (infact/ui/dashboard)."""
    from tests.support.app import open_dashboard

    study_dir = make_study(tmp_path, n_situations=6, per_participant=3)
    db = tmp_path / "db"
    results = run_bots(load_study(study_dir), TinyDBStorage(db), 2, strategy="attentive", seed=5, start=FakeClock()())
    at = open_dashboard(study_dir, db, monkeypatch, "Feedback")
    assert "Feedback" in at.segmented_control(key="section").options
    [table] = [d.value for d in at.dataframe]
    assert sorted(table["participant"]) == sorted(r.token for r in results)
    assert set(table["text"]) == {"attentive bot: fine"}
    assert any("2 rows of `feedback.csv`" in c.value for c in at.caption)
