"""Live chats as data: `transcripts.jsonl`, the arena votes and the rubric as table rows.

`transcripts.jsonl` has one conversation per line (docs/live.md):

    {"participant", "study", ["condition",] "system", "slot", "conversation_id",
     "turns": [{"role", "text", "items", "latency_ms", "error", "turn", "at"}, ...],
     "ended_by", "satisfaction", "flags", "turn_ratings", "rubric", "identity_leak"}

It is written by `export` and read back by `read_transcripts` (the importer), so a
study's chats are reusable as a dialog dataset.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from infact.chat.conversation import ENDINGS, read_conversation
from infact.errors import DatasetError, Problem
from infact.fileio import loads_json, read_input_text
from infact.text import typed

TRANSCRIPT_FIELDS = ("participant", "system", "conversation_id", "turns", "ended_by", "satisfaction", "flags")
TURN_FIELDS = ("role", "text", "items", "latency_ms", "error")


def transcripts(records: list[dict]) -> list[dict]:
    """One dict per conversation, in the order the conversations started."""
    by_conv: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        if r.get("kind", "").startswith("chat_") and r.get("conversation_id"):
            by_conv[r["conversation_id"]].append(r)
    out = []
    for conv_id, recs in by_conv.items():
        first = recs[0]
        conv = read_conversation(recs, conv_id, first["system"], first.get("slot", ""))
        rubric = conv.rubric or {}
        out.append(
            {
                "participant": first["participant"],
                "study": first.get("study"),
                # a between-subjects study's condition (infact/participation/conditions.py), as on every answer
                **({"condition": first["condition"]} if first.get("condition") is not None else {}),
                "system": conv.system,
                "slot": conv.slot,
                "conversation_id": conv_id,
                "turns": [t.to_dict() for t in conv.turns],
                "ended_by": (conv.ended or {}).get("ended_by"),
                "satisfaction": (conv.ended or {}).get("satisfaction"),
                "flags": conv.flags,
                "identity_leak": conv.leaks,
                "turn_ratings": {str(k): v for k, v in sorted(conv.turn_ratings.items())},
                "rubric": rubric.get("labels") or {},
            }
        )
    return out


def _style(records: list[dict]) -> dict[str, tuple[int, int]]:
    """conversation -> (characters, items) of the system's usable answers: the style covariates."""
    out: dict[str, tuple[int, int]] = defaultdict(lambda: (0, 0))
    for r in records:
        if r.get("kind") == "chat_message" and r.get("role") == "assistant" and not r.get("error"):
            length, items = out[r["conversation_id"]]
            out[r["conversation_id"]] = (length + len(r.get("text") or ""), items + len(r.get("items") or []))
    return out


def _versions(records: list[dict]) -> dict[str, str]:
    """conversation -> the version of the system that answered in it (stamped on its records; infact/study/
    versions.py). A chat whose answers came from two versions (the study changed mid-chat) names both, joined
    with `+`; a chat stored before versions were stamped has none (the ledger says `unknown`)."""
    seen: dict[str, dict[str, None]] = defaultdict(dict)
    for r in records:
        if r.get("kind") == "chat_message" and r.get("role") == "assistant" and r.get("system_version"):
            seen[r["conversation_id"]][r["system_version"]] = None
    return {c: "+".join(v) for c, v in seen.items()}


def pairwise_rows(records: list[dict]) -> list[dict]:
    """Arena votes in pairwise.csv's columns (issue 13) with the style covariates (`length_*`:
    characters, `items_*`: items recommended, over the whole chat), which chats, and leaks."""
    rows = []
    style, versions = _style(records), _versions(records)
    for r in records:
        if r.get("kind") != "chat_vote":
            continue
        (len_a, items_a), (len_b, items_b) = style[r["conversation_a"]], style[r["conversation_b"]]
        rows.append(
            {
                "participant": r["participant"],
                "situation_id": f"{r['conversation_a']}|{r['conversation_b']}",
                "criterion": "overall",
                "system_a": r["system_a"],
                "system_b": r["system_b"],
                "shown_left": r["shown_left"],
                "winner": r["winner"],
                "seconds": r.get("seconds"),
                "justification": r.get("justification", ""),
                "length_a": len_a,
                "length_b": len_b,
                "items_a": items_a,
                "items_b": items_b,
                "identity_leak": bool(r.get("identity_leak")),
                "system_skipped": bool(r.get("skipped")),
                "conversation_a": r["conversation_a"],
                "conversation_b": r["conversation_b"],
                "answered_at": r.get("at"),
                "version_a": versions.get(r["conversation_a"], "unknown"),
                "version_b": versions.get(r["conversation_b"], "unknown"),
                **typed.columns("justification", r.get("justification_typing")),
            }
        )
    return rows


def rubric_rows(records: list[dict]) -> list[dict]:
    """The end-of-chat rubric as ratings.csv rows: the conversation takes the situation's place."""
    rows = []
    for r in records:
        if r.get("kind") != "chat_rubric":
            continue
        for criterion, point in r["answers"].items():
            rows.append(
                {
                    "participant": r["participant"],
                    "study": r["study"],
                    "dataset_version": r.get("dataset_version"),
                    "step_index": None,
                    "situation_id": r["conversation_id"],
                    "dialog_id": r["conversation_id"],
                    "system": r["system"],
                    "criterion": criterion,
                    "rating": point,
                    "rating_label": (r.get("labels") or {}).get(criterion),
                    "position": 1 if r.get("slot") == "A" else 2,
                    "seconds": r.get("seconds"),
                    "is_attention_check": False,
                    "shown_at": None,
                    "answered_at": r.get("at"),
                }
            )
    return rows


def _check_line(obj: object) -> str | None:
    if not isinstance(obj, dict):
        return "expected a JSON object (one conversation per line)"
    missing = [f for f in TRANSCRIPT_FIELDS if f not in obj]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    if not isinstance(obj["turns"], list) or not all(isinstance(t, dict) for t in obj["turns"]):
        return '"turns" must be a list of {role, text, items, latency_ms, error} objects'
    for n, t in enumerate(obj["turns"], start=1):
        if t.get("role") not in ("user", "assistant") or not isinstance(t.get("text"), str):
            return f'turn {n}: needs role "user" or "assistant" and a text string'
    if obj["ended_by"] is not None and obj["ended_by"] not in ENDINGS:
        return f"ended_by {obj['ended_by']!r} is not one of {', '.join(ENDINGS)} (or null: unfinished)"
    return None


def parse_transcripts(path: str | Path) -> tuple[list[tuple[int, dict]], list[Problem]]:
    """(line number, conversation) for every good line, and a Problem for every bad one."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(
            Problem(str(path), "not found; pass the transcripts.jsonl written by `python -m infact export`")
        )
    lines = read_input_text(path).splitlines()
    out, problems = [], []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = loads_json(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(str(path), f"not valid JSON ({exc.msg})", n))
            continue
        issue = _check_line(obj)
        if issue:
            problems.append(Problem(str(path), issue, n))
        else:
            out.append((n, obj))
    return out, problems


def read_transcripts(path: str | Path) -> list[dict]:
    """Read transcripts.jsonl back; every bad line is reported as file:line with what is wrong."""
    convs, problems = parse_transcripts(path)
    if problems:
        raise DatasetError(problems)
    return [c for _, c in convs]
