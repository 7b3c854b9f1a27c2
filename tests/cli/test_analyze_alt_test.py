"""`analyze --judge` reports the Alt-Test beside the stand-in rule; `--alt-epsilon` sets its ε."""

from __future__ import annotations

import json

import pytest

from infact.cli.main import main
from simulations.ratings import simulate_ratings


@pytest.mark.slow  # 2.4 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_report_gives_both_verdicts_and_the_epsilon_asked(tmp_path, capsys):
    df = simulate_ratings(5, 12, (2.0, 3.0, 4.0), seed=3)  # 5 raters × 36 items each
    ratings, judge, report = tmp_path / "ratings.csv", tmp_path / "judge.csv", tmp_path / "r.md"
    df.to_csv(ratings, index=False)
    df.groupby(["situation_id", "system"])["rating"].mean().reset_index(name="score").to_csv(judge, index=False)
    argv = ["analyze", str(ratings), "--no-mixed-model", "--n-boot", "100", "--judge", f"mean={judge}"]
    assert main([*argv, "--alt-epsilon", "0.25", "--json", "--report", str(report)]) == 0
    result = json.loads(capsys.readouterr().out)
    alt = next(iter(result["judge_alignment"]["mean"].values()))["alt_test"]
    assert alt["epsilon"] == 0.25 and alt["n_annotators"] == 5 and alt["passed"]
    text = report.read_text(encoding="utf-8")
    assert "Verdicts: stand-in rule and Alt-Test" in text and "ε = 0.25" in text
    assert "only 36 items" in text  # fewer than the paper's 50–100, said
    assert main([*argv, "--json"]) == 0
    default = next(iter(json.loads(capsys.readouterr().out)["judge_alignment"]["mean"].values()))["alt_test"]
    assert default["epsilon"] == 0.1
