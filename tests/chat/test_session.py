"""The conversation store: every message stored at once, reloads resume, failures lose nothing."""

from __future__ import annotations

import pytest

from infact.chat.identity import LeakDetector
from infact.chat.session import ChatSession
from tests.support.chat_stubs import SHORT_TIMEOUT, http


def session(storage, client, *, token="tok1", slot="A", max_turns=3) -> ChatSession:
    return ChatSession(
        storage,
        study_id="live",
        dataset_version="v1",
        token=token,
        slot=slot,
        system=client.name,
        client=client,
        detector=LeakDetector(["Good", "Other"]),
        max_turns=max_turns,
    )


def test_three_turns_stored_and_read_back_by_a_fresh_session(storage, normal_server):
    s = session(storage, http("Good", normal_server.url))
    for text in ("hi", "something funny", "thanks"):
        assert s.send(text).ok
    # A reload: nothing kept in memory, a new object over the same store.
    conv = session(storage, http("Good", normal_server.url)).load()
    assert [(t.role, t.turn) for t in conv.turns] == [
        ("user", 1),
        ("assistant", 1),
        ("user", 2),
        ("assistant", 2),
        ("user", 3),
        ("assistant", 3),
    ]
    assert conv.turns[1].items == ("Up (2009)",) and conv.turns[1].latency_ms is not None
    assert conv.ended["ended_by"] == "max_turns" and conv.ended["satisfaction"] is None
    # The system saw the whole conversation so far on the last turn.
    assert [m["text"] for m in normal_server.requests[-1]["messages"]][::2] == ["hi", "something funny", "thanks"]
    assert not s.send("one more").ok


def test_failure_keeps_the_message_and_retry_answers_it(storage, error_server, normal_server):
    broken = session(storage, http("Good", error_server.url))
    outcome = broken.send("hello?")
    assert not outcome.ok and outcome.failure.kind == "http_status"
    assert "try again" in outcome.message
    conv = broken.load()
    assert conv.awaiting_reply and conv.last_error["status"] == 500
    assert not broken.send("another message").ok  # answer the waiting one first
    # The system recovers (same session, now reachable): retry answers the stored message.
    fixed = session(storage, http("Good", normal_server.url))
    assert fixed.retry().ok
    conv = fixed.load()
    assert not conv.awaiting_reply
    assert [(t.role, t.ok) for t in conv.turns] == [("user", True), ("assistant", False), ("assistant", True)]
    assert conv.messages()[-1].role == "assistant" and len(conv.messages()) == 2
    assert conv.flags == ["system_error"]


def test_timeout_then_skip_ends_the_chat_with_everything_kept(storage, slow_server):
    s = session(storage, http("Good", slow_server.url, SHORT_TIMEOUT))
    assert s.send("are you there").failure.kind == "timeout"
    assert s.skip()
    assert not s.skip()  # ended once
    conv = s.load()
    assert conv.ended["ended_by"] == "skipped"
    assert conv.turns[0].text == "are you there" and conv.turns[1].error["kind"] == "timeout"


def test_refused_connection_is_stored_as_unreachable(storage, refused_url):
    s = session(storage, http("Good", refused_url))
    assert s.send("hi").failure.kind == "unreachable"
    assert s.load().last_error["kind"] == "unreachable"


def test_identity_leak_flags_turn_and_conversation(storage, leak_server):
    s = session(storage, http("Good", leak_server.url))
    s.send("who are you?")
    s.end("satisfied")
    conv = s.load()
    assert conv.turns[1].identity_leak == ("KBRD",)
    assert conv.flags == ["identity_leak"]
    assert conv.ended["identity_leak"] == ["KBRD"] and conv.ended["satisfaction"] is True


def test_double_send_of_the_same_turn_stores_once(storage, normal_server):
    s = session(storage, http("Good", normal_server.url))
    first = s._append("chat_message", "1/user", role="user", turn=1, text="hi")
    assert first and not s._append("chat_message", "1/user", role="user", turn=1, text="hi")
    assert s.retry().ok  # reload mid-call: the waiting message is answered
    assert [t.role for t in s.load().turns] == ["user", "assistant"]


def test_two_conversations_of_one_participant_stay_apart(storage, normal_server, leak_server):
    a = session(storage, http("Good", normal_server.url), slot="A")
    b = session(storage, http("Other", leak_server.url), slot="B")
    a.send("hi A")
    b.send("hi B")
    a.rate_turn(1, True)
    b.rate_turn(1, False)
    assert [t.text for t in a.load().turns][0] == "hi A" and a.load().turn_ratings == {1: True}
    assert b.load().turn_ratings == {1: False} and b.load().system == "Other"


def test_empty_message_and_bad_ending_refused(storage, normal_server):
    s = session(storage, http("Good", normal_server.url))
    assert not s.send("   ").ok and s.load().turns == []
    with pytest.raises(ValueError):
        s.end("bored")
