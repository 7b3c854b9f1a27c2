"""Typed text under AppTest (issue 41, item 3): the page's counts are stored with the answer they belong to.

AppTest runs no page script, so the test puts the hidden component's report where the browser's would arrive
(its state, `{"metrics": {widget key: counts}}`); tests/e2e/test_typed_text_e2e.py does it with real pastes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from infact.storage import TinyDBStorage
from infact.text.typed import PASTE_BLOCKED
from infact.ui.typed_text import KEY
from tests.support.app import answer_questionnaire, give_consent, open_app, run, walk_situations
from tests.support.live_pages import say, through_situations
from tests.support.studies import copy_study

REPO = Path(__file__).resolve().parents[2]
PASTED = {"chars": 999, "pasted_chars": 40, "paste_events": 1, "blocked_pastes": 0, "keystrokes": 2, "typing_ms": 900}


def report(at, scope: str, field: str, seq: int = 1, **counts) -> None:
    at.session_state[f"{KEY}-{scope}"] = {"metrics": {field: {**PASTED, **counts, "seq": seq}}}


@pytest.fixture
def live(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(REPO / "data" / "demo-live"))
    return tmp_path / "db"


def _user_messages(db: Path) -> list[dict]:
    return [r for r in TinyDBStorage(db).records(kind="chat_message") if r["role"] == "user"]


@pytest.mark.slow  # 1.5–3.5 s on a quiet 2-core machine (walks the study): out of the fast subset
def test_a_chat_message_is_stored_with_its_counts_once_and_the_no_ai_sentence_is_shown(live):
    at = through_situations(open_app())
    assert any("AI tools" in c.value for c in at.caption)  # [texts] no_ai_tools, above the chat input
    report(at, "chat-A", "live-input-A")
    at = say(at, "A", "a scary movie please, something from the eighties")  # 49 characters, 40 pasted
    at = say(at, "A", "thanks")  # the page's report for this one never came: the old one is not reused
    first, second = _user_messages(live)
    assert first["typing"] == {**PASTED, "chars": 49}  # chars: the stored text's length, not the page's
    assert second["typing"] is None
    # The results every export and `infact prolific review` read: flagged for review, still included
    from infact.results.study_results import open_results
    from infact.study.loader import load_study

    flags = open_results(load_study(REPO / "data" / "demo-live"), live).tables.flags.set_index("participant")
    (row,) = [r for _, r in flags.iterrows() if "pasted_text" in r["flags"]]
    assert sorted(row["flags"]) == ["incomplete", "pasted_text"] and row["failed_checks"] == 0  # still chatting
    assert "40 of 49 characters pasted" in "; ".join(row["reasons"])


def _chat_and_rate(at, slot: str):
    at = say(at, slot, "something funny please")
    at.button(key=f"live-satisfied-{slot}").click()
    at = run(at)
    for r in at.radio:
        if r.key.startswith(f"live-rubric-{slot}-"):
            r.set_value("Agree")
    at.button(key=f"live-rubric-submit-{slot}").click()
    return run(at)


@pytest.mark.slow  # 1.5–3.5 s on a quiet 2-core machine (walks the study): out of the fast subset
def test_a_vote_reason_is_stored_with_its_counts_and_reaches_pairwise_csv(live):
    from infact.chat.transcripts import pairwise_rows, transcripts

    at = _chat_and_rate(_chat_and_rate(through_situations(open_app()), "A"), "B")
    at.radio(key="live-vote").set_value("A")
    at.text_area(key="live-vote-reason").input("A understood what I wanted")  # 26 characters
    report(at, "vote", "live-vote-reason", pasted_chars=26)
    at.button(key="live-vote-submit").click()
    at = run(at)
    records = TinyDBStorage(live).records()
    (vote,) = [r for r in records if r["kind"] == "chat_vote"]
    assert vote["justification_typing"] == {**PASTED, "chars": 26, "pasted_chars": 26}
    (row,) = pairwise_rows(records)
    assert row["justification_pasted_chars"] == 26 and row["justification_keystrokes"] == 2
    user_turns = [t for c in transcripts(records) for t in c["turns"] if t["role"] == "user"]
    assert user_turns and all("typing" in t for t in user_turns)  # transcripts.jsonl carries the field


def test_a_pairwise_justification_is_stored_with_its_counts_and_block_paste_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    edits = {  # no practice pairs; paste refused
        'onboarding = "onboarding.jsonl"': "",
        "[platform]": "[quality]\nblock_paste = true\n\n[platform]",
    }
    monkeypatch.setenv("INFACT_STUDY", str(copy_study(REPO / "data" / "demo-pairwise", tmp_path / "s", edits)))
    at = give_consent(open_app())
    step = next(r.key for r in at.radio if r.key.startswith("pairwise-")).rsplit("-", 1)[0]
    (note,) = [c.value for c in at.caption if "AI tools" in c.value]
    assert note.endswith(PASTE_BLOCKED)
    for r in at.radio:
        if r.key.startswith(step):
            r.set_value("A")
    at.text_area(key=f"{step}-why").input("Response A names a fitting film.")
    report(at, step, f"{step}-why", pasted_chars=32, keystrokes=0, typing_ms=5)
    at.button(key=f"submit-{step}").click()
    at = run(at)
    (rec,) = [r for r in TinyDBStorage(tmp_path / "db").records(kind="pairwise") if r["step"] == step]
    assert rec["justification_typing"] == {**PASTED, "chars": 32, "pasted_chars": 32, "keystrokes": 0, "typing_ms": 5}


@pytest.mark.slow  # 1.5–3.5 s on a quiet 2-core machine (walks the study): out of the fast subset
def test_a_questionnaire_comment_is_stored_with_its_counts_and_can_be_flagged(tmp_path, monkeypatch):
    from infact.results.quality import typed as typed_checks

    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(REPO / "data" / "demo"))
    at = walk_situations(give_consent(open_app()))
    assert any("AI tools" in c.value for c in at.caption)
    at.text_area(key="q-comment").input("The second system kept recommending the same three films.")  # 57
    report(at, "questionnaire", "q-comment", pasted_chars=57)
    at = answer_questionnaire(at)
    (rec,) = TinyDBStorage(tmp_path / "db").records(kind="questionnaire")
    assert rec["comment_typing"] == {**PASTED, "chars": 57, "pasted_chars": 57}
    (row,) = typed_checks.typed_rows(rec)
    assert row["source"] == "comment" and row["pasted_chars"] == 57
