"""`[flow] steps`: the study's own order of step kinds (demographics first) and two protocol blocks (a rating
block, then a pairwise block over the same systems) run end to end, both blocks in the exports;
`validate` names an unknown kind or an impossible order with the file and field."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

from infact.cli.main import main
from infact.errors import ConfigError
from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.results.study_results import StudyResults
from infact.stores.memory import MemoryStorage
from infact.study.loader import load_study, parse_config

SYSTEMS = ("Alpha", "Beta", "Gamma")
TOML = """
[study]
id = "blocks"
title = "Two blocks"
systems = ["Alpha", "Beta", "Gamma"]
situations_per_participant = 3
expected_minutes = 10

[flow]
steps = {steps}

[protocol]
kind = "pairwise"

[attention_check]
enabled = true
situation = "check"
positions = [2, 3]

[texts]
welcome = "Welcome."
instructions = "Rate."
terms = "Terms."
privacy = "Privacy."
"""
ORDER = ["consent", "demographics", "situation", "pairwise", "questionnaire", "done"]


def write(folder: Path, steps=ORDER) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "study.toml").write_text(TOML.replace("{steps}", json.dumps(steps)), encoding="utf-8")
    lines = [
        {
            "situation_id": sid,
            "dialog_id": sid,
            "context": [{"role": "user", "text": f"a movie? ({sid})"}],
            "responses": {s: f"{s} on {sid}" for s in SYSTEMS},
        }
        for sid in [f"s{i}" for i in range(8)] + ["check"]
    ]
    (folder / "situations.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return folder


def test_a_participant_meets_the_kinds_in_the_study_s_order_with_both_blocks(tmp_path):
    study = load_study(write(tmp_path / "s"))
    flow = Flow(study, MemoryStorage())
    token = flow.arrive({})
    assert flow.current(flow.state(token)).name == "consent"
    flow.submit(token, "consent", {"consent": True})
    kinds = [s.kind for s in flow.steps(flow.state(token))]
    assert kinds == ["consent", "demographics"] + ["situation"] * 3 + ["pairwise"] * 3 + ["questionnaire", "done"]
    assert flow.current(flow.state(token)).kind == "demographics"  # demographics first
    steps = flow.steps(flow.state(token))
    rated = {s.situation_id for s in steps if s.kind == "situation"}
    compared = {s.situation_id for s in steps if s.kind == "pairwise"}
    assert rated == compared  # the same situations, twice
    assert [s.index for s in steps if s.kind in ("situation", "pairwise")] == [1, 2, 3, 4, 5, 6]  # numbered on
    assert [s.name for s in steps if s.kind == "pairwise"] == ["pairwise-4", "pairwise-5", "pairwise-6"]
    assert flow.progress(flow.state(token)) == (0, 6)


def test_bots_complete_it_and_both_blocks_are_in_the_exports(tmp_path):
    study = load_study(write(tmp_path / "s"))
    storage = MemoryStorage()
    results = run_bots(study, storage, 6, strategy="attentive", seed=2, start=datetime(2026, 3, 2, tzinfo=UTC))
    assert all(r.outcome == "completed" for r in results)
    t = StudyResults(study, storage.records(study=study.id)).tables
    assert set(t.ratings["participant"]) == set(t.compare["pairwise.csv"]["participant"]) == {r.token for r in results}
    assert len(t.ratings) == 6 * 3 * 3  # 3 situations x 3 systems each
    assert len(t.compare["pairwise.csv"]) == 6 * 2  # 2 votes each (the check is no vote)
    assert t.funnel.set_index("stage").loc["situation 6", "participants"] == 6


def test_exports_through_the_cli_hold_both_blocks(tmp_path):
    folder = write(tmp_path / "s")
    db = tmp_path / "db"
    assert main(["bots", "--study", str(folder), "--db", str(db), "-n", "4", "--strategy", "attentive"]) == 0
    assert main(["export", "--study", str(folder), "--db", str(db), "--out", str(tmp_path / "out")]) == 0
    ratings = pd.read_csv(tmp_path / "out" / "ratings.csv")
    votes = pd.read_csv(tmp_path / "out" / "pairwise.csv")
    assert ratings["participant"].nunique() == 4 and votes["participant"].nunique() == 4


@pytest.mark.parametrize(
    "steps, message",
    [
        (["demographics", "consent", "situation", "pairwise", "done"], 'flow.steps: "consent" must come first'),
        (["consent", "situation", "pairwise", "done", "questionnaire"], 'flow.steps: "done" must come last'),
        (
            ["consent", "situation", "done"],
            'kind = "pairwise" is shown by the step kind "pairwise", which the list lacks',
        ),
        (["consent", "situation", "situation", "pairwise", "done"], "repeated: situation"),
    ],
)
def test_impossible_orders_are_refused_naming_file_and_field(tmp_path, steps, message):
    text = TOML.replace("{steps}", json.dumps(steps))
    with pytest.raises(ConfigError) as exc:
        parse_config(text, "study.toml")
    assert message in str(exc.value) and "study.toml:" in str(exc.value)


def test_validate_names_an_unknown_kind_with_the_file_and_field(tmp_path, capsys):
    folder = write(tmp_path / "s", ["consent", "situation", "pairwise", "feedbak", "done"])
    assert main(["validate", "--study", str(folder)]) != 0
    out = capsys.readouterr()
    text = out.out + out.err
    assert "study.toml" in text and "flow.steps" in text and "unknown step kind(s) feedbak" in text
