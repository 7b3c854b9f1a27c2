"""What a judge's requests carry (issue 29, item 10): a default max_tokens, an opt-in constraint of the
answer to the item's labels, pass-through fields, all recorded in the parameters and the prompt hash."""

from __future__ import annotations

import json

import pytest

from infact.errors import ConfigError
from infact.participation.bots import default_quality
from infact.results.judges.runner import run_judge
from infact.study.endpoints import JUDGE_MAX_TOKENS
from simulations.openai_stub import serve_openai
from tests.support.llm_judges import judge_rule, judge_study


def raw_records(report) -> list[dict]:
    return [json.loads(line) for line in report.raw_path.read_text().splitlines()]


def test_a_judge_gets_a_default_max_tokens_and_its_own_wins(tmp_path):
    with serve_openai() as stub:
        study = judge_study(tmp_path, stub.url, "")
        stub.rule = judge_rule(study, default_quality(study))
        run_judge(study, "j")
        assert {r["max_tokens"] for r in stub.requests} == {JUDGE_MAX_TOKENS}
    with serve_openai() as stub:
        study = judge_study(tmp_path / "b", stub.url, "max_tokens = 7\n")
        stub.rule = judge_rule(study, default_quality(study))
        run_judge(study, "j")
        assert {r["max_tokens"] for r in stub.requests} == {7}


def test_grammar_constrains_each_answer_to_the_items_labels_and_is_in_the_prompt_hash(tmp_path):
    with serve_openai() as stub:
        study = judge_study(tmp_path, stub.url, 'constrain = "grammar"\n')
        stub.rule = judge_rule(study, default_quality(study))
        report = run_judge(study, "j")
        labels = study.config.scale.labels
        assert stub.requests[0]["grammar"] == "root ::= " + " | ".join(json.dumps(x) for x in labels)
        record = raw_records(report)[0]["call_records"][0]
        assert record["params"]["grammar"] == stub.requests[0]["grammar"]
    with serve_openai() as stub:  # the same items unconstrained are other calls (other hashes)
        free = judge_study(tmp_path / "free", stub.url, "")
        stub.rule = judge_rule(free, default_quality(free))
        other = raw_records(run_judge(free, "j"))[0]["call_records"][0]
        assert other["prompt_hash"] != record["prompt_hash"] and "grammar" not in stub.requests[0]


def test_a_json_schema_judge_is_asked_for_a_label_object_and_its_answer_is_read(tmp_path):
    with serve_openai() as stub:
        study = judge_study(tmp_path, stub.url, 'constrain = "json_schema"\n')
        plain = judge_rule(study, default_quality(study))
        stub.rule = lambda request: json.dumps({"label": plain(request)})
        report = run_judge(study, "j")
        fmt = stub.requests[0]["response_format"]
        assert fmt["type"] == "json_schema"
        assert fmt["json_schema"]["schema"]["properties"]["label"]["enum"] == study.config.scale.labels
        assert '{"label"' in stub.requests[0]["messages"][-1]["content"]
        assert report.unparseable == 0 and report.rows == report.items


def test_request_fields_pass_through_and_cannot_override_the_protocol(tmp_path):
    with serve_openai() as stub:
        study = judge_study(tmp_path, stub.url, "request = { top_k = 1, grammar = 'root ::= \"x\"' }\n")
        stub.rule = judge_rule(study, default_quality(study))
        run_judge(study, "j")
        assert stub.requests[0]["top_k"] == 1 and stub.requests[0]["grammar"] == 'root ::= "x"'
    with pytest.raises(ConfigError, match="temperature"):
        judge_study(tmp_path / "bad", "http://127.0.0.1:9/v1", "request = { temperature = 1 }\n")


def test_answers_cut_at_max_tokens_are_counted(tmp_path):
    with serve_openai() as stub:
        study = judge_study(tmp_path, stub.url, "")
        rule = judge_rule(study, default_quality(study))
        stub.rule = lambda request: {"content": rule(request), "finish_reason": "length"}
        report = run_judge(study, "j")
        assert report.summary.cut == report.items and f"cut_at_max_tokens={report.items}" in report.lines()
