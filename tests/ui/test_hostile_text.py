"""Hostile dataset text on a participant's page under AppTest (issue 29 item 7): bidirectional
controls are not in what is shown, titles stay highlighted, and the stored answer keeps the text
exactly as the dataset has it. (How a 20,000-character word wraps is the browser's: tests/e2e.)"""

from __future__ import annotations

from infact.text.neutral import BIDI_CONTROLS
from tests.support.app import give_consent, html_bodies, open_app, rate, records, study_copy, submit_situation, token_of

RLO, LRI = "\u202e", "\u2066"
HOSTILE = f'Watch "Al{RLO}ien (1979)" {RLO}tonight {LRI}please'


def hostile(situation: dict) -> dict:
    situation["responses"] = {k: f"{HOSTILE} ({k})" for k in situation["responses"]}
    situation["context"][-1]["text"] += f" {RLO}reversed?"
    return situation


def test_bidi_controls_are_not_shown_and_the_stored_texts_keep_them(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    study_copy(tmp_path, monkeypatch, situations=hostile)
    at = give_consent(open_app())
    shown = "".join(html_bodies(at))
    assert "Response A" in shown and "reversed?" in shown
    assert not any(c in shown for c in BIDI_CONTROLS)
    assert "&quot;Alien (1979)&quot;</mark>" in shown  # the title is found and highlighted without the override
    rate(at)
    submit_situation(at)
    (rec,) = [r for r in records(tmp_path / "db", participant=token_of(at)) if r["kind"] == "situation"]
    assert all(r["text"].startswith(HOSTILE) for r in rec["responses"] if not r.get("instructed"))
