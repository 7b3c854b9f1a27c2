"""transcripts.jsonl read back: live chats become situations of one system's answers."""

from __future__ import annotations

import json

import pytest

from infact.errors import DatasetError
from infact.importers.transcripts import import_transcripts
from infact.study.situations import read_situations


def turn(role, text, error=None, items=()):
    return {"role": role, "text": text, "items": list(items), "latency_ms": None if error else 120.0, "error": error}


def conv(cid, system, turns, ended_by="satisfied"):
    return {
        "participant": cid.split("-")[0],
        "system": system,
        "conversation_id": cid,
        "turns": turns,
        "ended_by": ended_by,
        "satisfaction": ended_by == "satisfied",
        "flags": [],
    }


CHAT = conv(
    "p1-A",
    "GenreBot",
    [
        turn("user", "something scary"),
        turn("assistant", "", error={"kind": "timeout", "detail": "x"}),  # failed attempt: left out
        turn("assistant", 'Try "The Others (2001)".', items=["The Others (2001)"]),
        turn("user", "seen it"),
        turn("assistant", 'Then "The Babadook (2014)".', items=["The Babadook (2014)"]),
        turn("user", "thanks!"),  # never answered: no situation
    ],
)


def write(tmp_path, lines) -> str:
    path = tmp_path / "transcripts.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return str(path)


def test_each_answered_message_becomes_a_situation(tmp_path):
    path = write(
        tmp_path, [CHAT, "{broken", conv("p2-B", "PopBot", [turn("user", "hi"), turn("assistant", "Watch Up.")])]
    )
    report = import_transcripts(path, tmp_path / "study", system="GenreBot")
    assert report.counts == {"conversations": 1, "situations": 2, "lines_skipped": 1}
    assert report.problems[0].line == 2
    situations, problems = read_situations([tmp_path / "study" / "situations.jsonl"])
    assert not problems and [s.situation_id for s in situations] == ["p1-A-t1", "p1-A-t3"]
    second = situations[1]
    assert [t.role for t in second.context] == ["user", "bot", "user"]
    assert second.context[1].text == 'Try "The Others (2001)".'
    assert second.responses == {"GenreBot": 'Then "The Babadook (2014)".'}
    assert second.source["items"] == ["The Babadook (2014)"] and second.meta["ended_by"] == "satisfied"
    assert (tmp_path / "study" / "study.toml").exists()


def test_several_systems_need_a_choice_and_an_unknown_one_is_named(tmp_path):
    path = write(tmp_path, [CHAT, conv("p2-B", "PopBot", [turn("user", "hi"), turn("assistant", "Watch Up.")])])
    with pytest.raises(DatasetError, match="GenreBot, PopBot; a situation shows one system"):
        import_transcripts(path, tmp_path / "out")
    with pytest.raises(DatasetError, match="no chat with system 'KBRD'"):
        import_transcripts(path, tmp_path / "out", system="KBRD")
    assert not (tmp_path / "out").exists()
