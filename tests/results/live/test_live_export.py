"""Live chats exported (transcripts.jsonl, pairwise.csv, rubric in ratings.csv), read back and analysed."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from infact.chat.arena import LiveRun
from infact.chat.bot import ChattingBot
from infact.chat.client import connect_all
from infact.chat.transcripts import read_transcripts
from infact.errors import DatasetError
from infact.results.export import export_bytes, write_exports
from infact.results.live.analysis import first_accepted_turn, live_summary, wilson
from infact.results.study_results import StudyResults, open_results
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.studies import make_study

DEMO = "infact.chat.demo_systems:"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """20 chatting bots over three demo systems of planted quality (good, fair, poor)."""
    live = {
        "max_turns": 4,
        "systems": {
            "GenreBot": {"callable": DEMO + "genre_recommender"},
            "RetrievalBot": {"callable": DEMO + "retrieval_bot"},
            "PopBot": {"callable": DEMO + "popular_recommender"},
        },
    }
    study = load_study(
        make_study(tmp_path_factory.mktemp("s"), systems=("GenreBot", "RetrievalBot", "PopBot"), live=live)
    )
    storage = MemoryStorage()
    clients = connect_all(study.config.live.systems)
    for i in range(20):
        ChattingBot(LiveRun(study, storage, clients, f"bot{i:02d}"), random.Random(i)).play()
    preview = LiveRun(study, storage, clients, "preview1", preview=True)
    ChattingBot(preview, random.Random(99)).play()
    return study, storage


def test_export_files_hold_every_chat_vote_and_rubric(played, tmp_path):
    study, storage = played
    written = {p.name for p in write_exports(open_results(study, storage), tmp_path / "x")}
    assert {"transcripts.jsonl", "pairwise.csv", "ratings.csv"} <= written
    convs = read_transcripts(tmp_path / "x" / "transcripts.jsonl")
    assert len(convs) == 40  # 20 bots x 2 chats; the preview is left out
    stored_messages = sum(1 for r in storage.records() if r["kind"] == "chat_message" and not r["preview"])
    assert sum(len(c["turns"]) for c in convs) == stored_messages
    first = convs[0]
    assert set(first["turns"][0]) >= {"role", "text", "items", "latency_ms", "error"}
    assert first["ended_by"] in ("satisfied", "frustrated", "max_turns")
    votes = pd.read_csv(tmp_path / "x" / "pairwise.csv")
    assert len(votes) == 20 and set(votes["winner"]) <= {"GenreBot", "RetrievalBot", "PopBot", "tie"}
    assert (votes["shown_left"] == votes["system_a"]).all() and not votes["identity_leak"].any()
    ratings = pd.read_csv(tmp_path / "x" / "ratings.csv")
    rubric = ratings[ratings["situation_id"].str.contains("-[AB]$")]
    assert len(rubric) == 40 * len(study.config.live.rubric)
    assert set(rubric["criterion"]) == {i.id for i in study.config.live.rubric}


def test_votes_and_satisfaction_follow_the_planted_quality(played):
    study, storage = played
    t = StudyResults(study, storage.records(study=study.id)).tables
    wins = t.votes["winner"].value_counts()
    assert wins.get("GenreBot", 0) > wins.get("PopBot", 0)
    summary = live_summary(t.transcripts)["systems"]
    assert summary["GenreBot"]["satisfaction_rate"] > summary["PopBot"]["satisfaction_rate"]
    assert summary["GenreBot"]["latency_ms"]["n"] > 0 and summary["GenreBot"]["failure_rate"] == 0
    assert summary["GenreBot"]["turns_to_first_accepted"]["mean"] >= 1


def test_non_live_study_exports_no_live_files(tmp_path):
    study = load_study(make_study(tmp_path))
    files = export_bytes(StudyResults(study, []).tables, study.systems)
    assert "transcripts.jsonl" not in files and "pairwise.csv" not in files


def test_reader_reports_bad_lines_with_numbers(tmp_path):
    good = {
        "participant": "p",
        "system": "S",
        "conversation_id": "c",
        "ended_by": None,
        "satisfaction": None,
        "flags": [],
        "turns": [{"role": "user", "text": "hi"}],
    }
    path = tmp_path / "t.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(good),
                "{not json",
                json.dumps({**good, "ended_by": "bored"}),
                json.dumps({**good, "turns": [{"role": "bot", "text": "x"}]}),
                json.dumps({"participant": "p"}),
            ]
        )
        + "\n"
    )
    with pytest.raises(DatasetError) as exc:
        read_transcripts(path)
    lines = [(p.line, p.message) for p in exc.value.problems]
    assert [n for n, _ in lines] == [2, 3, 4, 5]
    assert "bored" in lines[1][1] and "turn 1" in lines[2][1] and "missing field(s)" in lines[3][1]


def test_first_accepted_turn_rules():
    def answer(turn, items):
        return {"role": "assistant", "turn": turn, "items": items, "error": None, "text": "x"}

    turns = [answer(1, []), answer(2, ["X (2000)"]), answer(3, ["Y (2001)"])]
    assert first_accepted_turn({"turns": turns, "turn_ratings": {"2": False, "3": True}}) == 3
    assert first_accepted_turn({"turns": turns, "turn_ratings": {}, "ended_by": "satisfied"}) == 3
    assert first_accepted_turn({"turns": turns, "turn_ratings": {}, "ended_by": "frustrated"}) is None
    assert wilson(0, 0) is None and wilson(10, 10)[1] == 1.0 and 0.6 < wilson(10, 10)[0] < 0.8


@pytest.mark.slow  # 3.3 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_analyze_cli_on_transcripts_and_on_a_live_store(played, tmp_path, capsys):
    from infact.cli.main import main
    from infact.storage import TinyDBStorage

    study, storage = played
    write_exports(open_results(study, storage), tmp_path / "x")
    assert main(["analyze", str(tmp_path / "x" / "transcripts.jsonl"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["live"]["conversations"] == 40 and set(out["live"]["systems"]) == set(study.systems)
    assert main(["analyze", str(tmp_path / "x" / "transcripts.jsonl")]) == 0
    assert "| GenreBot |" in capsys.readouterr().out
    db = TinyDBStorage(tmp_path / "db")
    for r in storage.records():
        db.append(r)
    assert (
        main(
            [
                "analyze",
                "--study",
                str(study.folder),
                "--db",
                str(tmp_path / "db"),
                "--json",
                "--no-mixed-model",
                "--n-boot",
                "100",
                "--include-flagged",
                "--include-bots",  # the crowd is bots (left out by default)
            ]
        )
        == 0
    )  # bots here never reach a completion page
    result = json.loads(capsys.readouterr().out)
    assert result["live"]["systems"]["GenreBot"] == out["live"]["systems"]["GenreBot"]
    (tmp_path / "bad.jsonl").write_text("{}\n")
    assert main(["analyze", str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
