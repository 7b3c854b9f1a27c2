"""Default texts fit the protocol (issue 19, point 6): a comparison study that leaves a text out
gets its own protocol's wording; a text the researcher wrote is kept; rating studies unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from infact.study.config import StudyConfig
from infact.study.loader import load_study
from infact.study.protocol_config import attention_text, shown_attention_text
from infact.text import catalogue
from tests.support.languages import unmarked

REPO = Path(__file__).resolve().parents[2]
TEXTS = {"welcome": "W.", "instructions": "I.", "terms": "T.", "privacy": "P."}
SINGULAR = re.compile(r"\bthe chatbot\b(?! in conversation)", re.IGNORECASE)


def config(kind: str, criteria=("meaningful",), **sections) -> StudyConfig:
    return StudyConfig.model_validate(
        {
            "study": {"id": "s", "title": "t", "systems": ["A", "B", "C", "D"], "situations_per_participant": 10},
            "texts": dict(TEXTS),
            "protocol": {"kind": kind},
            "criteria": [{"id": c, "question": c} for c in criteria],
            **sections,
        }
    )


def shown_texts(cfg: StudyConfig) -> list[str]:
    return [i.text for i in cfg.questionnaire.items] + [
        cfg.texts.situation_help,
        cfg.texts.questionnaire_intro,
        cfg.protocol.attention_text,
        cfg.protocol.question,
    ]


@pytest.mark.parametrize("kind", ["pairwise", "pairwise_dialog", "best_worst"])
def test_a_comparison_study_never_speaks_of_one_chatbot_or_of_rating(kind):
    cfg = config(kind)
    for text in shown_texts(cfg):
        assert not SINGULAR.search(text), f"{kind}: {text!r} speaks of one chatbot after comparing several"
        assert "rate" not in text.split(), f"{kind}: {text!r} asks to rate in a comparison study"
    assert [i.id for i in cfg.questionnaire.items][-1] == "careful"
    assert cfg.questionnaire.items[-1].expected == "Strongly agree"


def test_the_rating_protocol_keeps_its_own_wording():
    cfg = config("rating")
    assert "Considering the best responses, the chatbot would be useful." in [i.text for i in cfg.questionnaire.items]
    assert cfg.texts.situation_help.startswith("Read the dialog, then rate")


def test_texts_the_researcher_wrote_are_kept():
    cfg = config(
        "pairwise",
        texts={**TEXTS, "situation_help": "Mine."},
        questionnaire={"items": [{"id": "x", "text": "The chatbot was fine."}]},
    )
    cfg2 = StudyConfig.model_validate(
        {**config("pairwise").model_dump(), "protocol": {"kind": "pairwise", "attention_text": "Pick me."}}
    )
    assert cfg.texts.situation_help == "Mine."
    assert [i.text for i in cfg.questionnaire.items] == ["The chatbot was fine."]
    assert cfg2.protocol.attention_text == "Pick me."


def test_the_acute_attention_check_says_which_questions_and_how():
    cfg = config("pairwise_dialog", criteria=("engaging", "helpful"))
    text = cfg.protocol.attention_text
    assert '"engaging" and "helpful"' in text and "each of the 2 questions" in text
    assert "THIS conversation as the better one" in text
    assert "THIS response as the best one" in attention_text("best_worst", ["helpful"])


def test_the_acute_demo_check_names_both_questions_and_asks_for_no_reason_it_never_checks():
    """Only the choices decide the check (infact/participation/steps/pairwise.py: attention_passed), so the text
    must not ask for a particular reason: it asked for "attention check" and passed any other (issue 29)."""
    cfg = load_study(REPO / "data" / "demo-acute").config
    text = cfg.protocol.attention_text
    for crit in cfg.criteria:
        assert f'"{crit.id}"' in text
    assert not re.search(r'"[^"]+" as (the|your) reason', text), text
    assert "words of your own" in text  # the required reason (10 characters at least) is the participant's own


@pytest.mark.parametrize("demo", ["demo-pairwise", "demo-acute", "demo-best-worst"])
def test_comparison_demos_questionnaire_fits_several_chatbots(demo):
    cfg = load_study(REPO / "data" / demo).config
    for text in [i.text for i in cfg.questionnaire.items] + [cfg.texts.situation_help]:
        assert not SINGULAR.search(text), f"{demo}: {text!r}"


@pytest.mark.parametrize("kind", ["pairwise", "pairwise_dialog", "best_worst"])
def test_the_attention_check_sentence_of_each_protocol_comes_from_the_catalogue(kind):
    """One criterion or several (the sentence then names each question): in the pseudo-locale every word is marked,
    in German it is German with the criteria named; a sentence the researcher wrote is shown as written."""
    two = config(kind, criteria=("engaging", "helpful"))
    try:
        for criteria in (("meaningful",), ("engaging", "helpful")):
            catalogue.use(catalogue.PSEUDO)
            shown = shown_attention_text(config(kind, criteria=criteria))
            assert catalogue.OPEN in shown and unmarked([shown], [f'"{c}"' for c in criteria]) == [], shown
        catalogue.use("de")
        german = shown_attention_text(two)
        assert german.startswith("Ich lese aufmerksam") and '"engaging" und "helpful"' in german, german
        own = StudyConfig.model_validate(
            {**two.model_dump(), "protocol": {**two.protocol.model_dump(), "attention_text": "Pick me."}}
        )
        assert shown_attention_text(own) == "Pick me."
    finally:
        catalogue.use(catalogue.SOURCE)
    assert shown_attention_text(two) == two.protocol.attention_text  # English: the stored default itself
