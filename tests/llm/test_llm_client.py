"""The connector against the local OpenAI-compatible stub: answers, records, retries, typed failures."""

from __future__ import annotations

import threading
import time

import pytest

from infact.errors import SystemBadReply, SystemHTTPError, SystemTimeout, SystemUnreachable
from infact.llm.calls import prompt_hash
from infact.llm.client import LLMClient, retry_after
from infact.study.endpoints import Endpoint, Sampling
from simulations.openai_stub import serve_openai

HELLO = [{"role": "user", "content": "hello there"}]


@pytest.fixture
def stub():
    with serve_openai() as server:
        yield server


def client(stub, name="ep", key=None, sleeps=None, **settings) -> LLMClient:
    endpoint = Endpoint(base_url=stub.url, model="stub-model", **settings)
    return LLMClient(
        name, endpoint, key, sleep=(sleeps.append if sleeps is not None else time.sleep), jitter=lambda: 1.0
    )


def test_an_answer_comes_with_its_call_record(stub):
    done = client(stub, temperature=0.2, max_tokens=50).complete(HELLO, Sampling(temperature=0.7))
    assert done.text == "You said: hello there"
    rec = done.record
    assert (rec.endpoint, rec.model, rec.attempts, rec.finish_reason) == ("ep", "stub-model", 1, "stop")
    assert rec.params == {"temperature": 0.7, "max_tokens": 50}  # the caller's own over the endpoint's
    assert (rec.prompt_tokens, rec.completion_tokens) == (2, 4)
    assert rec.latency_ms is not None and rec.latency_ms > 0
    assert rec.prompt_hash == prompt_hash("stub-model", HELLO, {"temperature": 0.7, "max_tokens": 50})
    sent = stub.requests[-1]
    assert sent["messages"] == HELLO and sent["temperature"] == 0.7 and sent["max_tokens"] == 50


def test_the_prompt_hash_changes_with_messages_params_and_salt():
    base = prompt_hash("m", HELLO, {})
    assert base == prompt_hash("m", [dict(HELLO[0])], {})
    assert (
        len(
            {
                base,
                prompt_hash("m", HELLO, {"temperature": 1}),
                prompt_hash("m2", HELLO, {}),
                prompt_hash("m", HELLO, {}, salt="1"),
            }
        )
        == 4
    )


def test_429_is_retried_after_the_servers_retry_after(stub):
    sleeps: list[float] = []
    stub.fail(429, times=2, retry_after=1.5)
    done = client(stub, sleeps=sleeps).complete(HELLO)
    assert done.text and done.record.attempts == 3 and sleeps == [1.5, 1.5]


def test_5xx_backs_off_exponentially_then_fails_typed(stub):
    sleeps: list[float] = []
    stub.fail(503, times=10)
    with pytest.raises(SystemHTTPError) as err:
        client(stub, sleeps=sleeps, max_retries=3).complete(HELLO)
    assert err.value.status == 503 and err.value.call.attempts == 4
    assert sleeps == [0.5, 1.0, 2.0]  # 0.5 · 2^n with the jitter at its top


def test_a_client_error_is_not_retried(stub):
    sleeps: list[float] = []
    stub.fail(400)
    with pytest.raises(SystemHTTPError) as err:
        client(stub, sleeps=sleeps).complete(HELLO)
    assert err.value.status == 400 and sleeps == [] and len(stub.requests) == 1


def test_a_retry_that_would_pass_the_deadline_is_not_made(stub):
    sleeps: list[float] = []
    stub.fail(429, times=1, retry_after=30)
    with pytest.raises(SystemHTTPError):
        client(stub, sleeps=sleeps).complete(HELLO, deadline_s=5)
    assert sleeps == []


def test_malformed_json_is_a_bad_reply(stub):
    stub.malformed()
    with pytest.raises(SystemBadReply, match="not an OpenAI chat completion"):
        client(stub, max_retries=0).complete(HELLO)


@pytest.mark.parametrize(
    "answer, words",
    [
        ({"content": None, "refusal": "I can't help with that"}, "refused"),
        ({"content": "", "finish_reason": "content_filter"}, "refused"),
        ("   ", "empty answer"),
    ],
)
def test_refusals_and_empty_answers_are_bad_replies(stub, answer, words):
    stub.rule = lambda request: answer
    with pytest.raises(SystemBadReply, match=words):
        client(stub).complete(HELLO)


def test_a_slow_answer_is_a_timeout(stub):
    stub.rule = lambda request: {"content": "late", "delay_s": 1.5}
    with pytest.raises(SystemTimeout):  # waited for, the answer would be "late"
        client(stub, timeout_s=0.3, max_retries=0).complete(HELLO)  # retried otherwise (test_llm_limits.py)
    assert len(stub.requests) == 1


def test_a_server_that_is_not_there_is_unreachable():
    endpoint = Endpoint(base_url="http://127.0.0.1:9/v1", model="m", max_retries=1)
    with pytest.raises(SystemUnreachable):
        LLMClient("gone", endpoint, sleep=lambda s: None).complete(HELLO)


def test_no_more_than_max_concurrency_calls_are_in_flight(stub):
    stub.delay_s = 0.1
    llm = client(stub, name="limited", max_concurrency=3)
    threads = [threading.Thread(target=llm.complete, args=(HELLO,)) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(stub.requests) == 12 and stub.peak_in_flight == 3 and llm.limiter.peak == 3


def test_a_call_that_cannot_get_a_slot_before_its_deadline_times_out(stub):
    stub.delay_s = 0.6
    llm = client(stub, name="one-slot", max_concurrency=1)
    busy = threading.Thread(target=llm.complete, args=(HELLO,))
    busy.start()
    time.sleep(0.1)
    with pytest.raises(SystemTimeout, match="max_concurrency"):
        llm.complete(HELLO, deadline_s=0.2)
    busy.join()


def test_a_local_server_gets_a_placeholder_never_the_environments_openai_key(stub, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-researchers-own-key")
    client(stub).complete(HELLO)
    assert stub.auth[-1] == "Bearer no-key-needed"


@pytest.mark.parametrize(
    "headers, seconds",
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "999"}, 60.0),
        ({}, None),
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_reads_seconds_milliseconds_and_caps_the_wait(headers, seconds):
    assert retry_after(headers) == seconds


def test_the_stub_lists_its_model(stub):
    import json
    import urllib.request

    with urllib.request.urlopen(stub.url + "/models") as resp:
        assert json.load(resp)["data"][0]["id"] == "stub-model"


def test_a_500_that_says_the_request_is_invalid_is_not_retried(stub):
    # llama.cpp and llama-cpp-python answer 500 to a request they cannot read: asking again gives the same.
    sleeps: list[float] = []
    stub.fail(500, times=1, message="1 validation error for CreateChatCompletionRequest\nmax_tokens: Input should be")
    with pytest.raises(SystemHTTPError) as err:
        client(stub, sleeps=sleeps, max_retries=3).complete(HELLO)
    assert err.value.status == 500 and err.value.call.attempts == 1 and sleeps == []
    stub.fail(500, times=1, message="CUDA out of memory")  # a server's own trouble is still retried
    assert client(stub, sleeps=sleeps, max_retries=3).complete(HELLO).record.attempts == 2


def test_a_model_the_server_does_not_list_gets_a_warning(stub):
    assert client(stub).model_warning() is None  # stub-model is listed
    stub.models = ["tiny-random-llama"]
    warning = client(stub).model_warning()
    assert warning and '"stub-model"' in warning and "tiny-random-llama" in warning
    assert LLMClient("x", Endpoint(base_url="http://127.0.0.1:9/v1", model="m")).model_warning() is None


def test_generate_prints_the_model_warning(stub, tmp_path, capsys):
    from infact.cli.main import main
    from tests.support.generating import study_with

    stub.models = ["tiny-random-llama"]
    folder = study_with(tmp_path, stub.url)
    assert main(["generate", "--study", str(folder), "--system", "Llama", "--endpoint", "llm"]) == 0
    assert "warning: endpoint 'llm': model = \"stub-model\" is not among" in capsys.readouterr().out
