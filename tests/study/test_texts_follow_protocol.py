"""Texts follow the protocol (issue 40 item 5): a text left out takes the protocol's wording, so
`texts.instructions` is no longer required and switching `[protocol] kind` switches it; a text the researcher
wrote that speaks of another protocol's task gets a warning naming the words and the fix."""

from __future__ import annotations

import pytest

from infact.cli.main import main
from infact.study.checks.texts import text_warnings
from infact.study.config import StudyConfig
from infact.study.loader import load_study
from infact.study.protocol_config import LIVE_INSTRUCTIONS, OWN_INSTRUCTIONS
from tests.support.paths import REPO

TEXTS = {"welcome": "W.", "terms": "T.", "privacy": "P."}  # no instructions
DEMOS = sorted(p.parent.name for p in (REPO / "data").glob("*/study.toml"))
RATING_WORDS = "Read the dialog and **rate each** response on the 5-point scale from meaningless to meaningful."


def config(kind: str, **texts) -> StudyConfig:
    return StudyConfig.model_validate(
        {
            "study": {"id": "s", "title": "t", "systems": ["A", "B", "C"], "situations_per_participant": 4},
            "texts": {**TEXTS, **texts},
            "protocol": {"kind": kind},
            "attention_check": {"enabled": False},
            **(
                {"aspects": [{"id": "a", "level": "turn", "question": "q", "labels": ["0", "1"]}]}
                if kind == "conversation"
                else {}
            ),
        }
    )


@pytest.mark.parametrize("kind", ["rating", "pairwise", "pairwise_dialog", "best_worst", "conversation"])
def test_instructions_left_out_take_the_protocol_s_own(kind):
    assert config(kind).texts.instructions == OWN_INSTRUCTIONS[kind]


def test_a_live_chats_only_study_explains_the_chats():
    cfg = StudyConfig.model_validate(
        {
            "study": {"id": "s", "title": "t", "systems": ["Bot"], "situations_per_participant": 0},
            "texts": TEXTS,
            "attention_check": {"enabled": False},
            "live": {"systems": {"Bot": {"callable": "infact.chat.demo_systems:genre_recommender"}}},
        }
    )
    assert cfg.texts.instructions == LIVE_INSTRUCTIONS


def test_switching_the_kind_of_a_new_study_switches_its_instructions(tmp_path):
    folder = tmp_path / "s"
    assert main(["new", str(folder), "--from", str(REPO / "tests" / "fixtures" / "table" / "movie_dialogs.csv")]) == 0
    assert "instructions" not in (folder / "study.toml").read_text(encoding="utf-8").split("[texts]")[1]
    assert load_study(folder).config.texts.instructions == OWN_INSTRUCTIONS["rating"]
    path = folder / "study.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('kind = "rating"', 'kind = "pairwise"'), encoding="utf-8")
    texts = load_study(folder).config.texts
    assert texts.instructions == OWN_INSTRUCTIONS["pairwise"] and "two" in texts.situation_help


def test_a_written_text_is_kept():
    assert config("pairwise", instructions="Mine.").texts.instructions == "Mine."


def test_a_pairwise_study_whose_instructions_speak_of_rating_gets_a_warning():
    [warning] = text_warnings(config("pairwise", instructions=RATING_WORDS))
    assert warning.key == "texts.instructions"
    assert '"rate each"' in warning.message and "this study is pairwise" in warning.message
    assert "delete texts.instructions to use the pairwise wording" in warning.message


@pytest.mark.parametrize(
    ("kind", "key", "text"),
    [
        ("rating", "instructions", "Each page shows two possible next chatbot responses: choose the better one."),
        ("rating", "situation_help", "Pick the best and the worst response."),
        ("best_worst", "welcome", "You will rate each response on a scale."),
        ("pairwise", "questionnaire_intro", "Now pick the best and worst chatbot."),
    ],
)
def test_each_other_task_is_recognised(kind, key, text):
    assert [w.key for w in text_warnings(config(kind, **{key: text}))] == [f"texts.{key}"]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("rating", RATING_WORDS),
        ("pairwise", "Choose the better of the two responses, or About the same."),
        ("pairwise", "Which response is better? Both may be fine."),  # "better" alone is no cue
        ("conversation", "Rate each chatbot message on the scale."),  # a conversation study rates turns
    ],
)
def test_a_text_of_the_study_s_own_task_is_not_warned_about(kind, text):
    assert text_warnings(config(kind, instructions=text)) == []


@pytest.mark.parametrize("demo", DEMOS)
def test_no_demo_gets_a_warning(demo):
    assert text_warnings(load_study(REPO / "data" / demo).config) == []


def test_validate_prints_the_warning_with_file_and_line(tmp_path, capsys):
    folder = tmp_path / "s"
    assert main(["new", str(folder), "--protocol", "pairwise"]) == 0
    path = folder / "study.toml"
    text = path.read_text(encoding="utf-8") + f'\ninstructions = "{RATING_WORDS}"\n'
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(folder)]) == 0  # a warning, not an error: the study still runs
    line = text.splitlines().index(f'instructions = "{RATING_WORDS}"') + 1
    assert (
        f"warning: {path}:{line}: [texts.instructions] texts.instructions speaks of rating" in capsys.readouterr().err
    )
