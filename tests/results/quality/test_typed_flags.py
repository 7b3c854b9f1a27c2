"""Typed text flags (issue 41, item 3): `pasted_text` and `typed_too_fast` go to review, never to rejection."""

from __future__ import annotations

import pandas as pd

from infact.prolific.review import _decide
from infact.prolific.sync import Sessions
from infact.results.quality import typed as typed_checks
from infact.results.quality.exclusion import assess, manual_event
from infact.study.quality_config import QualityConfig
from infact.text import typed

CFG = QualityConfig()


def people(*pids, attention=None) -> pd.DataFrame:
    return pd.DataFrame(
        [{"participant": p, "status": "completed", "total_seconds": 600.0, "attention_passed": attention} for p in pids]
    )


def chat(pid, system, text_len, pasted=0, keys=None, ms=None, kind="chat_message", role="user", **extra) -> dict:
    keys = text_len - pasted if keys is None else keys
    ms = (text_len - pasted) * 250 if ms is None else ms  # 4 characters a second: an ordinary typist
    counts = {"pasted_chars": pasted, "paste_events": int(pasted > 0), "blocked_pastes": 0}
    m = typed.metrics({**counts, "keystrokes": keys, "typing_ms": ms}, "x" * text_len)
    field = "typing" if kind == "chat_message" else "justification_typing"
    return {"participant": pid, "kind": kind, "role": role, "system": system, field: m, **extra}


def run(records, pids, **kw):
    t = typed_checks.typed_table(records)
    return assess(pd.DataFrame(), people(*pids, **kw), pd.DataFrame(), [], CFG, 10.0, typed=t).set_index("participant")


def test_metrics_keep_the_counts_and_refuse_a_broken_report():
    ok = typed.metrics({"pasted_chars": 3, "paste_events": 1, "keystrokes": 9, "typing_ms": 1200, "seq": 4}, "hello")
    assert ok == {
        "chars": 5,
        "pasted_chars": 3,
        "paste_events": 1,
        "blocked_pastes": 0,
        "keystrokes": 9,
        "typing_ms": 1200,
    }
    assert typed.metrics(None, "hi") is None  # no script on the page: unknown, not zero
    for bad in ({"keystrokes": -1}, {"typing_ms": "fast"}, {"pasted_chars": True}, {"keystrokes": 1e12}):
        assert typed.metrics(bad, "hi") is None


def test_a_paste_dominant_answer_is_flagged_for_review_only():
    records = [
        chat("honest", "GenreBot", 60),
        chat("paster", "GenreBot", 60),
        chat("paster", "PopBot", 200, pasted=190, ms=2000),
        chat("paster", None, 80, pasted=80, kind="pairwise"),  # a justification
    ]
    report = run(records, ["honest", "paster"])
    assert report.at["honest", "flags"] == []
    assert report.at["paster", "flags"] == ["pasted_text"]
    reason = report.at["paster", "reasons"][0]
    assert "2 of 3 typed answers" in reason and "justification" in reason and "not a reason to reject" in reason
    # review only: the participant stays included, no failed check, and Prolific waits for a person
    assert report.at["paster", "decision"] == "include" and report.at["paster", "failed_checks"] == 0
    assert report.at["paster", "prolific_action"] == "review"
    assert report.at["honest", "prolific_action"] == "approve"


def test_short_pastes_and_answers_without_counts_are_not_flagged():
    records = [
        chat("p", "GenreBot", 15, pasted=15),  # a pasted movie title: under pasted_min_chars
        {"participant": "p", "kind": "chat_message", "role": "user", "system": "GenreBot", "typing": None},
    ]
    assert run(records, ["p"]).at["p", "flags"] == []


def test_text_faster_than_a_typist_or_without_typing_is_flagged_typed_too_fast():
    records = [
        chat("typist", "GenreBot", 100, ms=100 * 125),  # 8 characters a second
        chat("burst", "GenreBot", 100, ms=2000),  # 50 a second
        chat("script", "GenreBot", 60, keys=0, ms=0),  # appeared in one change, nothing pasted
    ]
    report = run(records, ["typist", "burst", "script"])
    assert report.at["typist", "flags"] == []
    assert report.at["burst", "flags"] == ["typed_too_fast"] and "50 characters/s" in report.at["burst", "reasons"][0]
    assert "in one go, without typing" in report.at["script", "reasons"][0]
    assert set(report["decision"]) == {"include"}


def test_review_flags_never_add_to_a_rejection_and_a_manual_include_approves():
    records = [chat("both", "GenreBot", 100, pasted=100), chat("mine", "GenreBot", 100, pasted=100)]
    pids = ["both", "mine"]
    t = typed_checks.typed_table(records)
    people_df = people(*pids)
    people_df.loc[people_df["participant"] == "both", "attention_passed"] = False
    include = manual_event("mine", "include", "read the chat: the participant's own words", study="s")
    report = assess(pd.DataFrame(), people_df, pd.DataFrame(), [include], CFG, 10.0, typed=t).set_index("participant")
    # one failed explicit check in a 10-minute study is not enough for a rejection; the paste does not add one
    assert report.at["both", "failed_checks"] == 1 and report.at["both", "prolific_action"] == "approve"
    assert report.at["both", "decision"] == "exclude" and "pasted_text" in report.at["both", "flags"]
    assert report.at["mine", "prolific_action"] == "approve"  # a person has read it


def test_prolific_review_leaves_a_review_flag_to_a_person():
    q = {
        "prolific_action": "review",
        "reasons": ["pasted most of 1 of 1 typed answers"],
        "prolific_reason": "typed text flagged for review",
        "token": "t",
        "status": "completed",
    }
    known = Sessions(by_session={"s1": {"participant": "t", "platform_id": "P1"}}, per_pid={"p1": 1})
    d = _decide({"submission_id": "S1", "participant_id": "P1"}, known, {"t": q})
    assert d.action == "manual" and "pasted most" in d.reason and "a person decides" in d.rule


def test_pasted_share_per_system_counts_live_chat_messages_only():
    records = [
        chat("a", "GenreBot", 100, pasted=50),
        chat("a", "GenreBot", 100),
        chat("b", "PopBot", 40, pasted=60, keys=5, ms=900),  # pasted, then partly deleted: at most the whole message
        chat("b", None, 80, pasted=80, kind="pairwise"),
    ]
    per = typed_checks.pasted_share_by_system(typed_checks.typed_table(records)).set_index("system")
    assert per.loc["GenreBot"].to_dict() == {
        "messages": 2,
        "pasted_messages": 1,
        "chars": 200,
        "pasted_chars": 50,
        "pasted_share": 0.25,
    }
    assert per.at["PopBot", "pasted_share"] == 1.0 and list(per.index) == ["GenreBot", "PopBot"]
