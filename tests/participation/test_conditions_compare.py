"""Between-subjects conditions with comparisons and live chats (issue 41 item 2): pairs (pairwise), sets
(best–worst) and the live arena's pairs are balanced within each condition, as situations are, and every live
chat record and table carries the condition.

Each study below gives its first condition fewer systems than the second: were pairs and sets balanced over the
whole study, the second condition's first participants would get only the pairs (sets) with the system the first
condition lacks, and its other pairs none.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import combinations

from infact.chat.arena import LiveRun
from infact.participation.bots import Bot
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.paths import REPO
from tests.support.studies import copy_study

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _with_conditions(tmp_path, demo: str, fewer: list[str] | None, edits: dict | None = None):
    """`demo` with conditions `few` (only the systems `fewer`) and `all` (every system, its own instructions)."""
    folder = copy_study(REPO / "data" / demo, tmp_path / demo, edits)
    text = (folder / "study.toml").read_text()
    few = (
        f"[conditions.few.study]\nsystems = {json.dumps(fewer)}"
        if fewer
        else '[conditions.few.texts]\ninstructions = "Chat."'
    )
    text += f'\n{few}\n\n[conditions.all.texts]\ninstructions = "Compare the responses of every chatbot."\n'
    (folder / "study.toml").write_text(text)
    return load_study(folder)


def _play(study, storage, condition: str, n: int, seed: int, start: datetime) -> None:
    for i in range(n):
        bot = Bot(
            study, storage, "attentive", seed=seed + i, start=start + timedelta(minutes=i), query={"q": condition}
        )
        assert bot.run().outcome == "completed"


def _of(storage, study, kind: str, condition: str) -> list[dict]:
    return [
        r
        for r in storage.records(study=study.id, kind=kind)
        if r.get("condition") == condition and not r.get("attention_check")
    ]


def _shown(record: dict) -> list[str]:
    return [x["system"] for x in record["responses"]]


def _pair(record: dict) -> tuple[str, ...]:
    return tuple(sorted(_shown(record)))


def test_pairwise_pairs_are_balanced_within_each_condition(tmp_path):
    study = _with_conditions(tmp_path, "demo-pairwise", ["Marquee", "Popcorn", "Trailer"])
    storage = MemoryStorage()
    _play(study, storage, "few", 3, seed=1, start=T0)
    _play(study, storage, "all", 3, seed=10, start=T0 + timedelta(hours=1))
    few = Counter(_pair(r) for r in _of(storage, study, "pairwise", "few"))
    assert set(few) == {tuple(sorted(p)) for p in combinations(["Marquee", "Popcorn", "Trailer"], 2)}
    every = Counter(_pair(r) for r in _of(storage, study, "pairwise", "all"))
    assert set(every) == {tuple(sorted(p)) for p in combinations(study.systems, 2)}, every
    assert max(every.values()) - min(every.values()) <= 1, every


def test_best_worst_sets_are_balanced_within_each_condition(tmp_path):
    study = _with_conditions(
        tmp_path, "demo-best-worst", ["Shelf", "Margin", "Blurb"], {"set_size = 4": "set_size = 3"}
    )
    storage = MemoryStorage()
    _play(study, storage, "few", 3, seed=1, start=T0)
    _play(study, storage, "all", 3, seed=10, start=T0 + timedelta(hours=1))
    shown = Counter(s for r in _of(storage, study, "best_worst", "all") for s in _shown(r))
    assert set(shown) == set(study.systems)
    assert max(shown.values()) - min(shown.values()) <= 1, shown


def _live_study(tmp_path):
    """The live demo with two conditions (the live systems are the study's own: both conditions meet all three)."""
    return _with_conditions(tmp_path, "demo-live", None)


def test_the_live_arena_balances_its_pairs_within_each_condition(tmp_path):
    study = _live_study(tmp_path)
    storage = MemoryStorage()
    for i in range(3):  # condition `few`'s participants all chatted with the same pair
        storage.append(
            {
                "key": f"{study.id}/f{i}/chat/assignment",
                "study": study.id,
                "participant": f"f{i}",
                "kind": "chat_assignment",
                "at": T0.isoformat(),
                "preview": False,
                "condition": "few",
                "systems": ["GenreBot", "RetrievalBot"],
            }
        )
    pairs = [tuple(sorted(LiveRun(study, storage, {}, f"a{i}", condition="all").systems())) for i in range(3)]
    assert sorted(pairs) == sorted(tuple(sorted(p)) for p in combinations(study.systems, 2))
    assert all(r["condition"] == "all" for r in storage.records(study=study.id) if r["participant"].startswith("a"))


def test_every_live_chat_record_and_table_carries_the_condition(tmp_path):
    study = _live_study(tmp_path)
    storage = MemoryStorage()
    _play(study, storage, "few", 2, seed=1, start=T0)
    _play(study, storage, "all", 2, seed=10, start=T0 + timedelta(hours=1))
    records = storage.records(study=study.id)
    chat = [r for r in records if r["kind"].startswith("chat_") or r["kind"] == "live"]
    assert {r["kind"] for r in chat} >= {"chat_assignment", "chat_message", "chat_end", "chat_vote", "live"}
    arrived = {r["participant"]: r["condition"] for r in records if r["kind"] == "arrival"}
    assert all(r.get("condition") == arrived[r["participant"]] for r in chat), [r for r in chat if "condition" not in r]
    results = StudyResults(study, records)
    for name, frame in results.tables.as_dict().items():
        if "participant" in frame.columns and len(frame):
            assert (frame["condition"] == frame["participant"].map(arrived)).all(), name
    transcripts = [json.loads(line) for line in results.files()["transcripts.jsonl"].decode().splitlines()]
    assert len(transcripts) == 8
    assert all(t["condition"] == arrived[t["participant"]] for t in transcripts)
    arena = results.live_overview()["arena"]  # the arena's votes ranked per condition too (dashboard, analyze)
    assert set(arena["conditions"]["conditions"]) == {"few", "all"}, arena.get("problem")
