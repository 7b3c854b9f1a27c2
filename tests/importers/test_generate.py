"""`infact generate`: every situation answered, provenance kept, resumable, no silent overwrite."""

from __future__ import annotations

import json
import shutil

import pytest

from infact.cli.main import main
from infact.errors import InfactError
from infact.importers.generate import generate
from infact.participation.bots import run_bots
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from infact.study.situations import load_situations
from simulations.openai_stub import serve_openai
from tests.support.paths import DEMO_STUDY

ENDPOINT = '\n[endpoints.llm]\nbase_url = "{url}"\nmodel = "stub-model"\nmax_concurrency = 4\nmax_retries = 0\n'


def study_with(tmp_path, url: str, system: str = "Llama", extra: str = ""):
    folder = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, folder)
    toml = folder / "study.toml"
    text = toml.read_text(encoding="utf-8")
    if system not in ("CineMate", "FlickBot", "ReelTalk"):
        text = text.replace(
            'systems = ["CineMate", "FlickBot", "ReelTalk"]',
            f'systems = ["CineMate", "FlickBot", "ReelTalk", "{system}"]',
        )
    toml.write_text(text + ENDPOINT.format(url=url) + extra, encoding="utf-8")
    return folder


def rule(request: dict) -> str:
    last = [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
    return f"LLM answer to: {last[:40]}"


def test_every_situation_gets_the_endpoints_answer_with_provenance_and_the_study_runs(tmp_path):
    with serve_openai(rule=rule) as stub:
        folder = study_with(tmp_path, stub.url)
        report = generate(folder, "Llama", endpoint="llm", system_prompt="You recommend movies.")
    situations = load_situations([folder / "situations.jsonl"])
    assert report.summary.calls == len(situations) == len(stub.requests) and not report.errors
    first = situations[0]
    sent = stub.requests[0]["messages"]
    assert sent[0] == {"role": "system", "content": "You recommend movies."}
    assert {m["role"] for m in sent[1:]} <= {"user", "assistant"} and sent[-1]["role"] == "user"
    assert all(s.responses["Llama"].startswith("LLM answer to:") for s in situations)
    prov = first.source["generated"]["Llama"]
    assert prov["via"] == "endpoint" and prov["model"] == "stub-model" and len(prov["prompt_hash"]) == 32
    assert prov["prompt_tokens"] > 0 and "system_prompt_sha256" in prov
    assert first.source["format"] == "demo"  # the situation's own provenance is kept
    study = load_study(folder)  # validates unchanged …
    storage = MemoryStorage()
    assert any(r.completed for r in run_bots(study, storage, 3, seed=1))  # … and runs
    shown = {s for r in storage.records(kind="assignment") for step in r["steps"] for s in step["order"]}
    assert "Llama" in shown


def test_existing_responses_are_refused_without_force(tmp_path):
    with serve_openai(rule=rule) as stub:
        folder = study_with(tmp_path, stub.url, system="CineMate")
        with pytest.raises(InfactError, match="already have a response of 'CineMate'.*--force"):
            generate(folder, "CineMate", endpoint="llm")
        assert stub.requests == []
        generate(folder, "CineMate", endpoint="llm", force=True)
    assert all(s.responses["CineMate"].startswith("LLM answer") for s in load_situations([folder / "situations.jsonl"]))


def test_a_killed_run_resumes_without_repeating_finished_calls(tmp_path):
    with serve_openai(rule=rule) as stub:
        folder = study_with(tmp_path, stub.url)
        total = len(load_situations([folder / "situations.jsonl"]))
        stub.fail(500, times=3)  # three calls fail (max_retries = 0): the run is cut short
        first = generate(folder, "Llama", endpoint="llm")
        assert first.summary.failures == 3 and len(first.errors) == 3
        lines = (folder / "generated" / "Llama.jsonl").read_text().splitlines()
        with open(folder / "generated" / "Llama.jsonl", "a") as f:
            f.write('{"key": "torn li')  # a line cut by a kill
        asked = len(stub.requests)
        again = generate(folder, "Llama", endpoint="llm", force=True)
    assert again.summary.resumed == total - 3 and again.summary.calls == 3 and len(stub.requests) == asked + 3
    assert len(lines) == total and not again.errors
    assert all("Llama" in s.responses for s in load_situations([folder / "situations.jsonl"]))


def test_a_system_with_a_live_table_uses_its_connection_and_the_cli_prints_a_summary(tmp_path, capsys):
    live = (
        '\n[live.systems.Llama]\nendpoint = "llm"\nsystem_prompt = "Be brief."\ntemperature = 0.1\n'
        '[live.systems.CineMate]\ncallable = "infact.chat.demo_systems:genre_recommender"\n'
        '[live.systems.FlickBot]\ncallable = "infact.chat.demo_systems:retrieval_bot"\n'
        '[live.systems.ReelTalk]\ncallable = "infact.chat.demo_systems:popular_recommender"\n'
    )
    with serve_openai(rule=rule) as stub:
        folder = study_with(tmp_path, stub.url, extra=live)
        assert main(["generate", "--study", str(folder), "--system", "Llama"]) == 0
        assert stub.requests[0]["messages"][0]["content"] == "Be brief." and stub.requests[0]["temperature"] == 0.1
    out = capsys.readouterr()
    assert "calls=" in out.out and "wrote" in out.out and "generate Llama [" in out.err


def test_a_callable_system_generates_too(tmp_path):
    with serve_openai() as stub:
        folder = study_with(tmp_path, stub.url, system="Genre")
    report = generate(folder, "Genre", callable_spec="infact.chat.demo_systems:genre_recommender")
    rows = [json.loads(line) for line in report.checkpoint.read_text().splitlines()]
    assert not report.errors and all(r["response"] for r in rows)
    assert load_situations([folder / "situations.jsonl"])[0].source["generated"]["Genre"]["via"] == "callable"
