"""`infact judge`: the study's own items asked of a stub LLM, parsed strictly, cached by prompt hash."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from infact.cli.main import main
from infact.participation.bots import default_quality
from infact.results.judges.agreement import read_judge
from infact.results.judges.prompts import parse_label
from infact.results.judges.runner import run_judge
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.llm_judges import judge_rule
from tests.support.paths import DEMO_STUDY

JUDGE = (
    '\n[endpoints.judge-llm]\nbase_url = "{url}"\nmodel = "stub-judge"\nmax_concurrency = 8\nmax_retries = 0\n'
    '\n[judges.stubby]\nendpoint = "judge-llm"\nsamples = {samples}\ntemperature = 0.5\n'
)


def judged_study(tmp_path, url: str, samples: int = 1, protocol: str = ""):
    folder = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, folder)
    toml = folder / "study.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8") + protocol + JUDGE.format(url=url, samples=samples), encoding="utf-8"
    )
    return load_study(folder)


@pytest.mark.parametrize(
    "answer, label",
    [
        ("Meaningless", "Meaningless"),
        ("  **meaningless.**", "Meaningless"),
        ('"Perfectly meaningful"', "Perfectly meaningful"),
        ("Meaningless, I think", None),
        ("2", None),
        ("", None),
    ],
)
def test_an_answer_counts_only_when_it_is_one_label(answer, label):
    labels = ["Entirely meaningless", "Meaningless", "Perfectly meaningful"]
    assert parse_label(answer, labels) == label


def test_a_rating_judge_answers_every_response_and_criterion_with_the_studys_texts(tmp_path):
    with serve_openai() as stub:
        study = judged_study(tmp_path, stub.url, samples=2)
        stub.rule = judge_rule(study, default_quality(study))
        report = run_judge(study, "stubby")
        n_items = sum(len(s.responses) for s in study.situations) * len(study.config.criteria) * 2
        assert report.items == n_items == len(stub.requests) == report.rows and report.unparseable == 0
        first = stub.requests[0]["messages"]
        assert study.config.texts.instructions.strip()[:60] in first[0]["content"]
        assert study.config.criteria[0].question in first[1]["content"]
        assert all(label in first[1]["content"] for label in study.config.scale.labels)
        kind, table = read_judge(report.csv_path)  # the format analyze --judge reads
        assert kind == "scores" and set(table["sample"].astype(int)) == {0, 1}
        best = table.groupby("system")["score"].mean().idxmax()
        assert best == study.systems[0]
        # A rerun asks nothing again: every call is cached by its prompt hash.
        again = run_judge(study, "stubby")
        assert len(stub.requests) == n_items and again.summary.calls == 0 and again.rows == n_items


def test_an_unparseable_answer_is_reasked_once_then_stored_as_unparseable_never_guessed(tmp_path):
    with serve_openai() as stub:
        study = judged_study(tmp_path, stub.url)
        stub.rule = judge_rule(study, default_quality(study), mode="garbage")
        report = run_judge(study, "stubby")
        assert report.rows == 0 and report.unparseable == report.items and len(stub.requests) == 2 * report.items
        assert "label" in stub.requests[1]["messages"][-1]["content"]  # the re-ask reminds of the labels
        raw = [json.loads(line) for line in report.raw_path.read_text().splitlines()]
        assert all(r["status"] == "unparseable" and len(r["raw"]) == 2 and r["label"] is None for r in raw)
        assert pd.read_csv(report.csv_path).empty
        assert run_judge(study, "stubby").summary.calls == 0  # stored, not asked again


def test_a_pairwise_judge_sees_both_orders_of_each_pair(tmp_path):
    with serve_openai() as stub:
        study = judged_study(tmp_path, stub.url, protocol='\n[protocol]\nkind = "pairwise"\n')
        stub.rule = judge_rule(study, default_quality(study), mode="first")
        report = run_judge(study, "stubby")
        kind, table = read_judge(report.csv_path)
    assert kind == "pairwise" and report.rows == report.items
    pairs = table.groupby(["situation_id", "criterion"]).apply(
        lambda g: {(a, b) for a, b in zip(g["system_a"], g["system_b"])}, include_groups=False
    )
    assert all((b, a) in orders for orders in pairs for a, b in orders)
    assert (table["winner"] == table["system_a"]).all()  # the always-first judge


def test_failed_calls_are_retried_by_a_rerun_and_the_cli_prints_a_summary(tmp_path, capsys):
    with serve_openai() as stub:
        study = judged_study(tmp_path, stub.url)
        stub.rule = judge_rule(study, default_quality(study))
        stub.fail(500, times=4)
        assert main(["judge", "--study", str(study.folder), "--judge", "stubby"]) == 1
        out = capsys.readouterr().out
        assert "failures=4" in out and "calls=" in out and "prompt_tokens=" in out and "seconds=" in out
        assert main(["judge", "--study", str(study.folder), "--judge", "stubby"]) == 0
        assert "calls=4" in capsys.readouterr().out
