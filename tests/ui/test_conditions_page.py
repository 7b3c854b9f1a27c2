"""The participant page of a between-subjects study (issue 41 item 2): the condition's texts after consent."""

from __future__ import annotations

import pytest

from tests.support.app import give_consent, open_app, records, token_of
from tests.support.paths import REPO

DEMO = REPO / "data" / "demo-conditions"


def _expanders(at) -> dict[str, str]:
    return {e.label: " ".join(m.value for m in e.markdown) for e in at.expander}


@pytest.mark.slow  # an AppTest walk: ~3 s
def test_a_participant_sees_their_conditions_instructions_once_assigned(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_STUDY", str(DEMO))
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    at = open_app({"q": "examples"})
    assert "Instructions: how to rate" not in _expanders(at)  # not yet assigned: no wording shown at consent
    give_consent(at)
    shown = _expanders(at)
    assert "Two examples" in shown["Instructions: how to rate"]
    [arrival] = records(tmp_path / "db", kind="arrival")
    assert arrival["condition"] == "examples" and arrival["participant"] == token_of(at)
