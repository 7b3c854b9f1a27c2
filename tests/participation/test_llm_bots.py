"""Simulated participants: an LLM (the stub) plays a persona in live chats, rubric and vote; marked, kept apart."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from infact.cli.main import main
from infact.llm.client import LLMClient
from infact.participation.bots import run_bots
from infact.results.live.simulated import render_markdown, simulated_vs_human
from infact.results.quality import funnel
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage, open_storage
from infact.study.endpoints import Endpoint
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.llm_studies import KEY_ENV, PERSONA, endpoint_live_study
from tests.support.llm_studies import simulated_user_rule as rule


@pytest.mark.slow  # 2.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_an_llm_plays_the_persona_through_chats_rubric_and_vote_and_is_kept_apart(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-sim-test-0001")
    with serve_openai(rule=rule) as stub:
        study = load_study(endpoint_live_study(tmp_path / "study", stub.url))
        storage = MemoryStorage()
        humans = run_bots(study, storage, 4, strategy="attentive", seed=1)
        simulator = (LLMClient("sim", Endpoint(base_url=stub.url, model="stub-user")), PERSONA)
        sims = run_bots(study, storage, 3, strategy="llm", seed=2, simulator=simulator)
    assert all(r.completed for r in sims) and all(r.completed for r in humans)
    simulated = {r["participant"] for r in storage.records(kind="simulated")}
    assert simulated == {r.token for r in sims}
    [mark] = [r for r in storage.records(kind="simulated") if r["participant"] == sims[0].token]
    assert mark["by"] == "llm" and mark["model"] == "stub-user" and PERSONA not in repr(mark)
    persona_calls = [r for r in stub.requests if PERSONA in r["messages"][0]["content"]]
    assert persona_calls and any(m["role"] == "user" for r in persona_calls for m in r["messages"][1:])
    ends = [r for r in storage.records(kind="chat_end") if r["participant"] in simulated]
    assert {r["ended_by"] for r in ends} == {"satisfied"}
    votes = [r for r in storage.records(kind="chat_vote") if r["participant"] in simulated]
    assert len(votes) == 3 and all(v["choice"] == "A" for v in votes)
    # Left out of human results unless asked for …
    t = StudyResults(study, storage.records(study=study.id)).tables
    assert len(t.votes) == 4 and not set(t.participants["participant"]) & simulated
    assert len(StudyResults(study, storage.records(study=study.id), include_simulated=True).tables.votes) == 7
    # … and compared with them.
    cmp = simulated_vs_human(storage.records(study=study.id))
    assert cmp["simulated"]["participants"] == 3 and cmp["human"]["participants"] == 4
    assert all(rate == 1.0 for rate in cmp["simulated"]["satisfaction_rate"].values())
    assert "Simulated participants vs humans" in render_markdown(cmp)
    # The dashboard's funnel counts people only: 4 completed, not 7 (the simulated ones are shown apart).
    progress = funnel.progress_from_store(storage, study.id)
    assert {p for p, s in progress.items() if s.simulated} == simulated
    counts = funnel.stage_counts(progress, datetime.now(UTC))
    assert counts["completed"] == 4 and counts["consented"] == 4
    assert not set(funnel.progress_table(progress, datetime.now(UTC))["participant"]) & simulated


@pytest.mark.slow  # 1.7 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_tinydb_store_summary_marks_simulated_participants_apart(tmp_path, monkeypatch):
    """TinyDB keeps per-participant summary files: the mark must reach them, and survive a reopen."""
    monkeypatch.setenv(KEY_ENV, "sk-sim-test-0002")
    with serve_openai(rule=rule) as stub:
        study = load_study(endpoint_live_study(tmp_path / "study", stub.url))
        storage = open_storage(f"tinydb://{tmp_path / 'db'}")
        run_bots(study, storage, 2, strategy="attentive", seed=1)
        simulator = (LLMClient("sim", Endpoint(base_url=stub.url, model="stub-user")), PERSONA)
        sims = run_bots(study, storage, 1, strategy="llm", seed=2, simulator=simulator)
    reopened = open_storage(f"tinydb://{tmp_path / 'db'}")
    progress = funnel.progress_from_store(reopened, study.id)
    assert [p for p, s in progress.items() if s.simulated] == [sims[0].token]
    assert funnel.stage_counts(progress, datetime.now(UTC))["completed"] == 2


@pytest.mark.slow  # 4.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_bots_command_plays_llm_participants_and_prints_the_comparison(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(KEY_ENV, "sk-sim-test-0002")
    persona = tmp_path / "sam.txt"
    persona.write_text(PERSONA, encoding="utf-8")
    with serve_openai(rule=rule) as stub:
        folder = endpoint_live_study(tmp_path / "study", stub.url)
        db = str(tmp_path / "db")
        assert main(["bots", str(folder), "--db", db, "-n", "8", "--strategy", "attentive"]) == 0
        assert (
            main(
                [
                    "bots",
                    str(folder),
                    "--db",
                    db,
                    "-n",
                    "2",
                    "--strategy",
                    "llm",
                    "--endpoint",
                    "stub",
                    "--persona",
                    str(persona),
                ]
            )
            == 0
        )
    out = capsys.readouterr().out
    assert "2 simulated and 8 human participants" in out
    storage = open_storage(db)
    assert len(storage.records(kind="simulated")) == 2
    cmp = simulated_vs_human(storage.records())
    storage.close()
    assert cmp["simulated"]["participants"] == 2 and cmp["human"]["participants"] == 8
    assert main(["bots", str(folder), "--db", db, "-n", "1", "--strategy", "llm"]) == 2
