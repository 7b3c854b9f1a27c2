"""The alignment report says how many judge answers were usable (issue 29, item 10): usable/total in the
Markdown and the JSON, a warning below the threshold, and a failed command when none is."""

from __future__ import annotations

import json

import pytest

from infact.cli.main import main
from infact.participation.bots import default_quality, run_bots
from infact.storage import open_storage
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.llm_judges import judge_rule, judge_study


def played(tmp_path, url: str):
    study = judge_study(tmp_path, url, "")
    db = tmp_path / "store"
    storage = open_storage(str(db))
    run_bots(study, storage, 6, strategy="attentive", seed=3)
    storage.close()
    return study, db


def some_garbage(study, every: int):
    rule, n = judge_rule(study, default_quality(study)), {"calls": 0}

    def answer(request: dict) -> str:
        n["calls"] += 1
        return "hmm, hard to say" if n["calls"] % every else rule(request)

    return answer


@pytest.mark.slow  # 3.1 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_judge_without_one_usable_answer_fails_the_command_and_says_so(tmp_path, capsys):
    with serve_openai() as stub:
        study, db = played(tmp_path, stub.url)
        stub.rule = lambda request: "I think it is rather good, maybe."
        code = main(["judge", "--study", str(study.folder), "--judge", "j", "--db", str(db), "--include-bots"])
        out = capsys.readouterr().out
        assert code == 1 and "## Judge alignment" in out
        assert "j: 0 of " in out and "answers usable (0%)" in out and "none of j's answers is a label" in out
        judge_csv = study.folder / "judges" / "j.csv"
        argv = ["analyze", "--study", str(study.folder), "--db", str(db), "--judge", f"j={judge_csv}", "--json"]
        code = main([*argv, "--include-bots"])  # the people here are bots (left out by default)
        captured = capsys.readouterr()
        result = json.loads(captured.out)
        assert code == 1 and "judge j has no usable answer" in captured.err
        coverage = result["judge_coverage"]["j"]
        assert coverage["usable"] == 0 and coverage["total"] > 0


@pytest.mark.slow  # 3.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_partly_usable_judge_shows_usable_of_total_and_a_warning(tmp_path, capsys):
    with serve_openai() as stub:
        study, db = played(tmp_path, stub.url)
        stub.rule = some_garbage(load_study(study.folder), every=4)  # 1 answer in 4 is a label, re-asks too
        code = main(["judge", "--study", str(study.folder), "--judge", "j", "--db", str(db), "--include-bots"])
        out = capsys.readouterr().out
        assert code == 0
        line = next(x for x in out.splitlines() if x.startswith("- j: "))
        usable, total = int(line.split()[2]), int(line.split()[4])
        assert 0 < usable < total and "Warning: only" in out
        raw = [json.loads(x) for x in (study.folder / "judges" / "j.raw.jsonl").read_text().splitlines()]
        assert total == len({r["key"] for r in raw}) and usable == sum(r.get("label") is not None for r in raw)


@pytest.mark.slow  # a judge run over a bot-played store
def test_bots_are_not_the_humans_a_judge_is_compared_with_unless_asked(tmp_path, capsys):
    with serve_openai() as stub:
        study, db = played(tmp_path, stub.url)
        stub.rule = judge_rule(load_study(study.folder), default_quality(load_study(study.folder)))
        main(["judge", "--study", str(study.folder), "--judge", "j", "--db", str(db)])
        alone = capsys.readouterr().out
        main(["judge", "--study", str(study.folder), "--judge", "j", "--db", str(db), "--include-bots"])
        kept = capsys.readouterr().out
    assert "note: 6 bot participant(s) (`infact bots`) left out of the humans" in alone
    assert "left out of the humans" not in kept
    assert alone != kept  # the comparison itself changed: with the bots there were humans to compare with
