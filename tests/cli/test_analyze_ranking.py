"""`python -m infact analyze` on pairwise.csv, best_worst.csv, --as-pairwise, --covariates and --judge."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from infact.cli.main import main
from simulations.ratings import simulate_ratings
from simulations.votes import PLANTED, PLANTED_NU, simulate_style_votes


def run_json(capsys, *argv):
    assert main(["analyze", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def pairwise_csv(tmp_path):
    path = tmp_path / "pairwise.csv"
    df = simulate_style_votes(PLANTED, PLANTED_NU, 1.0, 600, 30, long_system=4, seed=1)
    df["participant"] = df["participant"].replace({"p0001": "007"})
    df.to_csv(path, index=False)
    return path


def test_pairwise_csv_is_recognised_and_reported(pairwise_csv, capsys):
    r = run_json(capsys, str(pairwise_csv), "--n-boot", "100")
    assert r["kind"] == "pairwise" and r["criterion"] == "meaningful"
    assert r["n_votes"] == 600 and r["n_participants"] == 30
    assert "007" in pd.read_csv(pairwise_csv, dtype=str)["participant"].values
    top = r["ranking"][0]
    assert set(top) == {"system", "strength", "ci95", "rank", "rank_range", "n_decisive", "provisional"}
    assert r["tie_parameter"] > 0
    assert set(r["win_rates"]["S1"]) == {"S2", "S3", "S4", "S5", "S6"}
    assert {"a", "b", "p", "p_holm"} <= set(r["pairwise"][0])
    assert "style_controlled" not in r


def test_covariates_add_a_style_controlled_ranking(pairwise_csv, capsys):
    r = run_json(capsys, str(pairwise_csv), "--n-boot", "100", "--covariates", "length,items")
    sc = r["style_controlled"]
    assert set(sc["covariates"]) == {"length", "items"}
    assert len(sc["ranking"]) == len(r["ranking"]) == 6


def test_unknown_covariate_is_refused(pairwise_csv, capsys):
    assert main(["analyze", str(pairwise_csv), "--covariates", "politeness"]) != 0
    assert "unknown covariate 'politeness'" in capsys.readouterr().err


def test_markdown_output_and_report(pairwise_csv, tmp_path, capsys):
    out = tmp_path / "r.md"
    assert main(["analyze", str(pairwise_csv), "--n-boot", "100", "--report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| rank | system | strength (log) |" in text and "Davidson tie parameter" in text
    assert out.read_text().startswith("# Preference analysis")


def test_best_worst_csv(tmp_path, capsys):
    path = tmp_path / "best_worst.csv"
    pd.DataFrame(
        {
            "participant": ["p1", "p2", "p3", "p4"],
            "situation_id": ["s1"] * 4,
            "criterion": "m",
            "systems": ["A|B|C"] * 4,
            "best": ["A", "A", "B", "A"],
            "worst": ["C", "B", "C", "C"],
        }
    ).to_csv(path, index=False)
    r = run_json(capsys, str(path), "--n-boot", "100")
    assert r["kind"] == "best_worst"
    assert r["scores"][0]["system"] == "A" and r["ranking"][0]["system"] == "A"


@pytest.mark.slow  # 1.7 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_as_pairwise_and_judge_on_ratings(tmp_path, capsys):
    df = simulate_ratings(20, 6, (2.0, 3.0, 4.0), seed=3)
    ratings = tmp_path / "ratings.csv"
    df.to_csv(ratings, index=False)
    judge = tmp_path / "judge.csv"
    means = df.groupby(["situation_id", "system"])["rating"].mean().reset_index(name="score")
    means.to_csv(judge, index=False)
    r = run_json(capsys, str(ratings), "--as-pairwise", "--n-boot", "100", "--judge", f"mean={judge}")
    assert r["as_pairwise"] and r["ranking"][0]["system"] == "sys2"
    assert r["judges"]["mean"]["kind"] == "scores" and r["judges"]["mean"]["n_items"] == 6 * 3
    plain = run_json(capsys, str(ratings), "--no-mixed-model", "--n-boot", "100", "--judge", f"mean={judge}")
    j = plain["judges"]["mean"]
    assert j["kind"] == "scores" and j["spearman_items"] == pytest.approx(1.0)
    assert j["kendall_tau_systems"] == pytest.approx(1.0)
    assert "friedman" in plain  # the rating analysis is still all there


def test_judge_errors_name_the_file(tmp_path, capsys):
    df = simulate_ratings(5, 3, (2.0, 3.0), seed=3)
    ratings = tmp_path / "ratings.csv"
    df.to_csv(ratings, index=False)
    assert main(["analyze", str(ratings), "--judge", f"x={tmp_path / 'missing.csv'}"]) != 0
    assert "missing.csv" in capsys.readouterr().err


@pytest.mark.slow  # 2.1 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_reports_show_the_judges_beside_the_human_results(tmp_path, capsys):
    df = simulate_ratings(10, 4, (2.0, 3.0, 4.0), seed=3)
    ratings, judge = tmp_path / "ratings.csv", tmp_path / "judge.csv"
    df.to_csv(ratings, index=False)
    df.groupby(["situation_id", "system"])["rating"].mean().reset_index(name="score").to_csv(judge, index=False)
    for name in ("r.md", "r.html"):
        out = tmp_path / name
        assert (
            main(
                [
                    "analyze",
                    str(ratings),
                    "--no-mixed-model",
                    "--n-boot",
                    "100",
                    "--judge",
                    f"mean={judge}",
                    "--report",
                    str(out),
                ]
            )
            == 0
        )
        text = out.read_text()
        assert "Automatic judges beside the humans" in text and "| mean | 12 |" in text
    assert text.rstrip().endswith("</body></html>")
    assert "Automatic judges" in capsys.readouterr().out


def test_progress_bars_go_to_stderr_only_when_asked_or_on_a_terminal(pairwise_csv, capsys):
    assert main(["analyze", str(pairwise_csv), "--json", "--n-boot", "100", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["kind"] == "pairwise"  # stdout stays one JSON object
    assert "analyze: bootstrap [" in err and "100/100" in err and "analyze: fragility by votes [" in err
    assert main(["analyze", str(pairwise_csv), "--json", "--n-boot", "100"]) == 0
    assert "analyze:" not in capsys.readouterr().err  # captured stderr is not a terminal


def test_a_declared_maximum_on_the_command_line_selects_the_finite_horizon_boundary(pairwise_csv, capsys, tmp_path):
    declared = run_json(capsys, str(pairwise_csv), "--n-boot", "100", "--max-participants", "40")["monitoring"]
    assert declared["boundary"] == "finite_horizon" and declared["maximum"] == 40
    assert declared["method"].startswith("a finite-horizon boundary for the declared maximum")
    assert declared["beyond_maximum"] is False  # 30 participants of 40
    plain = run_json(capsys, str(pairwise_csv), "--n-boot", "100")["monitoring"]
    assert plain["boundary"] == "anytime" and plain["maximum"] is None
    assert main(["analyze", str(pairwise_csv), "--max-participants", "0"]) != 0
    assert "--max-participants" in capsys.readouterr().err
    assert main(["analyze", "--study", str(tmp_path), "--max-participants", "40"]) != 0
    assert "study.toml declares" in capsys.readouterr().err
