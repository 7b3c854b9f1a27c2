"""One deadline for a live reply (issue 29, F3 and item 10): an endpoint system's `timeout_s` bounds the
participant's wait from send to answer, a trickling answer is cut there, and its slot and the server's
generation stop with it."""

from __future__ import annotations

import threading
import time

import pytest

from infact.chat.llm_chat import LLMSystem
from infact.errors import SystemTimeout
from infact.llm.client import LLMClient
from infact.study.endpoints import Endpoint
from simulations.openai_stub import serve_openai

LONG = " ".join(f"word{i}" for i in range(200))  # 200 events of 0.2 s: 40 s when read whole
GIVE_UP_S = 20  # a reply still running then was waiting for the whole answer (40 s), not for timeout_s
REQUEST = {"study_id": "s", "conversation_id": "c", "turn": 1, "messages": [{"role": "user", "text": "hi"}]}


def system(stub, timeout_s: float, max_concurrency: int = 1) -> LLMSystem:
    endpoint = Endpoint(base_url=stub.url, model="stub-model", max_concurrency=max_concurrency, timeout_s=30)
    return LLMSystem("Llama", LLMClient(f"deadline-{stub.url}", endpoint, label="Llama"), timeout_s=timeout_s)


def timed_reply(sys: LLMSystem, give_up_s: float = GIVE_UP_S) -> tuple[float, BaseException | None]:
    """(seconds the participant waited, the failure); a reply still running after `give_up_s` fails the test."""
    box: dict = {}

    def run() -> None:
        start = time.monotonic()
        try:
            sys.reply(REQUEST)
        except BaseException as exc:
            box["error"] = exc
        box["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(give_up_s)
    assert "seconds" in box, f"the participant still waits after {give_up_s} s"
    return box["seconds"], box.get("error")


@pytest.mark.parametrize("mode", ["stream", "body"])
@pytest.mark.slow  # 1.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_trickling_answer_is_cut_at_the_deadline_and_frees_its_slot(mode):
    # Headers at once, then the answer slowly: one SSE event per word, or (a server that ignores
    # "stream") one byte of the JSON body per 0.2 s. Today's per-read timeout never fires.
    with serve_openai(rule=lambda req: LONG, trickle_s=0.2) as stub:
        stub.ignore_stream = mode == "body"
        sys = system(stub, timeout_s=1.0)
        waited, error = timed_reply(sys)
        assert isinstance(error, SystemTimeout) and waited >= 0.9, f"gave up after {waited:.2f} s"
        deadline = time.monotonic() + 5.0
        while (sys.llm.limiter.in_flight or stub.in_flight) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sys.llm.limiter.in_flight == 0, "the slot (max_concurrency = 1) is still held"
        assert stub.in_flight == 0 and stub.cut == 1, "the server still sends the abandoned answer"
        stub.trickle_s = None  # the next participant gets the freed slot and an answer
        stub.rule = lambda req: "Try Up (2009)."
        assert sys.reply(REQUEST).text == "Try Up (2009)."


def test_live_endpoint_calls_stream_and_the_answer_is_read_whole():
    with serve_openai(rule=lambda req: "Try Up (2009), a film about a house.") as stub:
        reply = system(stub, timeout_s=5).reply(REQUEST)
        assert stub.requests[-1]["stream"] is True
        assert reply.text == "Try Up (2009), a film about a house."
        assert reply.extra["llm"]["finish_reason"] == "stop"


def test_a_silent_server_is_told_to_the_participant_at_the_deadline():
    with serve_openai(delay_s=2 * GIVE_UP_S) as stub:  # silent until after the test would give up
        waited, error = timed_reply(system(stub, timeout_s=1.0))
        assert isinstance(error, SystemTimeout) and waited >= 0.9, f"gave up after {waited:.2f} s"


def test_the_timeout_text_is_rounded():
    with serve_openai(delay_s=2.0) as stub:
        _, error = timed_reply(system(stub, timeout_s=0.7))
        assert isinstance(error, SystemTimeout)
        assert "0.69999" not in error.detail and "0.7 s" in error.detail, error.detail


@pytest.mark.parametrize("kind", ["http", "endpoint-stream", "endpoint-body"])
def test_one_deadline_from_send_to_the_stored_timeout_whatever_kind_the_system_is(kind):
    """The participant's whole wait — send, the system's headers and trickling body, the failure stored —
    stays within timeout_s (plus the store's write), for an HTTP-contract system as for an endpoint."""
    from infact.chat.client import HttpSystem
    from infact.chat.identity import LeakDetector
    from infact.chat.session import ChatSession
    from infact.storage import MemoryStorage
    from simulations.chat_stub import serve

    def session(client) -> ChatSession:
        return ChatSession(
            MemoryStorage(),
            study_id="s",
            dataset_version="v",
            token="t",
            slot="A",
            system=client.name,
            client=client,
            detector=LeakDetector([]),
            max_turns=3,
        )

    server = serve("trickle", trickle_s=0.2) if kind == "http" else serve_openai(rule=lambda r: LONG, trickle_s=0.2)
    with server as stub:
        if kind == "http":
            client = HttpSystem("Trickle", stub.url, 1.0)
        else:
            stub.ignore_stream = kind == "endpoint-body"
            client = system(stub, timeout_s=1.0)
        chat = session(client)
        box: dict = {}
        start = time.monotonic()
        thread = threading.Thread(target=lambda: box.update(outcome=chat.send("hello?")), daemon=True)
        thread.start()
        thread.join(GIVE_UP_S)
        waited = time.monotonic() - start
    assert "outcome" in box, f"the participant still waits after {waited:.1f} s"  # for the whole answer (40 s)
    assert box["outcome"].failure is not None and box["outcome"].failure.kind == "timeout"
    assert waited >= 0.9, f"{kind}: gave up after {waited:.2f} s, before its timeout_s"
    assert chat.load().last_error["kind"] == "timeout"
