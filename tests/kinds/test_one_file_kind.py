"""A kind written in one file (tests/support/stars_kind.py), registered in a test, reaches every place a kind
goes with no other file touched: the participant page, a bot, the export with its datapackage.json, `analyze`,
a dashboard section of its own and the judge comparison."""

from __future__ import annotations

import json

import frictionless
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from infact.cli.main import main
from infact.participation import steps
from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.results.export import write_exports
from infact.results.study_results import open_results
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.paths import DEMO_STUDY, REPO
from tests.support.stars_kind import STARS, register_stars
from tests.support.studies import FakeClock, make_study, walk


@pytest.fixture
def stars():
    kind = register_stars()
    yield kind
    steps.unregister("stars")


@pytest.fixture
def played(tmp_path, stars):
    """Three attentive bots through a study with the kind, on a TinyDB store."""
    study_dir = make_study(tmp_path, n_situations=6, per_participant=3)
    study = load_study(study_dir)
    db = tmp_path / "db"
    storage = TinyDBStorage(db)
    results = run_bots(study, storage, 3, strategy="attentive", seed=5, start=FakeClock()())
    return study_dir, study, db, storage, results


def test_its_page_is_drawn_checks_and_stores(stars, tmp_path, monkeypatch):
    db = tmp_path / "db"
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    study = load_study(DEMO_STUDY)
    flow = Flow(study, TinyDBStorage(db))
    token = flow.arrive({})
    walk(flow, token, until="stars")

    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    at.query_params["p"] = token
    at.run()
    assert not at.exception
    at.button(key="submit-stars").click()
    at.run()
    assert [e.value for e in at.error] == ["Please give every response one to five stars."]
    for n, system in enumerate(study.systems):
        at.radio(key=f"stars-{system}").set_value(1 + n % 5)
    at.button(key="submit-stars").click()
    at.run()
    assert any("All your answers are saved." in s.value for s in at.success)
    [rec] = TinyDBStorage(db).records(participant=token, kind="stars")
    assert rec["stars"] == {s: 1 + n % 5 for n, s in enumerate(study.systems)}
    assert rec["situation_id"] == study.situations[0].situation_id


def test_bots_answer_it_and_its_table_reaches_the_export_and_datapackage(played, tmp_path):
    _, study, _, storage, results = played
    assert all(r.outcome == "completed" for r in results)
    assert len(storage.records(kind="stars")) == 3
    out = tmp_path / "export"
    write_exports(open_results(study, storage), out)
    table = pd.read_csv(out / "stars.csv")
    assert list(table.columns) == [*STARS.names, "excluded", "bot"]
    assert len(table) == 3 * len(study.systems) and table["stars"].between(1, 5).all()
    package = json.loads((out / "datapackage.json").read_text())
    [resource] = [r for r in package["resources"] if r["path"] == "stars.csv"]
    assert resource["description"] == STARS.description
    report = frictionless.validate(str(out / "datapackage.json"))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:10]


def test_analyze_reads_it_back_and_compares_a_judge_with_it(played, tmp_path, capsys):
    _, study, _, storage, _ = played
    out = tmp_path / "export"
    write_exports(open_results(study, storage), out)
    storage.close()
    assert main(["analyze", str(out / "stars.csv"), "--json", "--include-bots"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["kind"] == "table" and result["rows"] == 3 * len(study.systems) and result["participants"] == 3

    # the judge comparison: a judge's scores for the same responses, set beside the humans' stars as ratings
    from infact.results.analyze import compare_judges, judge_humans

    table = pd.read_csv(out / "stars.csv")
    scores = table.groupby(["situation_id", "system"], as_index=False)["stars"].mean()
    judge = tmp_path / "judge.csv"
    scores.rename(columns={"stars": "score"}).assign(criterion="stars").to_csv(judge, index=False)
    humans = judge_humans(table, "stars", None, True)
    assert set(humans["criterion"]) == {"stars"} and humans["rating"].tolist() == table["stars"].tolist()
    compared = compare_judges(humans, "stars", [("mean", judge)], None)
    assert set(compared) == {"mean"} and compared["mean"]


@pytest.mark.slow  # an AppTest of the dashboard: out of the fast subset, as the feedback kind's section test
def test_the_dashboard_draws_its_own_section(played, monkeypatch):
    from tests.support.app import open_dashboard

    study_dir, study, db, storage, results = played
    storage.close()
    at = open_dashboard(study_dir, db, monkeypatch, "Stars")
    assert "Stars" in at.segmented_control(key="section").options
    assert any(f"{3 * len(study.systems)} stars from 3 participants" in c.value for c in at.caption)
    [table] = [d.value for d in at.dataframe]
    assert sorted(table["system"]) == sorted(study.systems)


def test_without_its_registration_it_is_nowhere(played):
    """The check can fail: unregistered, the kind has no table, no page and no section."""
    from infact.results import kinds

    steps.unregister("stars")
    assert "stars" not in {k.name for k in kinds.kinds()}
    with pytest.raises(KeyError, match="unknown step kind 'stars'"):
        steps.kind("stars")
