"""Simulated participants (`bots --strategy llm`) answer every page through the LLM (infact/llm/simulated.py):
what they are sent, what is stored with each answer, stand-ins when the LLM gives no label, and a failed call."""

from __future__ import annotations

import json
import shutil

import pytest

from infact.cli.main import main
from infact.llm.client import LLMClient
from infact.participation import steps as registry
from infact.participation.bots import default_quality, run_bots
from infact.storage import MemoryStorage, open_storage
from infact.study.endpoints import Endpoint
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.paths import DEMO_STUDY, REPO
from tests.support.simulated_pages import planted_page_rule

PERSONA = "You are Ana, 41, a teacher who watches a film every Friday."
PAIRWISE = REPO / "data" / "demo-pairwise"


def simulator(url: str, **options):
    llm = LLMClient("sim", Endpoint(base_url=url, model="stub-user", max_retries=0))
    return (llm, PERSONA, options) if options else (llm, PERSONA)


def steps_of(storage, token: str, kind: str) -> list[dict]:
    return [r for r in storage.records() if r["participant"] == token and r["kind"] == kind and r.get("step")]


def test_every_kind_that_shows_a_page_has_a_simulated_answer():
    """No kind a participant reads and answers is left to the planted bot model, but consent, demographics and
    the live chats (an LLM plays those in infact/chat/llm_chat.py)."""
    own = {k.name for k in registry.kinds() if type(k).simulated_answers is not registry.StepKind.simulated_answers}
    assert own == {
        "situation",
        "pairwise",
        "pairwise_dialog",
        "best_worst",
        "conversation",
        "onboarding",
        "comprehension",
        "questionnaire",
    }


def test_a_simulated_rater_reads_the_page_and_its_answers_are_stored_with_their_provenance():
    study = load_study(DEMO_STUDY)
    quality = default_quality(study)
    storage = MemoryStorage()
    with serve_openai(rule=planted_page_rule(study, quality)) as stub:
        [result] = run_bots(study, storage, 1, strategy="llm", seed=5, simulator=simulator(stub.url))
    assert result.completed and result.outcome == "completed" and result.fallbacks == 0
    pages = steps_of(storage, result.token, "situation")
    assert len(pages) == study.config.study.situations_per_participant
    first = pages[0]
    [request] = [r for r in stub.requests if first["context"][-1]["text"] in r["messages"][1]["content"]][:1]
    sent = request["messages"][1]["content"]
    assert (
        PERSONA in request["messages"][0]["content"]
        and study.config.texts.instructions.strip()[:60] in (request["messages"][0]["content"])
    )
    # the responses in the order shown, lettered as on the page, then one question per response on the scale
    at = [sent.index(f"Response {x}:\n{r['text']}") for x, r in zip("ABC", first["responses"])]
    assert at == sorted(at) and " | ".join(study.config.scale.labels) in sent
    assert "llm" in first and first["llm"]["model"] == "stub-user" and len(first["llm"]["prompt_hash"]) == 32
    assert first["llm"]["finish_reason"] == "stop" and len(first["llm"]["calls"]) == 1 and "fallback" not in first
    # the plant is followed: the best system's response rated above the worst's, on every regular page
    best, worst = max(quality, key=quality.get), min(quality, key=quality.get)
    for page in (p for p in pages if not p["attention_check"]):
        points = {r["system"]: r["ratings"]["meaningful"] for r in page["responses"]}
        assert points[best] > points[worst]
    [check] = [p for p in pages if p["attention_check"]]
    assert check["attention_passed"] is True  # it read the instruction in place of a response


def test_a_simulated_voter_follows_its_plant_on_pairs():
    study = load_study(PAIRWISE)
    quality = default_quality(study)
    storage = MemoryStorage()
    with serve_openai(rule=planted_page_rule(study, quality)) as stub:
        [result] = run_bots(study, storage, 1, strategy="llm", seed=6, simulator=simulator(stub.url))
    assert result.outcome == "completed"
    [onboarding] = steps_of(storage, result.token, "onboarding")
    assert onboarding["llm"]["calls"] and onboarding["share"] == 1.0
    votes = [v for v in steps_of(storage, result.token, "pairwise") if not v["attention_check"]]
    assert votes and all("llm" in v for v in votes)
    for v in votes:
        shown = [r["system"] for r in v["responses"]]
        assert v["choices"]["meaningful"] == max(shown, key=quality.get)


def test_answers_that_are_no_label_are_asked_again_then_marked_and_counted(tmp_path, capsys):
    folder = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, folder)
    with serve_openai(rule=planted_page_rule(mode="garbage")) as stub:
        toml = folder / "study.toml"
        toml.write_text(
            toml.read_text() + f'\n[endpoints.sim]\nbase_url = "{stub.url}"\nmodel = "stub-user"\nmax_retries = 0\n'
        )
        persona = tmp_path / "ana.txt"
        persona.write_text(PERSONA, encoding="utf-8")
        db = str(tmp_path / "db")
        argv = ["bots", str(folder), "--db", db, "-n", "1", "--strategy", "llm", "--endpoint", "sim"]
        assert main([*argv, "--persona", str(persona), "--constrain", "json_schema"]) == 0
        assert all("response_format" in r for r in stub.requests)  # held to the labels, and still no label
    study = load_study(folder)
    storage = open_storage(db)
    try:
        pages = [r for r in storage.records() if r.get("llm")]
    finally:
        storage.close()
    situations = [p for p in pages if p["kind"] == "situation"]
    assert len(situations) == study.config.study.situations_per_participant
    middle = (len(study.config.scale.labels) + 1) // 2
    for p in situations:
        assert sorted(p["fallback"]) == [f"{x}/meaningful" for x in "ABC"]  # every answer a stand-in, named
        assert len(p["llm"]["calls"]) == 2  # asked once more before the stand-in
        assert {r["ratings"]["meaningful"] for r in p["responses"]} == {middle}
    n = sum(len(p["fallback"]) for p in pages)
    assert f"{n} simulated answers were not a label" in capsys.readouterr().out


def test_a_failed_simulator_call_leaves_the_participant_unfinished_with_nothing_stored_for_the_page():
    study = load_study(DEMO_STUDY)
    storage = MemoryStorage()
    rule = planted_page_rule(study, default_quality(study))
    with serve_openai() as stub:
        calls = {"n": 0}

        def fails_third(request: dict) -> str:
            calls["n"] += 1
            if calls["n"] == 2:
                stub.fail(400)  # the third page's call is refused
            return rule(request)

        stub.rule = fails_third
        [result] = run_bots(study, storage, 1, strategy="llm", seed=7, simulator=simulator(stub.url))
    assert not result.completed and result.outcome is None and "http_status" in result.failure
    assert len(steps_of(storage, result.token, "situation")) == 2  # the failed page: nothing stored, no stand-in
    assert not [r for r in storage.records() if r["participant"] == result.token and r["kind"] == "complete"]


@pytest.mark.parametrize("mode", ["json_schema", "grammar"])
def test_the_answers_can_be_held_to_the_labels(mode):
    """`constrain` as a judge's: a JSON schema with each question's labels, or a GBNF grammar of the lines."""
    study = load_study(DEMO_STUDY)
    storage = MemoryStorage()
    lines = planted_page_rule(study, default_quality(study))

    def rule(request: dict) -> str:
        text = lines(request)
        if mode == "grammar":
            return text
        return json.dumps(dict(line.split(": ", 1) for line in text.splitlines()))

    with serve_openai(rule=rule) as stub:
        [result] = run_bots(study, storage, 1, strategy="llm", seed=8, simulator=simulator(stub.url, constrain=mode))
    assert result.outcome == "completed" and result.fallbacks == 0
    request = next(r for r in stub.requests if "Response A:" in r["messages"][1]["content"])
    labels = study.config.scale.labels
    if mode == "grammar":
        assert '"A/meaningful: "' in request["grammar"] and json.dumps(labels[0]) in request["grammar"]
    else:
        schema = request["response_format"]["json_schema"]["schema"]
        assert (
            schema["properties"]["A/meaningful"]["enum"] == labels
            and "JSON object" in (request["messages"][1]["content"])
        )


@pytest.mark.parametrize(
    "demo, kind, shown",
    [
        ("demo-acute", "pairwise_dialog", ["Conversation A:\n", "Conversation B:\n"]),
        ("demo-best-worst", "best_worst", ["Response A:\n", "Response D:\n", "[best/", "[worst/"]),
        ("demo-conversations", "conversation", ["Chatbot (message 1): ", "[1/relevance]", "[dialogue/"]),
    ],
)
def test_the_other_protocols_pages_are_answered_by_the_llm(demo, kind, shown):
    study = load_study(REPO / "data" / demo)
    storage = MemoryStorage()
    with serve_openai(rule=planted_page_rule(study, default_quality(study))) as stub:
        [result] = run_bots(study, storage, 1, strategy="llm", seed=9, simulator=simulator(stub.url))
    assert result.completed and result.failure is None
    pages = steps_of(storage, result.token, kind)
    assert pages and all(p["llm"]["calls"] for p in pages)
    sent = [r["messages"][1]["content"] for r in stub.requests]
    assert any(all(s in text for s in shown) for text in sent)
