"""Conversation-study data: one system's whole conversation is the unit an annotator judges.

`[protocol] kind = "conversation"` names conversations files in `study.situations`: JSON Lines, one
conversation per line, one file per system as `python -m infact import crs-arena` writes them
(`conversations/<system>.jsonl`):

    {"conversation_id": "marquee_demo_01", "dialog_id": "u01", "system": "Marquee",
     "turns": [{"role": "user", "text": "…"}, {"role": "bot", "text": "…"}, …],
     "topic": "a film for a rainy Sunday", "items": ["Heat (1995)"], "dataset": "demo"}

`system` defaults to the file's name (`Marquee.jsonl` → Marquee), `conversation_id` to
`<system>-<dialog_id>`. Each conversation becomes a `Situation` whose situation_id is the
conversation id and whose only response is its system's bot turns, so the balanced assignment, the
leases and coverage work unchanged (ratings_per_situation = annotations per conversation).

Gold conversations (`[protocol] gold = "gold.jsonl"`) are the same lines plus the answers a careful
reader gives: `"expected": {"turns": {"<turn_ind>": {aspect: value}}, "dialogue": {aspect: value}}`,
where turn_ind is the 0-based position in the conversation (user turns counted, as in CRSArena-Eval).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from infact.errors import DatasetError, Problem
from infact.study.dialogs import bot_text, parse_turns
from infact.study.situations import Situation, json_lines, read_situations


def dataset_of(conversation_id: str) -> str:
    """CRS Arena ids are `<model>_<dataset>_<hash>` (`barcor_redial_…` → `redial`); others have none."""
    parts = str(conversation_id).split("_")
    return parts[1] if len(parts) >= 3 else ""


def _system_of(obj: dict, file: str) -> str:
    system = obj.get("system")
    return system.strip() if isinstance(system, str) and system.strip() else Path(file).stem


def parse_conversation(obj: Any, file: str, line: int) -> tuple[Situation | None, list[Problem]]:
    if not isinstance(obj, dict):
        return None, [Problem(file, 'expected a JSON object per line: {"dialog_id": …, "turns": [...]}', line)]
    problems = []
    did = obj.get("dialog_id")
    did = str(did).strip() if isinstance(did, (str, int)) and not isinstance(did, bool) else ""
    if not did:
        problems.append(
            Problem(file, "missing 'dialog_id' (e.g. the user who had the conversation)", line, "dialog_id")
        )
    turns, why = parse_turns(obj.get("turns"))
    if why:
        problems.append(Problem(file, f"'turns' {why}", line, "turns"))
    items = obj.get("items", [])
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        problems.append(Problem(file, "'items' must be a list of item names (highlighted when quoted)", line, "items"))
    if problems:
        return None, problems
    system = _system_of(obj, file)
    cid = str(obj.get("conversation_id") or f"{system}-{did}")
    dataset = obj.get("dataset") if isinstance(obj.get("dataset"), str) else dataset_of(cid)
    meta = {"system": system, "topic": obj.get("topic") or "", "items": list(items), "dataset": dataset}
    return Situation(
        situation_id=cid,
        dialog_id=did,
        context=(),
        responses={system: bot_text(turns)},
        source={"file": Path(file).name, "line": line},
        meta=meta,
        conversations={system: turns},
    ), []


def read_conversations(paths: Iterable[str | Path]) -> tuple[list[Situation], list[Problem]]:
    return read_situations(
        paths,
        parse_conversation,
        id_key="conversation_id",
        expected="one conversation (a JSON object) per line",
        missing="run `python -m infact import crs-arena` or write one file per system",
    )


def system_of(conversation: Situation) -> str:
    return conversation.meta.get("system") or next(iter(conversation.conversations))


def turns_of(conversation: Situation) -> list[dict]:
    """The turns with their 0-based turn_ind, as the page shows them and the record stores them."""
    return [{"turn_ind": i, **t.to_dict()} for i, t in enumerate(conversation.conversations[system_of(conversation)])]


def system_turns(conversation: Situation) -> list[int]:
    return [t["turn_ind"] for t in turns_of(conversation) if t["role"] == "bot"]


def read_gold(folder: str | Path, file: str, aspects) -> tuple[tuple[Situation, dict], ...]:
    """The gold conversations with their expected answers; DatasetError naming file, line and key."""
    path = Path(folder) / file
    if not path.is_file():
        raise DatasetError(
            Problem(
                str(path),
                "gold file not found; create it (one gold conversation per line with "
                "'expected' answers) or remove `gold` from [protocol].",
                key="protocol.gold",
            )
        )
    return _read_gold(str(path), path.stat().st_mtime, json.dumps([a.model_dump() for a in aspects]))


@lru_cache(maxsize=16)
def _read_gold(path: str, mtime: float, aspects_json: str) -> tuple[tuple[Situation, dict], ...]:
    from infact.study.annotation.aspects import Aspect

    rows, problems = json_lines(Path(path).read_text(encoding="utf-8"), path, "one gold conversation per line")
    by_id = {a.id: a for a in (Aspect(**a) for a in json.loads(aspects_json))}
    out = []
    for line, obj in rows:
        conv, probs = parse_conversation(obj, path, line)
        problems += probs
        if conv is None:
            continue
        expected, probs = _expected(obj.get("expected"), conv, by_id, path, line)
        problems += probs
        out.append((conv, expected))
    if not rows:
        problems.append(Problem(path, "no gold conversations: add at least one line", key="protocol.gold"))
    if problems:
        raise DatasetError(problems)
    return tuple(out)


def _expected(raw: Any, conv: Situation, by_id: dict, path: str, line: int) -> tuple[dict, list[Problem]]:
    if not isinstance(raw, dict) or not (raw.get("turns") or raw.get("dialogue")):
        return {}, [
            Problem(
                path,
                '\'expected\' must be {"turns": {turn_ind: {aspect: value}}, "dialogue": '
                "{aspect: value}} with at least one answer",
                line,
                "expected",
            )
        ]
    problems: list[Problem] = []
    bot = set(system_turns(conv))

    def check(values: Any, level: str, where: str) -> dict:
        if not isinstance(values, dict):
            problems.append(Problem(path, f"{where} must be an object {{aspect: value}}", line, "expected"))
            return {}
        good = {}
        for aspect, value in values.items():
            a = by_id.get(aspect)
            if a is None or a.level != level:
                problems.append(
                    Problem(path, f"{where}: '{aspect}' is not a {level}-level aspect of [[aspects]]", line, "expected")
                )
            elif a.value_of(value) is None or isinstance(value, str):
                problems.append(
                    Problem(
                        path,
                        f"{where}: {aspect} = {value!r} is not a value of its scale ({a.lowest}–{a.highest})",
                        line,
                        "expected",
                    )
                )
            else:
                good[aspect] = int(value)
        return good

    turns = {}
    for key, values in (raw.get("turns") or {}).items():
        if not str(key).isdigit() or int(key) not in bot:
            problems.append(
                Problem(
                    path,
                    f"expected turn {key!r} is not a system turn (system turns: {sorted(bot)}; turn_ind is 0-based)",
                    line,
                    "expected",
                )
            )
            continue
        turns[str(int(key))] = check(values, "turn", f"turn {key}")
    return {"turns": turns, "dialogue": check(raw.get("dialogue") or {}, "dialogue", "dialogue")}, problems


def of_systems(
    conversations: list[Situation], systems: list[str], toml: str, has_files: bool
) -> tuple[list[Situation], list[Problem]]:
    """The conversations of the study's systems, and a note per other system found (left out)."""
    from infact.errors import ConfigError

    kept = [c for c in conversations if system_of(c) in systems]
    others: dict[str, int] = {}
    for c in conversations:
        if system_of(c) not in systems:
            others[system_of(c)] = others.get(system_of(c), 0) + 1
    notes = [
        Problem(
            toml, f"{n} conversation(s) of system '{s}' are left out: it is not in study.systems", key="study.systems"
        )
        for s, n in sorted(others.items())
    ]
    if not kept and has_files:
        raise ConfigError(
            Problem(
                toml,
                f"no conversation is of a system in study.systems {systems}; the files hold "
                f"{sorted(others)}. Fix the names in [study] systems.",
                key="study.systems",
            )
        )
    return kept, notes
