"""The analysis as a library (infact/results/analyze.py), called with objects and no command line: ratings,
pairwise votes, best–worst choices and live-chat transcripts each come back as an `Analysis` whose report its
kind writes (the `report` hook), a study's from a loaded study and an open store; a bad option is an
`OptionError` naming the library's option, not a flag."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest

from infact.errors import OptionError
from infact.participation import steps
from infact.participation.bots import run_bots
from infact.results import kinds
from infact.results.analyze import Analysis, Options, analysis_of, analyze_file, analyze_study
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from simulations.ratings import simulate_ratings
from tests.support import stars_kind
from tests.support.studies import make_study
from tests.support.votes import honest

QUICK = Options(mixed_model=False, n_boot=100)


def test_a_ratings_table_is_analysed_and_reported_as_ratings():
    ratings = simulate_ratings(8, 4, (2.0, 3.0, 4.0), seed=2)
    analysis = analysis_of(ratings, QUICK)
    assert analysis.kind is kinds.for_table("ratings") and analysis.result["n_participants"] == 8
    assert "### Friedman test" in analysis.render()
    page = analysis.render("html")
    assert "vegaEmbed" in page and page.rstrip().endswith("</body></html>")
    # read as preferences, the ratings kind's report is a ranking
    ranked = analysis_of(ratings, Options(n_boot=100, as_pairwise=True))
    assert ranked.kind.name == "ratings" and "| rank | system | strength (log) |" in ranked.render()


def test_a_pairwise_file_is_analysed_and_reported_as_votes(tmp_path):
    path = tmp_path / "pairwise.csv"
    honest(60).to_csv(path, index=False)
    analysis = analyze_file(path, Options(n_boot=100))
    assert analysis.kind.name == "pairwise" and analysis.result["ranking"][0]["system"] == "A"
    assert "| rank | system | strength (log) |" in analysis.render()
    assert analysis.render("html").startswith("<!doctype html>") and "<pre" in analysis.render("html")
    assert "Methods paragraph" in analysis.report("md") and "No datasheet" in analysis.report("md")


def test_best_worst_choices_are_analysed_as_their_kind():
    choices = pd.DataFrame(
        {
            "participant": ["p1", "p2", "p3", "p4"],
            "situation_id": ["s1"] * 4,
            "criterion": "m",
            "systems": ["A|B|C"] * 4,
            "best": ["A", "A", "B", "A"],
            "worst": ["C", "B", "C", "C"],
        }
    )
    analysis = analysis_of(choices, Options(n_boot=100), "best_worst.csv")
    assert analysis.kind.name == "best_worst" and analysis.result["ranking"][0]["system"] == "A"
    assert "| rank | system |" in analysis.render()


def test_live_chat_transcripts_are_analysed_as_live_chats(tmp_path):
    path = tmp_path / "transcripts.jsonl"
    turns = [{"role": "user", "text": "hi", "items": [], "latency_ms": None, "error": None}]
    lines = [
        {"participant": p, "system": s, "conversation_id": c, "ended_by": "satisfied", "satisfaction": 4}
        | {"flags": [], "turns": [*turns, {**turns[0], "role": "assistant", "text": "hello", "latency_ms": ms}]}
        for p, s, c, ms in [("p1", "GenreBot", "c1", 120), ("p2", "MovieBot", "c2", 300)]
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    analysis = analyze_file(path)
    assert analysis.kind.name == "transcripts" and analysis.result["live"]["conversations"] == 2
    assert "| GenreBot | 1 |" in analysis.render()


def _stars_report(result: dict, fmt: str, table) -> str:
    return f"{result['rows']} star rows ({fmt})"


@pytest.fixture
def stars():
    """The test-only kind (tests/support/stars_kind.py) with a report of its own."""
    results = replace(stars_kind.RESULTS, report=_stars_report)
    steps.register(replace(stars_kind.KIND, results=results), before="done")
    yield results
    steps.unregister("stars")


def test_the_report_is_the_kind_s_own_and_a_kind_without_one_gets_the_table_s_counts(stars):
    table = pd.DataFrame({"participant": ["a", "b"], "situation_id": "s1", "system": ["A", "B"], "stars": [4, 5]})
    analysis = analysis_of(table, QUICK, "stars.csv")
    assert analysis.kind is stars and analysis.result["kind"] == "table"  # the default analysis: its counts
    assert analysis.render() == "2 star rows (md)" and analysis.render("html") == "2 star rows (html)"
    steps.unregister("stars")
    stars_kind.register_stars()  # no report of its own: the counts' (a KeyError before)
    text = analysis_of(table, QUICK, "stars.csv").render()
    assert "2 rows from 2 participants" in text and "- A: 1 rows" in text and "| stars | 2 | 2 |" in text


def test_a_study_is_analysed_from_its_loaded_study_and_open_store(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=3))
    storage = MemoryStorage()
    run_bots(study, storage, 3, strategy="attentive", seed=1)
    analysis = analyze_study(study, storage, Options(mixed_model=False, n_boot=100, include_bots=True))
    assert analysis.kind.name == "ratings" and analysis.result["n_participants"] == 3
    assert analysis.results.study is study and set(analysis.table["participant"]) == analysis.results.bots
    assert "stopping_rule" in analysis.result  # what only the study knows
    report = analysis.report("md")
    assert "Methods paragraph" in report and "No datasheet" not in report  # the study's datasheet is in


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"n_boot": 10}, "n_boot"),
        ({"confidence": 0.2}, "confidence"),
        ({"anomaly_quantile": 1.5}, "anomaly_quantile"),
        ({"repeat_cap": 0}, "repeat_cap"),
        ({"min_votes": -1}, "min_votes"),
        ({"covariates": ("politeness",)}, "covariates"),
        ({"reweight": True}, "reweight"),
    ],
)
def test_an_option_the_analysis_cannot_use_is_named_as_the_library_names_it(options, option):
    with pytest.raises(OptionError) as err:
        analysis_of(simulate_ratings(4, 2, (2.0, 3.0), seed=1), Options(**options))
    [problem] = err.value.problems
    assert err.value.option == problem.file == option and "--" not in str(err.value)


def test_a_result_already_computed_is_reported_as_the_kind_named(tmp_path):
    result = analysis_of(simulate_ratings(6, 3, (2.0, 3.0), seed=1), QUICK).result  # the dashboard's figures
    assert "### Friedman test" in Analysis.of("ratings", result).render()
    with pytest.raises(OptionError, match="no table kind 'nosuch'"):
        Analysis.of("nosuch", result)


def test_an_option_error_in_a_file_names_the_file_and_the_option_as_the_caller_names_it():
    error = OptionError("judges", "run file not found; give {judges} NAME=RUN.json", key="{judges}", file="r.json")
    assert str(error) == "r.json: [judges] run file not found; give judges NAME=RUN.json"
    [problem] = error.named({"judges": "--judge"}).problems
    assert str(problem) == "r.json: [--judge] run file not found; give --judge NAME=RUN.json"
