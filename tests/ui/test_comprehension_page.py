"""Issue 36 item 5 in the participant page (AppTest): the comprehension check after consent, a second
attempt with its warning, and the screen-out page after two wrong attempts; a right answer goes on."""

from __future__ import annotations

import pytest

from tests.support.app import (
    PROLIFIC_QUERY,
    SCREENOUT_CODE,
    give_consent,
    open_app,
    prolific_study,
    records,
    run,
    shown_code,
    situation_index,
)

CHECK = """
[comprehension]
enabled = true

[[comprehension.questions]]
id = "task"
text = "What will you do in this study?"
options = ["Rate chatbot responses", "Write stories"]
answer = "Rate chatbot responses"
"""


@pytest.fixture
def app_study(tmp_path, monkeypatch, store):
    folder = prolific_study(tmp_path, monkeypatch)
    toml = folder / "study.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + CHECK, encoding="utf-8")
    return folder


def answer(at, attempt: int, choice: str):
    at.radio(key=f"comprehension-{attempt}-task").set_value(choice)
    at.button(key=f"submit-comprehension-{attempt}").click()
    return run(at)


def test_two_wrong_attempts_end_with_the_screen_out_page(app_study, store):
    at = give_consent(open_app(PROLIFIC_QUERY))
    assert [r.key for r in at.radio] == ["comprehension-1-task"] and situation_index(at) is None
    at = answer(at, 1, "Write stories")
    assert [r.key for r in at.radio] == ["comprehension-2-task"]
    assert any("last attempt" in w.value for w in at.warning)
    at = answer(at, 2, "Write stories")
    assert shown_code(at) == SCREENOUT_CODE and not at.radio
    [done] = records(store, kind="complete")
    assert done["outcome"] == "screened_out"


def test_a_right_answer_on_the_second_attempt_goes_on_to_the_study(app_study, store):
    at = answer(give_consent(open_app(PROLIFIC_QUERY)), 1, "Write stories")
    at = answer(at, 2, "Rate chatbot responses")
    assert situation_index(at) == 1
    assert [r["attempt"] for r in records(store, kind="comprehension_attempt")] == [1]
