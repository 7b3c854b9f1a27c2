"""The one per-item check (`check_items`, participation/steps/registry.py) that demographics and the
questionnaire share: both refuse the same bad answers, each with its own message naming the item, in item
order, and store nothing of a refused page (issue 39 item 5: the loop was written twice)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from infact.participation import steps
from infact.participation.steps.registry import Step, check_items
from infact.study.loader import load_study
from tests.support.studies import make_study

# What a tampered or half-filled form can send for one item: neither step stores any of them.
BAD = [None, "", "not an option", True, ["Agree"], {"label": "Agree"}, 1.5]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """What a kind's `check` reads of the participant's run: the study's config."""
    return SimpleNamespace(cfg=load_study(make_study(tmp_path_factory.mktemp("study"))).config)


def good_answers(run) -> dict[str, dict]:
    q = run.cfg.questionnaire
    return {
        "demographics": {d.id: d.options[-1] for d in run.cfg.demographics},
        "questionnaire": {i.id: i.expected or q.scale[0] for i in q.items},
    }


def messages(run) -> dict[str, list[str]]:
    """Each step's message per item, in item order (the wording participants have been shown)."""
    return {
        "demographics": [f"Please answer “{d.text}”." for d in run.cfg.demographics],
        "questionnaire": [
            f"Please answer statement {n}: {i.text}" for n, i in enumerate(run.cfg.questionnaire.items, 1)
        ],
    }


def check(run, kind: str, answers: dict):
    return steps.get(kind).check(run, Step(kind, kind), answers)


@pytest.mark.parametrize("kind", ["demographics", "questionnaire"])
def test_a_whole_page_of_good_answers_is_stored(run, kind):
    answers = good_answers(run)[kind]
    checked = check(run, kind, answers)
    assert checked.errors == ()
    assert set(checked.fields["answers"]) == set(answers)


@pytest.mark.parametrize("kind", ["demographics", "questionnaire"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_both_steps_refuse_the_same_bad_answers_with_their_messages(run, kind, bad):
    answers = good_answers(run)[kind]
    first, last = list(answers)[0], list(answers)[-1]
    checked = check(run, kind, {**answers, first: bad, last: bad})
    assert checked.errors == (messages(run)[kind][0], messages(run)[kind][-1])  # item order, each named
    assert "answers" not in checked.fields  # a refused page stores nothing
    assert check(run, kind, {k: v for k, v in answers.items() if k != first}).errors == (messages(run)[kind][0],)
    assert check(run, kind, {}).errors == tuple(messages(run)[kind])


def test_check_items_keeps_what_it_takes_and_names_what_it_refuses():
    items = [SimpleNamespace(id="a"), SimpleNamespace(id="b"), SimpleNamespace(id="c")]
    values, errors = check_items(
        items,
        {"a": "1", "b": "x", "extra": "2"},
        lambda item, answer: int(answer) if isinstance(answer, str) and answer.isdigit() else None,
        lambda n, item: f"{n}:{item.id}",
    )
    assert values == {"a": 1}
    assert errors == ["2:b", "3:c"]
