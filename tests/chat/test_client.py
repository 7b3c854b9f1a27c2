"""The chat contract client: HTTP and in-process systems, every failure typed."""

from __future__ import annotations

import threading
import time

import pytest

from infact.chat.client import CallableSystem, connect, load_callable
from infact.chat.contract import (
    Message,
    SystemBadReply,
    SystemCrashed,
    SystemHTTPError,
    SystemTimeout,
    SystemUnreachable,
    build_request,
    parse_reply,
)
from infact.chat.identity import LeakDetector
from infact.study.live_config import LiveSystem
from tests.support.chat_stubs import SHORT_TIMEOUT, http


def request(turn: int = 1) -> dict:
    return build_request("s1", "c1", turn, [Message("user", "something funny please")])


def test_http_system_answers_and_receives_the_contract(normal_server):
    reply = http("Good", normal_server.url).reply(request(2))
    assert reply.text.startswith("Answer 2")
    assert reply.items == ("Up (2009)",)
    assert reply.latency_ms >= 0
    sent = normal_server.requests[-1]
    assert sent == {
        "study_id": "s1",
        "conversation_id": "c1",
        "turn": 2,
        "messages": [{"role": "user", "text": "something funny please"}],
    }


def test_timeout_is_typed_and_does_not_wait_for_the_slow_system(slow_server):
    with pytest.raises(SystemTimeout) as exc:  # waited for, the slow system's answer would come
        http("Slow", slow_server.url, SHORT_TIMEOUT).reply(request())
    assert exc.value.kind == "timeout" and "0.3 s" in exc.value.detail
    assert "try again" in exc.value.participant_message


def test_http_500_is_typed_with_status(error_server):
    with pytest.raises(SystemHTTPError) as exc:
        http("Broken", error_server.url).reply(request())
    assert exc.value.status == 500
    assert exc.value.as_record() == {"kind": "http_status", "detail": exc.value.detail, "status": 500}
    assert "model crashed" in exc.value.detail


def test_malformed_json_is_a_bad_reply(malformed_server):
    with pytest.raises(SystemBadReply, match="not JSON"):
        http("Html", malformed_server.url).reply(request())


def test_refused_connection_is_unreachable(refused_url):
    with pytest.raises(SystemUnreachable, match="cannot reach"):
        http("Gone", refused_url).reply(request())


def test_leaking_system_is_detected(leak_server):
    reply = http("Leaky", leak_server.url).reply(request())
    assert LeakDetector(["Leaky", "Other"]).find(reply.text) == ["KBRD"]


@pytest.mark.parametrize(
    "payload, problem",
    [
        ({"items": []}, "no non-empty"),
        ({"text": "   "}, "no non-empty"),
        ({"text": "hi", "items": "Up (2009)"}, "list of strings"),
        ({"text": "hi", "items": [1, 2]}, "list of strings"),
        (["hi"], "JSON object"),
    ],
)
def test_parse_reply_names_what_is_wrong(payload, problem):
    with pytest.raises(SystemBadReply, match=problem):
        parse_reply("S", payload, 1.0)


def test_parse_reply_accepts_plain_text_and_keeps_extras():
    assert parse_reply("S", "hello", 3.0).text == "hello"
    reply = parse_reply("S", {"text": " hi ", "items": None, "debug": {"score": 1}}, 3.0)
    assert (reply.text, reply.items, reply.extra) == ("hi", (), {"debug": {"score": 1}})


def test_request_must_end_with_the_participant():
    with pytest.raises(ValueError):
        build_request("s", "c", 1, [Message("user", "hi"), Message("assistant", "hello")])


def test_callable_system_and_its_crash():
    ok = connect("Genre", LiveSystem(callable="infact.chat.demo_systems:genre_recommender"))
    reply = ok.reply(build_request("s", "c", 1, [Message("user", "a scary movie please")]))
    assert reply.items and "horror" in reply.text

    def boom(request):
        raise RuntimeError("CUDA out of memory")

    with pytest.raises(SystemCrashed, match="CUDA out of memory"):
        CallableSystem("Boom", boom, 5).reply(request())


def test_load_callable_errors_name_the_spec():
    with pytest.raises(ImportError, match="no_such_module"):
        load_callable("no_such_module:f")
    with pytest.raises(AttributeError, match="has no function 'nope'"):
        load_callable("infact.chat.demo_systems:nope")


def test_leak_detector_whole_words_and_system_names():
    det = LeakDetector(["CineMate", "A"], extra=["Gemini"])
    assert det.find("I'm cinemate, built on GPT-4 by OpenAI") == ["CineMate", "GPT-4", "OpenAI"]
    assert det.find('A great film: try "Up (2009)"') == []  # the short name "A" is not matched
    assert det.find("kbrdx and prekgsf are not names") == []
    assert det.find("Gemini says hi") == ["Gemini"]


def test_a_slow_callable_is_reported_on_time_and_finishes_in_the_background():
    release, finished = threading.Event(), threading.Event()

    def slow(request):
        release.wait(10)
        finished.set()
        return {"text": "late"}

    system = CallableSystem("Slow", slow, 0.05)
    with pytest.raises(SystemTimeout, match="timeout_s = 0.05") as exc:
        system.reply(request())
    assert exc.value.kind == "timeout"
    assert not finished.is_set() and system.overdue == 1  # reported while the call still runs
    release.set()
    assert finished.wait(5)
    for _ in range(500):  # the worker updates the count right after the call returns
        if system.overdue == 0:
            break
        time.sleep(0.01)
    assert system.overdue == 0


def test_overdue_callables_do_not_pile_up_threads(monkeypatch):
    monkeypatch.setattr(CallableSystem, "MAX_OVERDUE", 2)
    release = threading.Event()
    calls = []

    def stuck(request):
        calls.append(1)
        release.wait(10)
        return "late"

    system = CallableSystem("Stuck", stuck, 0.02)
    for _ in range(2):
        with pytest.raises(SystemTimeout):
            system.reply(request())
    with pytest.raises(SystemTimeout, match="2 earlier calls overran"):
        system.reply(request())
    assert len(calls) == 2  # the third call was refused without starting a thread
    release.set()


def test_a_fast_callable_answers_with_its_latency():
    system = CallableSystem("Echo", lambda req: {"text": req["messages"][-1]["text"], "items": ["Up (2009)"]}, 5)
    reply = system.reply(request())
    assert (reply.text, reply.items) == ("something funny please", ("Up (2009)",))
    assert reply.latency_ms >= 0 and system.overdue == 0
