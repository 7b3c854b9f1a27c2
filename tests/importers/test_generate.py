"""`infact generate`: every situation answered, provenance kept, resumable, no silent overwrite."""

from __future__ import annotations

import json

from infact.cli.main import main
from infact.importers.generate import generate
from infact.participation.bots import run_bots
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from infact.study.situations import load_situations
from simulations.openai_stub import serve_openai
from tests.support.generating import rule, study_with


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


def test_existing_responses_are_kept_without_force_and_replaced_with_it(tmp_path):
    with serve_openai(rule=rule) as stub:
        folder = study_with(tmp_path, stub.url, system="CineMate")
        before = {s.situation_id: s.responses["CineMate"] for s in load_situations([folder / "situations.jsonl"])}
        report = generate(folder, "CineMate", endpoint="llm")
        assert stub.requests == [] and report.kept == len(before) and report.summary.calls == 0
        after = {s.situation_id: s.responses["CineMate"] for s in load_situations([folder / "situations.jsonl"])}
        assert after == before
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
        again = generate(folder, "Llama", endpoint="llm")
    assert again.kept == total - 3 and again.summary.calls == 3 and len(stub.requests) == asked + 3
    assert len(lines) == total and not again.errors
    assert all("Llama" in s.responses for s in load_situations([folder / "situations.jsonl"]))


def test_the_same_command_again_makes_exactly_the_failed_calls_and_validate_warns_meanwhile(tmp_path, capsys):
    """F2: 2 of N calls fail; `validate` warns about the gap; the same command then makes those 2 calls only."""
    with serve_openai(rule=rule) as stub:
        folder = study_with(tmp_path, stub.url)
        total = len(load_situations([folder / "situations.jsonl"]))
        stub.fail(500, times=2)
        command = ["generate", "--study", str(folder), "--system", "Llama", "--endpoint", "llm"]
        assert main(command) == 1
        assert len(stub.requests) == total
        capsys.readouterr()
        assert main(["validate", str(folder)]) == 0
        err = capsys.readouterr().err
        assert f"warning: {folder / 'situations.jsonl'}" in err and f"'Llama' was generated for {total - 2} of" in err
        failed = {
            json.loads(line)["situation_id"]
            for line in (folder / "generated" / "Llama.jsonl").read_text().splitlines()
            if "error" in json.loads(line)
        }
        assert len(failed) == 2
        asked = len(stub.requests)
        assert main(command) == 0
        out = capsys.readouterr().out
        resent = [r["messages"] for r in stub.requests[asked:]]
        assert len(resent) == 2 and f"kept {total - 2} existing responses" in out
        situations = {s.situation_id: s for s in load_situations([folder / "situations.jsonl"])}
        assert all("Llama" in s.responses for s in situations.values())
        assert {rule({"messages": m}).strip() for m in resent} == {situations[i].responses["Llama"] for i in failed}
        assert main(["validate", str(folder)]) == 0
        assert "was generated for" not in capsys.readouterr().err
        assert main(command) == 0 and len(stub.requests) == asked + 2  # nothing left to ask


def test_force_regenerates_everything_even_what_the_checkpoint_holds(tmp_path):
    with serve_openai(rule=rule) as stub:
        folder = study_with(tmp_path, stub.url)
        total = len(load_situations([folder / "situations.jsonl"]))
        generate(folder, "Llama", endpoint="llm")
        again = generate(folder, "Llama", endpoint="llm", force=True)
    assert again.summary.calls == total and len(stub.requests) == 2 * total and again.kept == 0


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
