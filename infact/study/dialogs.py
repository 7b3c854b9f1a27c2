"""Dialog-level comparison data (ACUTE-style): every system's whole conversation per dialog.

A dialog-level study (`[protocol] kind = "pairwise_dialog"`) names dialogs files in
`study.situations` instead of situations files. A dialogs file is JSON Lines, one dialog per
line, written by `python -m infact import conversations` from one JSONL per system:

    {"dialog_id": "ac-03", "topic": "a film for a rainy Sunday",
     "conversations": {"Marquee": [{"role": "user", "text": "…"}, {"role": "bot", "text": "…"}, …],
                       "Popcorn": [{"role": "user", "text": "…"}, …]},
     "source": {"Marquee": {"file": "marquee.jsonl", "line": 3}}}

Conversations on one line are the ones compared with each other: they share a `dialog_id`,
which stands for ACUTE-Eval's "same seed" (the same opening message, topic or persona given to
every system). Pairing by dialog_id rather than by any two conversations keeps the comparison
about the systems, not about which user happened to talk to them.

Each line becomes a `Situation` whose situation_id and dialog_id are the dialog_id, with no
context, the `conversations` per system and, as each system's `responses` text, its bot turns
joined by newlines (what the style covariates — length, items — measure). So the balanced
assignment, the pair schedule, coverage, the attention check and pairwise.csv work unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from infact.errors import Problem
from infact.fileio import atomic_write_text
from infact.study.situations import ROLES, Situation, Turn, read_situations

DIALOGS_FILE = "dialogs.jsonl"


def parse_turns(value: Any) -> tuple[tuple[Turn, ...], str | None]:
    """The turns of one conversation, or None and what is wrong with them."""
    if not isinstance(value, list) or not value:
        return (), 'must be a non-empty list of {"role": "user" or "bot", "text": "..."}'
    turns = []
    for i, t in enumerate(value):
        if (
            not isinstance(t, dict)
            or t.get("role") not in ROLES
            or not isinstance(t.get("text"), str)
            or not t["text"].strip()
        ):
            return (), f'turn {i} must be {{"role": "user" or "bot", "text": a non-empty string}}'
        turns.append(Turn(t["role"], t["text"]))
    if not any(t.role == "bot" for t in turns):
        return (), "has no bot turn: there is nothing of the system's to judge"
    return tuple(turns), None


def bot_text(turns: Iterable[Turn]) -> str:
    """The system's side of a conversation as one text (style covariates, exports)."""
    return "\n".join(t.text for t in turns if t.role == "bot")


def parse_dialog(obj: Any, file: str, line: int) -> tuple[Situation | None, list[Problem]]:
    problems: list[Problem] = []
    if not isinstance(obj, dict):
        return None, [
            Problem(
                file,
                'expected a JSON object per line: {"dialog_id": ..., "conversations": '
                "{system: [turns]}} (write it with `python -m infact import conversations`)",
                line,
            )
        ]
    if "conversations" not in obj and "responses" in obj:
        return None, [
            Problem(
                file,
                "this is a situations line (one response per system), not a dialog: a "
                "pairwise_dialog study needs a dialogs file from `python -m infact import "
                'conversations`; for responses set [protocol] kind = "pairwise"',
                line,
            )
        ]
    did = obj.get("dialog_id")
    if not isinstance(did, str) or not did.strip():
        problems.append(Problem(file, "missing or empty 'dialog_id' (a unique string)", line, "dialog_id"))
    convs = obj.get("conversations")
    conversations: dict[str, tuple[Turn, ...]] = {}
    if not isinstance(convs, dict) or not convs:
        problems.append(
            Problem(
                file,
                "'conversations' must be an object {system name: [turns]} with at least one system",
                line,
                "conversations",
            )
        )
    else:
        for system, value in convs.items():
            turns, why = parse_turns(value)
            if why:
                problems.append(Problem(file, f"conversation of system '{system}' {why}", line, "conversations"))
            else:
                conversations[system] = turns
    topic = obj.get("topic", "")
    if not isinstance(topic, str):
        problems.append(Problem(file, "'topic' must be a string (shown above the conversations)", line, "topic"))
    for key in ("source", "meta"):
        if key in obj and not isinstance(obj[key], dict):
            problems.append(Problem(file, f"'{key}' must be an object", line, key))
    if problems:
        return None, problems
    return Situation(
        situation_id=did,
        dialog_id=did,
        context=(),
        responses={s: bot_text(t) for s, t in conversations.items()},
        source=dict(obj.get("source") or {}),
        meta={**(obj.get("meta") or {}), "topic": topic},
        conversations=conversations,
    ), []


def read_dialogs(paths: Iterable[str | Path]) -> tuple[list[Situation], list[Problem]]:
    """Every dialog of the files as a Situation, collecting all problems (as read_situations does)."""
    return read_situations(
        paths,
        parse_dialog,
        id_key="dialog_id",
        expected="one dialog (a JSON object) per line",
        missing="run `python -m infact import conversations`",
    )


def jsonl_kind(path: Path) -> str:
    """`dialogs`, `gold_pairs` (onboarding) or `situations`, from a .jsonl file's first line, so `validate`
    reads each file as what it is even when study.toml is too broken to say. Only regular files are
    opened (never a FIFO or a device); anything unreadable counts as situations and is reported as such."""
    try:
        if not path.is_file():
            return "situations"
        with open(path, "rb") as f:
            first = next((line for line in f if line.strip()), b"")
        obj = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return "situations"
    if isinstance(obj, dict) and "conversations" in obj:
        return "dialogs"
    return "gold_pairs" if isinstance(obj, dict) and {"a", "b", "answer"} <= obj.keys() else "situations"


def dialog_dict(dialog: Situation) -> dict:
    meta = {k: v for k, v in dialog.meta.items() if k != "topic"}
    return {
        "dialog_id": dialog.dialog_id,
        "topic": dialog.meta.get("topic", ""),
        "conversations": {s: [t.to_dict() for t in turns] for s, turns in dialog.conversations.items()},
        "source": dict(dialog.source),
        **({"meta": meta} if meta else {}),
    }


def write_dialogs(path: str | Path, dialogs: Iterable[Situation]) -> None:
    atomic_write_text(path, "".join(json.dumps(dialog_dict(d), ensure_ascii=False) + "\n" for d in dialogs))
