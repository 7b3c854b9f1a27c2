"""The stopping rule of `[monitoring]` in the datasheet (HEDS 3.3.8) and the methods paragraph: recorded as declared
in advance only when study.toml last changed before the first participant started."""

from __future__ import annotations

import os
import shutil

import pandas as pd

from infact.participation.bots import run_bots
from infact.results.reports.datasheet import datasheet
from infact.results.reports.methods import methods_paragraph
from infact.results.study_results import StudyResults
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.paths import REPO


def _sheet(tmp_path, rule: str | None, toml_time: str):
    folder = tmp_path / "study"
    shutil.copytree(REPO / "data" / "demo", folder)
    toml = folder / "study.toml"
    if rule:
        toml.write_text(toml.read_text(encoding="utf-8") + f"\n[monitoring]\n{rule}\n", encoding="utf-8")
    study = load_study(folder)
    storage = TinyDBStorage(tmp_path / "db")
    run_bots(study, storage, 2, strategy="attentive", seed=1)
    results = StudyResults(study, storage.records(study=study.id))
    first = pd.to_datetime(results.tables.participants["started_at"], utc=True, format="ISO8601").min()
    stamp = (first + pd.Timedelta(toml_time)).timestamp()
    os.utime(toml, (stamp, stamp))
    return datasheet(results)


def _field(sheet, fid):
    return next(f for f in sheet["sections"]["3.3"]["fields"] if f["id"] == fid)


def test_a_rule_written_before_the_first_participant_is_recorded_as_declared_in_advance(tmp_path):
    sheet = _sheet(tmp_path, "stop_when_settled = true\nmax_participants = 150", "-1D")
    rule = _field(sheet, "3.3.8")["value"]
    assert rule["declared_in_advance"] is True and rule["settings"]["max_participants"] == 150
    # a declared maximum: the order was watched with the finite-horizon boundary (issue 37 item 5)
    assert "settled within the declared maximum (a finite-horizon boundary) or 150 participants" in rule["rule"]
    assert rule["method"].startswith("a finite-horizon boundary for the declared maximum of 150 participants")
    para = methods_paragraph({"n_participants": 2}, sheet)
    assert "The stopping rule was declared before the first participant started" in para
    assert "a finite-horizon boundary for the declared maximum of 150 participants" in para
    assert "answers beyond it settle nothing anew" in para


def test_without_a_maximum_the_order_is_watched_with_anytime_valid_sequences(tmp_path):
    sheet = _sheet(tmp_path, "stop_when_settled = true", "-1D")
    rule = _field(sheet, "3.3.8")["value"]
    assert "settled by anytime-valid confidence sequences" in rule["rule"]
    assert rule["method"].startswith("anytime-valid confidence sequences")
    para = methods_paragraph({"n_participants": 2}, sheet)
    assert "The stopping rule was declared before the first participant started" in para
    assert "anytime-valid confidence sequences" in para and "finite-horizon" not in para


def test_a_rule_written_after_the_first_participant_is_flagged(tmp_path):
    sheet = _sheet(tmp_path, "precision = 0.1", "+1h")
    assert _field(sheet, "3.3.8")["value"]["declared_in_advance"] is False
    assert "it may not have been declared in advance" in methods_paragraph({"n_participants": 2}, sheet)


def test_without_a_rule_the_datasheet_says_it_is_missing_and_the_paragraph_says_so(tmp_path):
    sheet = _sheet(tmp_path, None, "-1D")
    assert "missing" in _field(sheet, "3.3.8")
    assert "No stopping rule was declared in advance" in methods_paragraph({"n_participants": 2}, sheet)
