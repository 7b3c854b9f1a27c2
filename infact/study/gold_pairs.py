"""Gold pairs for a pairwise study's onboarding (`[protocol] onboarding = "gold.jsonl"`), read and checked.

Read at load like the situations, so a bad line is refused before anyone takes part; the onboarding
step (infact/participation/steps/onboarding.py) shows them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.study.dialogs import parse_turns
from infact.study.situations import json_lines

ANSWERS = ("A", "B")


def read_gold_pairs(folder: Path, file: str) -> tuple[dict, ...]:
    """The checked gold pairs; DatasetError naming file, line and key for every problem."""
    path = Path(folder) / file
    if not path.is_file():
        raise DatasetError(
            Problem(
                str(path),
                "onboarding file not found; create it (one gold pair per line) or remove `onboarding` from [protocol].",
                key="protocol.onboarding",
            )
        )
    return _read(str(path), path.stat().st_mtime)


@lru_cache(maxsize=16)
def _read(path: str, mtime: float) -> tuple[dict, ...]:
    rows, problems = json_lines(Path(path).read_text(encoding="utf-8"), path, "one gold pair (a JSON object) per line")
    pairs = []
    for line, obj in rows:
        if not isinstance(obj, dict):
            problems.append(Problem(path, "a gold pair is a JSON object with context, a, b, answer", line))
            continue
        if isinstance(obj.get("a"), list) or isinstance(obj.get("b"), list):
            problems.extend(_conversation_pair_problems(obj, path, line))
        else:
            problems.extend(_response_pair_problems(obj, path, line))
        if obj.get("answer") not in ANSWERS:
            problems.append(Problem(path, f'answer must be "A" or "B", not {obj.get("answer")!r}', line, "answer"))
        pairs.append(obj)
    if not rows:
        problems.append(Problem(path, "no gold pairs: add at least one line", key="protocol.onboarding"))
    if problems:
        raise DatasetError(problems)
    return tuple(pairs)


def _response_pair_problems(obj: dict, path: str, line: int) -> list[Problem]:
    """A response-level gold pair: a context ending with a user turn and two response texts."""
    problems = []
    context = obj.get("context")
    if not (
        isinstance(context, list)
        and context
        and all(
            isinstance(t, dict) and t.get("role") in ("user", "bot") and isinstance(t.get("text"), str) for t in context
        )
    ):
        problems.append(Problem(path, "context must be a list of {role: user|bot, text}", line, "context"))
    elif context[-1]["role"] != "user":
        problems.append(Problem(path, "context must end with a user turn", line, "context"))
    for key in ("a", "b"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            problems.append(Problem(path, f"'{key}' must be the text of a response", line, key))
    return problems


def _conversation_pair_problems(obj: dict, path: str, line: int) -> list[Problem]:
    """A dialog-level gold pair (pairwise_dialog): `a` and `b` are whole conversations, `topic` optional."""
    problems = []
    for key in ("a", "b"):
        why = parse_turns(obj.get(key))[1]
        if why:
            problems.append(
                Problem(path, f"'{key}' is a conversation here (the other one is a list of turns) and {why}", line, key)
            )
    if not isinstance(obj.get("topic", ""), str):
        problems.append(Problem(path, "'topic' must be a string", line, "topic"))
    return problems
