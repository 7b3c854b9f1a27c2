"""`generate` against a real server's habits (issue 29, item 10): bounded answers, their finish_reason kept,
answers cut at max_tokens counted, and a batch that stops when nothing is listening."""

from __future__ import annotations

import socket

from infact.importers.generate import generate
from infact.llm.batch import STOP_AFTER_UNREACHABLE
from infact.study.endpoints import GENERATE_MAX_TOKENS
from infact.study.situations import load_situations
from simulations.openai_stub import serve_openai
from tests.support.generating import rule, study_with


def test_generated_answers_are_bounded_and_keep_their_finish_reason(tmp_path):
    def cut_every_other(request: dict) -> dict:
        n = int(request["messages"][-1]["content"].__len__()) % 2
        return {"content": rule(request), "finish_reason": "length" if n else "stop"}

    with serve_openai(rule=cut_every_other) as stub:
        folder = study_with(tmp_path, stub.url)
        report = generate(folder, "Llama", endpoint="llm")
        assert {r["max_tokens"] for r in stub.requests} == {GENERATE_MAX_TOKENS}
    situations = load_situations([folder / "situations.jsonl"])
    reasons = [s.source["generated"]["Llama"]["finish_reason"] for s in situations]
    assert set(reasons) <= {"stop", "length"} and "length" in reasons
    assert report.summary.cut == reasons.count("length") > 0
    assert f"cut_at_max_tokens={reasons.count('length')}" in report.summary.lines()
    assert all(s.source["generated"]["Llama"]["params"]["max_tokens"] == GENERATE_MAX_TOKENS for s in situations)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_batch_stops_after_consecutive_unreachable_calls(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    folder = study_with(tmp_path, url, extra="")
    text = (folder / "study.toml").read_text().replace("max_concurrency = 4", "max_concurrency = 1")
    (folder / "study.toml").write_text(text)
    report = generate(folder, "Llama", endpoint="llm")
    total = len(load_situations([folder / "situations.jsonl"]))
    assert total > STOP_AFTER_UNREACHABLE + 2
    assert report.summary.stopped and "could not reach" in report.summary.stopped
    # the one worker may have started the next job while the fifth result was read
    assert STOP_AFTER_UNREACHABLE <= report.summary.failures <= STOP_AFTER_UNREACHABLE + 1
    assert report.summary.not_tried == total - report.summary.failures
