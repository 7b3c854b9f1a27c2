"""Bots play a live study through the real Flow: they chat, rate, vote and complete."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.participation.steps.live import UNFINISHED
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import submit_consent

DEMO_LIVE = Path(__file__).resolve().parents[2] / "data" / "demo-live"


def test_bots_chat_through_a_live_study_and_complete():
    study = load_study(DEMO_LIVE)
    storage = MemoryStorage()
    results = run_bots(study, storage, 9, concurrency=3, seed=4)
    assert all(r.completed for r in results if r.strategy != "abandons")
    done = [r for r in results if r.completed]
    votes = storage.records(kind="chat_vote")
    steps = storage.records(kind="live")
    assert len(votes) == len(steps) == len(done)
    assert all(
        s["winner"] == v["winner"]
        for s, v in zip(sorted(steps, key=lambda r: r["participant"]), sorted(votes, key=lambda r: r["participant"]))
    )
    # The chat time is spent on the bot's own clock: message timestamps move forward (a reply comes at the
    # instant of its message on that clock, and one exchange per chat is a satisfied bot's whole chat).
    for bot in done:
        ats = [r["at"] for r in storage.records(kind="chat_message") if r["participant"] == bot.token]
        assert ats == sorted(ats) and len(set(ats)) >= 2, ats
        spent = datetime.fromisoformat(ats[-1]) - datetime.fromisoformat(ats[0])
        assert spent >= timedelta(seconds=5), ats  # simulated reading and typing, not the real seconds
    t = StudyResults(study, storage.records(study=study.id)).tables
    assert len(t.transcripts) == 2 * len(done) and len(t.votes) == len(done)
    assert {c["ended_by"] for c in t.transcripts} <= {"satisfied", "frustrated", "max_turns", "skipped"}


def test_the_live_page_cannot_be_submitted_before_the_chats_are_done():
    study = load_study(DEMO_LIVE)
    storage = MemoryStorage()
    flow = Flow(study, storage)
    token = flow.arrive({})
    submit_consent(flow, token)
    st = flow.state(token)
    while flow.current(st).kind == "situation":
        step = flow.current(st)
        labels = study.config.scale.labels
        answers = {s: {"meaningful": "Meaningless" if step.attention_check else labels[3]} for s in step.order}
        assert flow.submit(token, step.name, {"ratings": answers}).ok
        st = flow.state(token)
    assert flow.current(st).kind == "live"
    result = flow.submit(token, "live", {})
    assert not result.ok and result.errors == (UNFINISHED,)


@pytest.mark.slow  # a simulated crowd of bots
def test_arena_votes_rank_the_planted_quality_blind():
    from infact.results.live.analysis import render_markdown
    from infact.results.live.overview import arena_ranking

    study = load_study(DEMO_LIVE)
    storage = MemoryStorage()
    run_bots(study, storage, 24, strategy="attentive", concurrency=4, seed=7)
    t = StudyResults(study, storage.records(study=study.id)).tables
    assert {"length_a", "items_b"} <= set(t.votes.columns) and (t.votes["length_a"] > 0).all()
    arena = arena_ranking(t.votes)
    assert arena["ranked_votes"] == 24 and arena["identity_leak_votes_left_out"] == 0
    assert arena["ranking"][0]["system"] == "GenreBot"  # the good system wins the arena
    leaked = t.votes.assign(identity_leak=[True] + [False] * (len(t.votes) - 1))
    assert arena_ranking(leaked)["ranked_votes"] == 23
    assert "| 1 | GenreBot |" in render_markdown({"conversations": 0, "systems": {}, "arena": arena})
