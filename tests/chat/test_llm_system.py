"""Endpoint systems in live chats and the arena: chat messages sent, answers stored, failures typed."""

from __future__ import annotations

import pytest

from infact.chat.client import connect, connect_all
from infact.chat.identity import LeakDetector
from infact.chat.llm_chat import LLMSystem
from infact.chat.session import ChatSession
from infact.errors import ConfigError
from infact.llm.client import LLMClient
from infact.participation.bots import run_bots
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.endpoints import Endpoint, Sampling
from infact.study.live_config import LiveSystem
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.llm_studies import KEY_ENV, demo_rule, endpoint_live_study


@pytest.fixture
def stub():
    with serve_openai() as server:
        yield server


def llm_system(stub, name="Llama", **kw) -> LLMSystem:
    llm = LLMClient("stub", Endpoint(base_url=stub.url, model="stub-model", temperature=0.5), label=name)
    return LLMSystem(name, llm, **kw)


def session(storage, client, max_turns=3) -> ChatSession:
    return ChatSession(
        storage,
        study_id="live",
        dataset_version="v1",
        token="tok1",
        slot="A",
        system=client.name,
        client=client,
        detector=LeakDetector(["Llama", "GPT"]),
        max_turns=max_turns,
    )


def test_the_conversation_goes_as_chat_messages_after_the_hidden_system_prompt(storage, stub):
    s = session(storage, llm_system(stub, system_prompt="You recommend movies.", sampling=Sampling(temperature=0.9)))
    assert s.send("hi").ok and s.send("something funny").ok
    sent = stub.requests[-1]
    assert sent["messages"] == [
        {"role": "system", "content": "You recommend movies."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "You said: hi"},
        {"role": "user", "content": "something funny"},
    ]
    assert sent["temperature"] == 0.9 and sent["model"] == "stub-model"
    conv = s.load()
    assert [t.text for t in conv.turns if t.role == "assistant"] == ["You said: hi", "You said: something funny"]
    stored = [r for r in storage.records(kind="chat_message") if r["role"] == "assistant"]
    call = stored[-1]["extra"]["llm"]
    assert call["model"] == "stub-model" and call["params"] == {"temperature": 0.9} and call["prompt_tokens"] > 0
    assert len(call["prompt_hash"]) == 32 and stored[-1]["latency_ms"] == call["latency_ms"]
    assert "You recommend movies." not in repr(stored)  # the system prompt is never stored or shown


def test_a_failing_endpoint_gives_the_participant_the_usual_message_and_retry_answers(storage, stub):
    stub.fail(500, times=10)
    s = session(storage, llm_system(stub, timeout_s=5))
    s.client.llm._sleep = lambda seconds: None
    outcome = s.send("hello?")
    assert not outcome.ok and outcome.failure.kind == "http_status" and outcome.failure.system == "Llama"
    assert "try again" in outcome.message
    stub._script.clear()
    assert s.retry().ok and not s.load().awaiting_reply


@pytest.mark.parametrize(
    "answer, kind",
    [
        ({"content": None, "refusal": "no"}, "bad_reply"),
        ("", "bad_reply"),
        ({"content": "late", "delay_s": 1.0}, "timeout"),
    ],
)
def test_refusals_empty_answers_and_timeouts_are_typed_failures(storage, stub, answer, kind):
    stub.rule = lambda request: answer
    s = session(storage, llm_system(stub, timeout_s=0.4))
    assert s.send("hi").failure.kind == kind
    assert s.load().last_error["kind"] == kind


def test_an_answer_naming_a_model_is_flagged_as_an_identity_leak(storage, stub):
    stub.rule = lambda request: 'As GPT, I suggest "Up (2009)".'
    s = session(storage, llm_system(stub))
    assert s.send("who are you").ok
    assert s.load().flags == ["identity_leak"]


def test_live_systems_name_an_endpoint_declared_in_the_study_or_the_secrets(stub, monkeypatch):
    settings = LiveSystem(endpoint="hosted", system_prompt="Be brief.", temperature=0.1)
    endpoints = {"local": Endpoint(base_url=stub.url, model="m")}
    secrets = {
        "endpoints": {"hosted": {"base_url": stub.url, "model": "big", "api_key_env": "HOSTED"}},
        "HOSTED": "sk-from-secrets-0123",
    }
    system = connect("Llama", settings, endpoints, secrets)
    assert system.reply({"messages": [{"role": "user", "text": "hi"}]}).text == "You said: hi"
    assert stub.auth[-1] == "Bearer sk-from-secrets-0123" and stub.requests[-1]["model"] == "big"
    with pytest.raises(ConfigError, match="endpoint 'hosted' is not declared"):
        connect("Llama", settings, endpoints)
    with pytest.raises(ValueError, match="exactly one of"):
        LiveSystem(endpoint="local", url="http://127.0.0.1:1/chat")
    with pytest.raises(ValueError, match="endpoint` systems only"):
        LiveSystem(url="http://127.0.0.1:1/chat", temperature=0.3)


@pytest.mark.slow  # 1.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_bots_run_an_arena_of_endpoint_systems_through_the_real_flow(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-arena-test-key-5e1d")
    with serve_openai(rule=demo_rule) as stub:
        study = load_study(endpoint_live_study(tmp_path / "study", stub.url))
        storage = MemoryStorage()
        results = run_bots(study, storage, 6, concurrency=3, seed=4)
        clients = connect_all(study.config.live.systems, study.config.endpoints)
    done = [r for r in results if r.completed]
    assert done and len(storage.records(kind="chat_vote")) == len(done)
    assert {type(c).__name__ for c in clients.values()} == {"LLMSystem"}
    prompts = {m["content"].split()[0] for r in stub.requests for m in r["messages"] if m["role"] == "system"}
    assert prompts <= {"genre_recommender", "retrieval_bot", "popular_recommender"} and len(prompts) >= 2
    t = StudyResults(study, storage.records(study=study.id)).tables
    assert len(t.transcripts) == 2 * len(done)
    assert "sk-arena-test-key-5e1d" not in repr(storage.records())
