"""A press of a form's submit button costs one script run, not two (issue 38: the participant page's CPU per step).

Before, the press's run drew the page just answered again down to its button, stored the answers, and
`st.rerun()` drew the next page: two runs per press, where a plain Streamlit form needs one. Now the button's
callback stores the answers (read from session state) before the run, which draws the next page. Under AppTest
a `st.rerun()` makes `run()` run the script again, so the runs of the page are counted here.
"""

from __future__ import annotations

import importlib

import pytest

from infact.participation.flow import Flow
from tests.support.app import (
    answer_demographics,
    answer_questionnaire,
    errors,
    give_consent,
    open_app,
    rate,
    records,
    situation_index,
    submit_situation,
    token_of,
    walk_situations,
)
from tests.support.paths import DEMO_STUDY

participant_page = importlib.import_module("infact.ui.participant_page")  # the package exports a function of that name


@pytest.fixture
def runs(tmp_path, monkeypatch) -> list[int]:
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    counted: list[int] = []
    real = participant_page._participant_run

    def counting(flow):
        counted.append(1)
        return real(flow)

    monkeypatch.setattr(participant_page, "_participant_run", counting)
    return counted


def stored(tmp_path, at, kind: str) -> list[dict]:
    return records(tmp_path / "db", participant=token_of(at), kind=kind)


def test_each_submitted_page_is_stored_and_the_next_drawn_in_one_run(tmp_path, runs):
    at = give_consent(open_app())
    first = situation_index(at)
    rate(at)
    runs.clear()
    at = submit_situation(at)
    assert len(runs) == 1  # was 2: the situation drawn again, then the rerun
    assert situation_index(at) == first + 1
    [answer] = stored(tmp_path, at, "situation")
    assert answer["step"] == f"situation-{first}"
    assert answer["responses"] and all(r["ratings"] for r in answer["responses"])  # every response rated
    at = walk_situations(at)
    runs.clear()
    at = answer_questionnaire(at)  # the demo's has a comment, whose typing report is read in the press's run
    assert len(runs) == 2 and stored(tmp_path, at, "questionnaire")
    runs.clear()
    at = answer_demographics(at)
    assert len(runs) == 1 and stored(tmp_path, at, "demographics") and stored(tmp_path, at, "complete")


def test_a_page_answered_in_part_is_drawn_again_with_what_is_missing_and_nothing_stored(tmp_path, runs):
    at = give_consent(open_app())
    first = situation_index(at)
    runs.clear()
    at = submit_situation(at)  # nothing rated
    assert len(runs) == 1 and situation_index(at) == first
    assert errors(at) and not stored(tmp_path, at, "situation")
    rate(at)
    at = submit_situation(at)
    assert situation_index(at) == first + 1 and len(stored(tmp_path, at, "situation")) == 1


def test_an_error_while_storing_shows_the_calm_page_not_a_traceback(tmp_path, runs, monkeypatch):
    at = give_consent(open_app())
    rate(at)

    def broken(self, *args, **kwargs):
        raise RuntimeError("a bug while storing")

    monkeypatch.setattr(Flow, "submit", broken)
    at.button(key=f"submit-situation-{situation_index(at)}").click()
    at.run()
    assert not at.exception
    assert [e for e in at.error if "something went wrong" in e.value]
    monkeypatch.undo()
    assert not stored(tmp_path, at, "situation")
