"""Dialog situations: the unit participants rate.

A situations file is JSON Lines, one situation per line:

    {"situation_id": "d01-t3", "dialog_id": "d01",
     "context": [{"role": "user", "text": "..."}, {"role": "bot", "text": "..."}, ...],
     "responses": {"KBRD": "...", "KGSF": "..."},
     "source": {"format": "redial", "file": "test.jsonl", "line": 12},
     "meta": {"turn": 3, "item_mentioned": true}}

`context` starts at the dialog's first utterance and ends with a `user` turn
(the seeker); `responses` holds each system's next utterance. `source` and `meta`
are free-form provenance. The dataset version is a hash of the files' content,
stored with every answer so results can always be traced to the exact data shown.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infact.errors import ConfigError, DatasetError, Problem
from infact.fileio import atomic_write_text, loads_json, read_input_text

ROLES = ("user", "bot")


@dataclass(frozen=True)
class Turn:
    role: str  # "user" (the seeker) or "bot" (the recommender / chatbot)
    text: str

    def to_dict(self) -> dict:
        return {"role": self.role, "text": self.text}


@dataclass(frozen=True)
class Situation:
    situation_id: str
    dialog_id: str
    context: tuple[Turn, ...]
    responses: dict[str, str]
    source: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    # Dialog-level (ACUTE-style) studies: each system's whole conversation (infact/study/dialogs.py).
    conversations: dict[str, tuple[Turn, ...]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "situation_id": self.situation_id,
            "dialog_id": self.dialog_id,
            "context": [t.to_dict() for t in self.context],
            "responses": dict(self.responses),
            "source": dict(self.source),
            "meta": dict(self.meta),
        }


def parse_situation(obj: Any, file: str, line: int) -> tuple[Situation | None, list[Problem]]:
    """Check one decoded JSON line; return the situation or the problems found."""
    problems: list[Problem] = []

    def bad(msg: str, key: str | None = None) -> None:
        problems.append(Problem(file, msg, line, key))

    if not isinstance(obj, dict):
        bad('expected a JSON object per line, e.g. {"situation_id": ..., "context": [...], "responses": {...}}')
        return None, problems
    if "conversations" in obj and "responses" not in obj:
        bad(
            'this is a dialogs line (whole conversations per system): set [protocol] kind = "pairwise_dialog" in '
            "study.toml to compare them, or import responses for a situations file"
        )
        return None, problems
    sid = obj.get("situation_id")
    if not isinstance(sid, str) or not sid.strip():
        bad("missing or empty 'situation_id' (a unique string)", "situation_id")
    did = obj.get("dialog_id", sid)
    if not isinstance(did, str) or not did.strip():
        bad("'dialog_id' must be a non-empty string", "dialog_id")
    ctx = obj.get("context")
    turns: list[Turn] = []
    if not isinstance(ctx, list) or not ctx:
        bad('\'context\' must be a non-empty list of {"role": "user"|"bot", "text": ...}', "context")
    else:
        for i, t in enumerate(ctx):
            if not isinstance(t, dict) or t.get("role") not in ROLES or not isinstance(t.get("text"), str):
                bad(f'context[{i}] must be {{"role": "user" or "bot", "text": "..."}}', "context")
                continue
            turns.append(Turn(t["role"], t["text"]))
        if turns and len(turns) == len(ctx) and turns[-1].role != "user":
            bad("the context must end with a 'user' turn: cut the dialog right after a seeker utterance", "context")
    resp = obj.get("responses")
    if not isinstance(resp, dict) or not resp:
        bad("'responses' must be an object {system name: response text} with at least one system", "responses")
    else:
        for name, text in resp.items():
            if not isinstance(text, str) or not text.strip():
                bad(f"response of system '{name}' is empty or not a string", "responses")
    for key in ("source", "meta"):
        if key in obj and not isinstance(obj[key], dict):
            bad(f"'{key}' must be an object", key)
    if problems:
        return None, problems
    return (
        Situation(
            situation_id=sid,
            dialog_id=did,
            context=tuple(turns),
            responses=dict(resp),
            source=dict(obj.get("source") or {}),
            meta=dict(obj.get("meta") or {}),
        ),
        [],
    )


def json_lines(text: str, file: str, expected: str) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """(line number, decoded value) for every non-blank line; invalid JSON becomes a Problem.

    `expected` says what a line should hold, e.g. "one JSON object per line".
    """
    rows: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            rows.append((lineno, loads_json(raw)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(file, f"invalid JSON ({exc.msg} at column {exc.colno}): {expected}", lineno))
    return rows, problems


def read_situations(
    paths: Iterable[str | Path],
    parse=parse_situation,
    *,
    id_key: str = "situation_id",
    expected: str = "one JSON object per line",
    missing: str = "run an import",
) -> tuple[list[Situation], list[Problem]]:
    """Read every file, collecting all problems instead of stopping at the first.

    `parse` turns one decoded line into a Situation (dialogs files: infact/study/dialogs.py),
    `id_key` is the line's unique id, `missing` the fix for a file that is not there."""
    situations: list[Situation] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path in paths:
        path = Path(path)
        name = str(path)
        if not path.exists():
            problems.append(Problem(name, f"file not found: check the 'situations' list in study.toml or {missing}"))
            continue
        try:
            text = read_input_text(path, encoding="utf-8")
        except DatasetError as exc:
            problems.extend(exc.problems)
            continue
        rows, bad = json_lines(text, name, expected)
        problems.extend(bad)
        for lineno, obj in rows:
            sit, probs = parse(obj, name, lineno)
            problems.extend(probs)
            if sit is None:
                continue
            if sit.situation_id in seen:
                problems.append(
                    Problem(
                        name,
                        f"duplicate {id_key} '{sit.situation_id}' (first at {seen[sit.situation_id]}): ids must be "
                        "unique",
                        lineno,
                        id_key,
                    )
                )
                continue
            seen[sit.situation_id] = f"{name}:{lineno}"
            situations.append(sit)
    problems.sort(key=lambda p: (p.file, p.line or 0))  # in file order, as a reader fixes them
    return situations, problems


def situation_paths(folder: str | Path, names: Iterable[str], toml: str = "study.toml") -> list[Path]:
    """The situations files named in study.toml, which must stay inside the study folder.

    A study folder is what gets shared and archived; a path outside it (absolute or
    climbing out with '..') would also let a study.toml read any file on the server.
    """
    folder = Path(folder)
    root = folder.resolve()
    paths, problems = [], []
    for name in names:
        path = folder / name
        try:
            inside = Path(name).is_absolute() is False and path.resolve().is_relative_to(root)
        except (OSError, RuntimeError):  # a symlink loop
            inside = False
        if not inside:
            problems.append(
                Problem(
                    toml,
                    f"situations file {name!r} is outside the study folder {folder}: copy it into "
                    "the folder and give its path relative to it",
                    key="study.situations",
                )
            )
        else:
            paths.append(path)
    if problems:
        raise ConfigError(problems)
    return paths


def load_situations(paths: Iterable[str | Path]) -> list[Situation]:
    situations, problems = read_situations(paths)
    if problems:
        raise DatasetError(problems)
    return situations


def dataset_version(paths: Iterable[str | Path]) -> str:
    """Content hash of the situations files (first 12 hex digits of SHA-256)."""
    h = hashlib.sha256()
    for path in paths:
        h.update(Path(path).name.encode())
        h.update(b"\0")
        h.update(Path(path).read_bytes())
    return h.hexdigest()[:12]


def dumps_situations(situations: Iterable[Situation]) -> str:
    return "".join(json.dumps(s.to_dict(), ensure_ascii=False) + "\n" for s in situations)


def write_situations(path: str | Path, situations: Iterable[Situation]) -> None:
    atomic_write_text(path, dumps_situations(situations))


# A system's version (the leaderboard ledger, infact/results/ranking/ledger.py; docs/ranking.md, "The ledger"):
# `WHAT-HASH`, 12 hex digits of a SHA-256, stamped on every vote where its answer is stored, so the ledger stays
# true when study.toml or the situations change mid-study. An offline system's is `responses-…`: its own responses
# (situation id and text), so adding another system or editing another's leaves it as it was. A live system's is
# live_config.live_version. Votes stored before versions were stamped say VERSION_UNKNOWN, never a guess.
VERSION_UNKNOWN = "unknown"


def version_digest(what: str, payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{what}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


def response_versions(situations: Iterable[Situation], systems: Iterable[str]) -> dict[str, str]:
    """system -> the version of its responses in `situations` (`responses-…`)."""
    hashes = {name: hashlib.sha256() for name in systems}
    for situation in sorted(situations, key=lambda s: s.situation_id):
        for name, h in hashes.items():
            text = situation.responses.get(name)
            if text is not None:
                h.update(json.dumps([situation.situation_id, text], ensure_ascii=False).encode("utf-8"))
    return {name: f"responses-{h.hexdigest()[:12]}" for name, h in hashes.items()}
