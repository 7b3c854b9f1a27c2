"""Every LLM call keeps its limits (issue 36, item 12): a judge, `generate`, a live system and a simulated
participant share one time limit (a trickling answer ends at `timeout_s`: a total deadline, not httpx's
per-read timeout), one cap on what is stored (limits.MAX_TEXT characters) and one retry rule (a timed-out
attempt is tried again up to max_retries), all in infact/llm/limits.py through LLMClient.complete.

Against the local OpenAI stub (simulations/openai_stub.py): one that trickles its answer a byte at a time
(each read is quick, the whole is not), one that sends a 20 MB answer, one that is silent on first asking.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter

import openai  # noqa: F401  (imported before any timing: LLMClient imports it, seconds on a loaded machine)
import pytest

from infact.chat.llm_chat import LLMChattingBot, LLMSystem
from infact.errors import SimulatorFailed, SystemBadReply, SystemTimeout
from infact.importers.generate import generate
from infact.llm import limits
from infact.llm.checkpoint import Checkpoint
from infact.llm.client import LLMClient
from infact.llm.limits import MAX_TEXT
from infact.llm.simulated import Question, SimulatedParticipant
from infact.results.judges.runner import run_judge
from infact.study.endpoints import Endpoint
from infact.study.loader import load_study
from infact.study.situations import load_situations
from simulations.openai_stub import serve_openai
from tests.support.generating import study_with
from tests.support.paths import DEMO_STUDY

LABEL = "Somewhat meaningful"
TRICKLE_S = 0.02  # one byte of the JSON answer per 0.02 s: about 6 s for the whole, every read quick
HUGE = ("meaningful" * 100 + " ") * (20 * 2**20 // 1001)  # 20 MB in words of 1,000 characters (an SSE event each)
REQUEST = {"study_id": "s", "conversation_id": "c", "turn": 1, "messages": [{"role": "user", "text": "hi"}]}


def first_situation_only(folder) -> None:
    path = folder / "situations.jsonl"
    path.write_text(path.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    toml = folder / "study.toml"
    text = toml.read_text(encoding="utf-8").replace(
        "[attention_check]\nenabled = true", "[attention_check]\nenabled = false"
    )
    text = text.replace("situations_per_participant = 10", "situations_per_participant = 1")
    toml.write_text(text.replace('situation = "demo-05-t3"', 'situation = "demo-01-t3"'), encoding="utf-8")


def judge_study(tmp_path, url: str, timeout_s: float, max_retries: int):
    """The demo study cut to one situation (3 judge items), judge `j` on an endpoint with these limits."""
    folder = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, folder)
    first_situation_only(folder)
    toml = folder / "study.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8")
        + f'\n[endpoints.judge-llm]\nbase_url = "{url}"\nmodel = "stub-judge"\nmax_concurrency = 4\n'
        + f'timeout_s = {timeout_s}\nmax_retries = {max_retries}\n\n[judges.j]\nendpoint = "judge-llm"\n',
        encoding="utf-8",
    )
    return load_study(folder)


def judged(study) -> list[dict]:
    return list(Checkpoint(study.folder / "judges" / "j.raw.jsonl").records.values())


class FirstTimeSilent:
    """Answers LABEL, but each prompt's first asking only after `delay_s` (a server that was stuck)."""

    def __init__(self, delay_s: float, times: int = 1):
        self.delay_s, self.times, self.seen = delay_s, times, Counter()

    def __call__(self, request: dict) -> dict:
        key = json.dumps(request["messages"], sort_keys=True)
        self.seen[key] += 1
        return {"content": LABEL, "delay_s": self.delay_s if self.seen[key] <= self.times else 0.0}


@pytest.mark.slow  # about 1.5 s: three calls cut at timeout_s = 1
def test_a_judge_ends_a_trickling_answer_at_timeout_s(tmp_path):
    # Today's failure: httpx's timeout bounds each read, so a judge waited 30-45 s for answers that trickle in
    # and counted them as good, where `generate` gave up at timeout_s on the same stub.
    with serve_openai(rule=lambda request: LABEL, trickle_s=TRICKLE_S) as stub:
        study = judge_study(tmp_path, stub.url, timeout_s=1, max_retries=0)
        report = run_judge(study, "j")
        deadline = time.monotonic() + 10
        while stub.in_flight and time.monotonic() < deadline:  # each finds its client gone at its next byte
            time.sleep(0.02)
    records = judged(study)
    assert len(records) == 3 and report.rows == 0
    assert [len(r["call_records"]) for r in records] == [1, 1, 1]  # one call each, ended at its timeout:
    assert {r["error"]["kind"] for r in records} == {"timeout"}, records
    assert stub.cut == 3  # each answer was stopped, not left to trickle on


@pytest.mark.slow  # about 1.5 s: 20 MB sent three times
def test_a_judge_keeps_max_text_characters_of_a_20_mb_answer(tmp_path):
    with serve_openai(rule=lambda request: HUGE) as stub:
        study = judge_study(tmp_path, stub.url, timeout_s=30, max_retries=0)
        run_judge(study, "j")
    raw = study.folder / "judges" / "j.raw.jsonl"
    assert raw.stat().st_size < 100_000, f"{raw.stat().st_size} bytes stored for 3 items"
    records = judged(study)
    assert records and all(len(text) <= MAX_TEXT for r in records for text in r["raw"])
    assert all(len(r["raw"][0]) > MAX_TEXT - 100 for r in records)  # cut, not dropped
    calls = [c for r in records for c in r["call_records"]]
    assert calls and {c["cut_chars"] for c in calls} == {len(HUGE.strip())}  # the record says how long it was


@pytest.mark.slow  # about 2 s: a timed-out attempt, a backoff, another
def test_a_timed_out_judge_call_is_retried_up_to_max_retries(tmp_path):
    with serve_openai(rule=FirstTimeSilent(delay_s=3.0)) as stub:
        study = judge_study(tmp_path, stub.url, timeout_s=0.5, max_retries=1)
        report = run_judge(study, "j")
    records = judged(study)
    assert report.rows == 3 and {r.get("label") for r in records} == {LABEL}, records
    assert [c["attempts"] for r in records for c in r["call_records"]] == [2, 2, 2]
    # Up to max_retries, no more: silent on the first two askings, max_retries = 1 gives up after two attempts.
    with serve_openai(rule=FirstTimeSilent(delay_s=3.0, times=2)) as stub:
        study = judge_study(tmp_path / "again", stub.url, timeout_s=0.5, max_retries=1)
        run_judge(study, "j")
        assert len(stub.requests) == 6
    assert {r["error"]["kind"] for r in judged(study)} == {"timeout"}


def endpoint_client(url: str, timeout_s: float, max_retries: int = 0) -> LLMClient:
    endpoint = Endpoint(base_url=url, model="stub-model", timeout_s=timeout_s, max_retries=max_retries)
    return LLMClient(f"limits-{url}-{timeout_s}-{max_retries}", endpoint, label="caller")


class _Run:  # what LLMChattingBot reads of a live run before it asks anything
    class live:
        task = "Find a film for tonight."


def simulated_participant(url: str, timeout_s: float, max_retries: int = 0) -> str:
    bot = SimulatedParticipant(endpoint_client(url, timeout_s, max_retries), "A student who likes horror.")
    bot.answer("A page.", [Question("why", "Why?")])
    return bot.take()["llm"]["calls"][-1]["answer"]


def chatting_participant(url: str, timeout_s: float, max_retries: int = 0) -> str:
    bot = LLMChattingBot(_Run(), endpoint_client(url, timeout_s, max_retries), "A student who likes horror.")
    return bot._ask([{"role": "user", "content": "Write your first message."}])


def live_system(url: str, timeout_s: float, max_retries: int = 0) -> str:
    client = endpoint_client(url, timeout_s, max_retries)
    return LLMSystem("Llama", client, timeout_s=None).reply(REQUEST).text  # generate's use: no live deadline


def generated(url: str, timeout_s: float, max_retries: int = 0, tmp_path=None) -> str:
    limits = (
        f'\n[endpoints.llm2]\nbase_url = "{url}"\nmodel = "m"\ntimeout_s = {timeout_s}\nmax_retries = {max_retries}\n'
    )
    folder = study_with(tmp_path / f"g{time.monotonic_ns()}", url, extra=limits)
    first_situation_only(folder)
    report = generate(folder, "Llama", endpoint="llm2")
    if report.summary.failures:
        raise SystemTimeout("Llama", "; ".join(report.errors))
    (situation,) = load_situations([folder / "situations.jsonl"])
    return situation.responses["Llama"]


CALLERS = {
    "simulated-pages": simulated_participant,
    "simulated-chat": chatting_participant,
    "live-system": live_system,
    "generate": generated,
}


def call(caller: str, url: str, tmp_path, **limits) -> str:
    extra = {"tmp_path": tmp_path} if caller == "generate" else {}
    return CALLERS[caller](url, **limits, **extra)


@pytest.mark.slow  # about 1 s each, and generate's study copy
@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_every_caller_ends_a_trickling_answer_at_timeout_s(caller, tmp_path):
    with serve_openai(rule=lambda request: LABEL, trickle_s=TRICKLE_S) as stub:
        stub.ignore_stream = True  # a server that answers a stream request with a plain, trickling body
        with pytest.raises((SystemTimeout, SimulatorFailed)):  # the whole answer takes 6 s: read whole, it would do
            call(caller, stub.url, tmp_path, timeout_s=1)
        deadline = time.monotonic() + 10
        while stub.in_flight and time.monotonic() < deadline:  # the client is gone: the stub finds it at its next byte
            time.sleep(0.02)
        assert stub.cut == len(stub.requests) >= 1  # each answer was stopped, not left to trickle on


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_every_caller_keeps_max_text_characters(caller, tmp_path):
    with serve_openai(rule=lambda request: HUGE) as stub:
        text = call(caller, stub.url, tmp_path, timeout_s=30)
    assert MAX_TEXT - 100 < len(text) <= MAX_TEXT


@pytest.mark.slow  # a timed-out attempt, a backoff, another
@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_every_caller_retries_a_timed_out_call(caller, tmp_path):
    rule = FirstTimeSilent(delay_s=3.0)
    with serve_openai(rule=rule) as stub:
        assert call(caller, stub.url, tmp_path, timeout_s=0.5, max_retries=1) == LABEL
    assert set(rule.seen.values()) == {2}  # each prompt (a simulated page's re-ask is another) asked twice


@pytest.mark.slow  # about 1.7 s: the stub prepares 50,000 events
def test_a_stream_is_closed_once_it_has_max_text_characters():
    # One SSE event per word: the client stops reading (and the server generating) past MAX_TEXT characters.
    with serve_openai(rule=lambda request: "word " * 50_000) as stub:
        done = endpoint_client(stub.url, 30).complete([{"role": "user", "content": "hi"}], stream=True)
        deadline = time.monotonic() + 5
        while stub.in_flight and time.monotonic() < deadline:
            time.sleep(0.02)
        assert stub.cut == 1
    assert len(done.text) <= MAX_TEXT and done.record.cut_chars > MAX_TEXT
    assert done.record.finish_reason == "length"


def test_a_live_chat_never_retries_past_its_own_deadline():
    # The participant is waiting: with timeout_s the whole wait, a timed-out attempt is not tried again.
    with serve_openai(rule=FirstTimeSilent(delay_s=3.0)) as stub:
        system = LLMSystem("Llama", endpoint_client(stub.url, 30, max_retries=3), timeout_s=0.5)
        with pytest.raises(SystemTimeout):  # tried again, the second attempt would have answered at once
            system.reply(REQUEST)
        assert len(stub.requests) == 1


def test_a_plain_answer_larger_than_max_body_bytes_is_refused_not_held(monkeypatch):
    monkeypatch.setattr(limits, "MAX_BODY_BYTES", 2**20)  # 1 MB here, 64 MB in use
    with serve_openai(rule=lambda request: "x" * 2 * 2**20) as stub:
        with pytest.raises(SystemBadReply, match="larger than 1 MB"):
            endpoint_client(stub.url, 30).complete([{"role": "user", "content": "hi"}])
        assert len(stub.requests) == 1  # refused, not retried
