"""`bots --strategy llm` reports, marks and counts its failures (issue 29, item 10): no simulator listening
fails the command, a simulator's failed call is not stored as a frustrated participant, and stand-in
answers are marked."""

from __future__ import annotations

import socket

from infact.cli.main import main
from infact.llm.client import LLMClient
from infact.participation.bots import run_bots
from infact.storage import MemoryStorage, open_storage
from infact.study.endpoints import Endpoint
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.llm_studies import KEY_ENV, PERSONA, endpoint_live_study
from tests.support.llm_studies import simulated_user_rule as rule


def dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_no_simulator_listening_fails_the_command_and_stores_no_ending(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, "sk-sim-test-0003")
    persona = tmp_path / "sam.txt"
    persona.write_text(PERSONA, encoding="utf-8")
    with serve_openai(rule=rule) as stub:
        folder = endpoint_live_study(tmp_path / "study", stub.url)
        toml = folder / "study.toml"
        toml.write_text(
            toml.read_text() + f'\n[endpoints.sim]\nbase_url = "{dead_url()}"\nmodel = "m"\nmax_retries = 0\n'
        )
        db = str(tmp_path / "db")
        argv = ["bots", str(folder), "--db", db, "-n", "2", "--strategy", "llm", "--endpoint", "sim"]
        code = main([*argv, "--persona", str(persona)])
    captured = capsys.readouterr()
    assert code == 1 and "2 completed" not in captured.out and "0 completed" in captured.out
    assert "2 of 2 simulated participants stopped" in captured.err and "unreachable" in captured.err
    storage = open_storage(db)
    try:
        assert storage.records(kind="chat_end") == [] and storage.records(kind="chat_vote") == []
    finally:
        storage.close()


def test_a_simulators_failed_call_is_not_stored_as_the_participant_ending_frustrated(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-sim-test-0004")
    with serve_openai(rule=rule) as systems, serve_openai(rule=rule) as sim:
        study = load_study(endpoint_live_study(tmp_path / "study", systems.url))
        storage = MemoryStorage()
        calls = {"n": 0}

        def fails_second(request: dict) -> str:
            calls["n"] += 1
            if calls["n"] == 2:
                sim.fail(400)  # the next one (the simulator's third message) is refused
            return rule(request)

        sim.rule = fails_second
        simulator = (LLMClient("sim", Endpoint(base_url=sim.url, model="stub-user", max_retries=0)), PERSONA)
        [result] = run_bots(study, storage, 1, strategy="llm", seed=2, simulator=simulator)
    assert not result.completed and result.failure and "http_status" in result.failure
    assert [r["ended_by"] for r in storage.records(kind="chat_end")] in ([], ["satisfied"])  # never "frustrated"
    assert storage.records(kind="chat_vote") == []


def test_fallback_rubric_and_vote_answers_are_marked_and_counted(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-sim-test-0005")

    def no_labels(request: dict) -> str:
        last = request["messages"][-1]["content"]
        return "Hard to say, honestly." if "Answer with" in last else rule(request)

    with serve_openai(rule=rule) as systems, serve_openai(rule=no_labels) as sim:
        study = load_study(endpoint_live_study(tmp_path / "study", systems.url))
        storage = MemoryStorage()
        simulator = (LLMClient("sim", Endpoint(base_url=sim.url, model="stub-user")), PERSONA)
        [result] = run_bots(study, storage, 1, strategy="llm", seed=2, simulator=simulator)
    assert result.completed
    items = [item.id for item in study.config.live.rubric]
    rubrics = storage.records(kind="chat_rubric")
    assert len(rubrics) == 2 and all(r["fallback"] == items for r in rubrics)
    [vote] = storage.records(kind="chat_vote")
    assert "fallback" in vote["justification"]
    # The rated situations and the questionnaire were not answered with labels either: every item is a
    # stand-in, named in its step's record, and counted with the live ones.
    pages = [r for r in storage.records() if r.get("step") and r.get("llm")]
    assert {r["kind"] for r in pages} == {"situation", "questionnaire"}
    situations = [r for r in pages if r["kind"] == "situation"]
    assert all(set(r["fallback"]) == {f"{x}/meaningful" for x in "ABC"} for r in situations)
    assert all(len(r["llm"]["calls"]) == 2 for r in pages)  # the page, then the re-ask
    on_pages = sum(len(r["fallback"]) for r in pages)
    assert on_pages == 3 * 3 + len(study.config.questionnaire.items)
    assert result.fallbacks == 2 * len(items) + 1 + on_pages
