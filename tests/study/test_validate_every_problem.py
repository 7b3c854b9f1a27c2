"""`validate` lists every problem in one run (issue 40 item 4): study.toml's fields, the checks across sections
and the data's, together; a problem about a default the researcher never wrote says it is the default; each
message that can name a value that works does, and that value works."""

from __future__ import annotations

import re

import pytest

from infact.cli.main import main
from infact.errors import ConfigError
from infact.study.loader import load_config, validate_study
from tests.support.paths import REPO
from tests.support.studies import make_study

DIALOGS = REPO / "tests" / "fixtures" / "table" / "movie_dialogs.csv"

# What a new user writes by hand from docs/settings.md's "required" rows, with the mistakes of the issue.
HAND_WRITTEN = """\
[study]
id = "my movie study"
title = "Movie chatbots"
systems = ["MovieBot", "CineLLM", "Baseline"]
situations_per_participant = 4

[scale]
labels = ["Bad", "Poor", "Fine", "Good"]

[texts]
welcome = "Welcome!"
terms = "You may stop at any time."
"""


@pytest.fixture
def hand_written(tmp_path):
    folder = tmp_path / "mine"
    assert main(["import", "table", str(DIALOGS), "--study", str(folder)]) == 0
    (folder / "study.toml").write_text(HAND_WRITTEN, encoding="utf-8")
    return folder


def test_one_run_lists_every_problem_of_the_new_user_s_study(hand_written, capsys):
    assert main(["validate", str(hand_written)]) == 1
    err = capsys.readouterr().err
    keys = re.findall(r"^\S+: \[([\w.\[\]]+)\]", err, re.MULTILINE)
    assert sorted(keys) == [
        "attention_check.expected",  # the default "Meaningless" is not on the researcher's scale
        "attention_check.positions",  # the default [3, 8] does not fit 4 situations
        "attention_check.situation",  # the check needs a dialog (found only by reading the data)
        "study.id",  # a space
        "texts.privacy",  # required
    ]
    assert "5 problem(s)" in err


def test_problems_about_defaults_say_so_and_suggest_a_value(hand_written):
    _, errors, _ = validate_study(hand_written)
    by_key = {p.key: p for p in errors}
    positions = by_key["attention_check.positions"]
    assert "[3, 8] (the default: not in study.toml)" in positions.message
    assert "set attention_check.positions = [3, 4]" in positions.message
    assert positions.line is None  # never written: no line to point at
    expected = by_key["attention_check.expected"].message
    assert "(the default: not in study.toml)" in expected and 'set attention_check.expected = ["Poor"]' in expected
    assert 'set attention_check.situation = "m01-t3"' in by_key["attention_check.situation"].message
    assert "add it: Data-privacy statement (Markdown)" in by_key["texts.privacy"].message  # what the setting is


def test_a_written_value_is_not_called_the_default(tmp_path):
    folder = make_study(tmp_path, per_participant=4, attention_check={"positions": [2, 6]})
    with pytest.raises(ConfigError) as exc:
        load_config(folder)
    [problem] = exc.value.problems
    assert "the default" not in problem.message and "set attention_check.positions = [2, 4]" in problem.message


def test_applying_the_suggested_values_gives_a_valid_study(hand_written):
    fixed = (
        HAND_WRITTEN.replace("my movie study", "my-movie-study")
        + 'privacy = "We store your answers."\n\n[attention_check]\nsituation = "m01-t3"\npositions = [3, 4]\n'
        'expected = ["Poor"]\ntext = \'I am reading this carefully: please select "Poor" for this response.\'\n'
    )
    (hand_written / "study.toml").write_text(fixed, encoding="utf-8")
    study, errors, _ = validate_study(hand_written)
    assert errors == [] and study.config.attention_check.positions == (3, 4)


def test_too_many_situations_per_participant_by_default_suggests_what_the_data_allows(tmp_path):
    folder = tmp_path / "mine"
    assert main(["import", "table", str(DIALOGS), "--study", str(folder)]) == 0
    text = HAND_WRITTEN.replace("situations_per_participant = 4\n", "").replace("my movie study", "mine")
    text = text.replace('[scale]\nlabels = ["Bad", "Poor", "Fine", "Good"]\n', "")
    (folder / "study.toml").write_text(text + 'privacy = "p"\n\n[attention_check]\nsituation = "m01-t3"\n')
    _, errors, _ = validate_study(folder)
    [problem] = errors
    assert problem.key == "study.situations_per_participant"
    assert "= 10 (the default: not in study.toml)" in problem.message
    assert "only 5 are usable: set study.situations_per_participant = 6" in problem.message


def test_cross_section_problems_come_together(tmp_path):
    folder = make_study(
        tmp_path,
        per_participant=4,
        attention_check={"positions": [2, 6]},
        questionnaire={"scale": ["No", "Yes"]},
    )
    with pytest.raises(ConfigError) as exc:
        load_config(folder)
    keys = {p.key for p in exc.value.problems}
    assert {"attention_check.positions", "questionnaire"} <= keys


def test_a_bad_setting_and_the_data_s_problems_in_one_run(tmp_path):
    """study.toml has a problem, and the attention check names a situation the files lack: both at once."""
    folder = make_study(tmp_path, per_participant=4, attention_check={"positions": [2, 6], "situation": "s0l"})
    with (folder / "situations.jsonl").open("a") as fh:
        fh.write("{not json\n")
    _, errors, _ = validate_study(folder)
    by_key = {p.key: p.message for p in errors}
    assert "attention_check.positions" in by_key
    assert by_key["attention_check.situation"].startswith("situation 's0l' is not in the situations files")
    assert any(p.file.endswith("situations.jsonl") and "invalid JSON" in p.message for p in errors)


@pytest.mark.parametrize("kind", ["rating", "pairwise"])
def test_the_default_questionnaire_s_check_item_is_called_default_against_a_written_scale(tmp_path, kind):
    folder = make_study(tmp_path, questionnaire={"scale": ["No", "Yes"]}, protocol={"kind": kind})
    with pytest.raises(ConfigError) as exc:
        load_config(folder)
    [problem] = exc.value.problems
    assert "questionnaire item 'careful' (of the default questionnaire: not in study.toml)" in problem.message
    assert "set expected = 'Yes'" in problem.message
