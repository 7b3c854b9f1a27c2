"""`python -m infact import crs-arena FILE (--out DIR | --study DIR)`: CRS Arena's data as INFACT files.

CRSArena-Dial's dialogues (a JSON list of `{"conversation ID", "agent": {"id"}, "user": {"id"},
"conversation": [{"participant": "USER"|"AGENT", "utterance"}], "metadata"}`) become one
conversations file per system, `DIR/conversations/<system>.jsonl`, with dialog_id = the user's id (in
CRS Arena one person chats with two systems, so the dialog-level pairwise protocol pairs those two
chats) and `dataset` = the second `_`-separated field of the conversation id (`barcor_redial_…` →
`redial`). The conversation protocol reads the same files. With `--study DIR` a starter study.toml
(conversation protocol, CRSArena-Eval's aspects) is written when the folder has none.

CRS Arena's votes CSV (`session_id, user_id, crs1, crs2, vote, feedback`; vote is a system or `tie`)
becomes `DIR/pairwise.csv` as INFACT exports it: crs1 shown first (left), the feedback as the
justification, so `python -m infact analyze DIR/pairwise.csv` ranks CRS Arena's own votes.
Malformed entries are warnings (file:line and entry number: what is wrong) and skipped: a non-object,
a NaN or Infinity, an id with a control character, a repeated conversation id, a second vote on the same
battle (session, user, pair). Systems whose ids give the same file name (`a/b`, `a_b`) get a short hash
of the id in theirs, with a warning; the files are written all or nothing (fileio.swap_in).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from pathlib import Path

import pandas as pd

from infact.errors import DatasetError, Problem
from infact.fileio import json_entries, non_finite, swap_in
from infact.importers.common import (
    ImportReport,
    clean_text,
    csv_rows,
    file_names,
    has_control,
    read_text,
    refuse_foreign,
    study_id,
)
from infact.participation.steps.pairwise import PAIRWISE
from infact.study.annotation.conversations import dataset_of
from infact.table_schema import csv_bytes

ROLES = {"USER": "user", "AGENT": "bot", "ASSISTANT": "bot", "SYSTEM": "bot"}
VOTE_COLUMNS = ("session_id", "user_id", "crs1", "crs2", "vote", "feedback")
# pairwise.csv as declared (infact/participation/steps/pairwise.py): the columns an import fills, the rest empty.
PAIRWISE_OUT = PAIRWISE.names
STARTER = Path(__file__).resolve().parents[2] / "data" / "demo-conversations" / "study.toml"


def system_dataset(system: str) -> str:
    """A CRS Arena system id is `<model>_<dataset>` (`kbrd_redial` → `redial`)."""
    parts = system.split("_")
    return parts[1] if len(parts) >= 2 else ""


def _entry(obj, file: str, i: int, line: int) -> tuple[dict | None, Problem | None]:
    where = f"entry {i}"
    if not isinstance(obj, dict):
        return None, Problem(
            file,
            f"{where}: expected an object with 'conversation ID', 'agent', 'user', 'conversation', "
            f"not {type(obj).__name__}; skipped",
            line,
        )
    if bad := non_finite(obj):
        return None, Problem(file, f"{where}: {bad} is not a finite number (write a number or null); skipped", line)
    cid, agent, user = obj.get("conversation ID"), obj.get("agent"), obj.get("user")
    if not isinstance(cid, str) or not cid.strip():
        return None, Problem(file, f"{where}: missing 'conversation ID'; skipped", line, "conversation ID")
    if not isinstance(agent, dict) or not isinstance(agent.get("id"), str) or not agent["id"].strip():
        return None, Problem(file, f"{where} ({cid}): missing agent.id (the system); skipped", line, "agent")
    user_id = user.get("id") if isinstance(user, dict) else None
    if not isinstance(user_id, (str, int)) or isinstance(user_id, bool):
        return None, Problem(file, f"{where} ({cid}): missing user.id; skipped", line, "user")
    for key, value in (("conversation ID", cid), ("agent.id", agent["id"]), ("user.id", str(user_id))):
        if has_control(value):
            return None, Problem(file, f"{where}: {key} {value!r} holds a control character (NUL?); skipped", line, key)
    turns = []
    for t in obj.get("conversation") or []:
        role = ROLES.get(str((t or {}).get("participant", "")).upper()) if isinstance(t, dict) else None
        text = t.get("utterance") if isinstance(t, dict) else None
        if role is None or not isinstance(text, str):
            return None, Problem(
                file,
                f"{where} ({cid}): every turn needs participant USER or AGENT and an utterance; skipped",
                line,
                "conversation",
            )
        if text.strip():
            turns.append({"role": role, "text": clean_text(text)})
    if not any(t["role"] == "bot" for t in turns):
        return None, Problem(file, f"{where} ({cid}): no AGENT turn, nothing to judge; skipped", line, "conversation")
    return {
        "conversation_id": cid.strip(),
        "dialog_id": str(user_id).strip(),
        "system": agent["id"].strip(),
        "dataset": dataset_of(cid.strip()),
        "turns": turns,
    }, None


def _read_dialogs(path: Path) -> list[tuple[int, object]]:
    try:
        entries = json_entries(read_text(path))
    except json.JSONDecodeError as exc:
        raise DatasetError(
            Problem(
                str(path),
                f"not valid JSON ({exc.msg}, line {exc.lineno}): CRSArena-Dial's dialogues file is one JSON list",
                exc.lineno,
            )
        ) from None
    if entries is None:
        raise DatasetError(
            Problem(str(path), "expected a JSON list of dialogues (CRSArena-Dial's crs_arena_dial_*.json)")
        )
    return entries


def import_dialogs(path: Path, out: Path, *, study: bool) -> ImportReport:
    report = ImportReport(out)
    by_system: dict[str, list[dict]] = {}
    seen: dict[str, int] = {}  # conversation id -> line of its first entry
    for i, (line, obj) in enumerate(_read_dialogs(path), start=1):
        entry, problem = _entry(obj, str(path), i, line)
        if problem:
            report.problems.append(problem)
        elif entry["conversation_id"] in seen:
            report.problems.append(
                Problem(
                    str(path),
                    f"entry {i}: conversation ID {entry['conversation_id']!r} repeats the entry at line "
                    f"{seen[entry['conversation_id']]}; skipped (the first is kept)",
                    line,
                    "conversation ID",
                )
            )
        else:
            seen[entry["conversation_id"]] = line
            by_system.setdefault(entry["system"], []).append(entry)
    if not by_system:
        raise DatasetError([Problem(str(path), "no usable dialogue in the file"), *report.problems])
    names, clashes = file_names(by_system, ".jsonl", str(path))
    report.problems.extend(clashes)
    files = {
        f"conversations/{names[system]}": "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode()
        for system, entries in sorted(by_system.items())
    }
    if study and not (out / "study.toml").exists():
        files["study.toml"] = starter_toml(study_id(out.name), sorted(by_system), names).encode("utf-8")
        report.notes.append("wrote a starter study.toml (conversation protocol): edit its texts and aspects")
    refuse_foreign(out, files, "crs-arena", _ours)
    swap_in(out, files)  # all or nothing: a failure leaves every earlier file as it was
    report.counts = {
        "conversations": sum(map(len, by_system.values())),
        "systems": len(by_system),
        "users": len({e["dialog_id"] for es in by_system.values() for e in es}),
    }
    return report


def starter_toml(sid: str, systems: list[str], names: dict[str, str]) -> str:
    """The conversation demo's study.toml for these systems' files (`names`: file_names; no gold yet)."""
    text = STARTER.read_text(encoding="utf-8")
    files = ", ".join(json.dumps(f"conversations/{names[s]}") for s in systems)
    text = re.sub(r'(?m)^id = ".*"$', f'id = "{sid}"', text, count=1)
    text = re.sub(r"(?m)^situations = \[.*\]$", f"situations = [{files}]", text, count=1)
    text = re.sub(
        r"(?m)^systems = \[.*\]$", "systems = [" + ", ".join(json.dumps(s) for s in systems) + "]", text, count=1
    )
    return re.sub(r"(?m)^gold = .*\n", "", text, count=1)


def _vote_problem(row: dict, line: int, file: str, seen: dict) -> Problem | None:
    """Why a votes row is skipped (None: it is a vote); `seen` maps each battle to its first line."""
    cells = {k: str(row.get(k) or "") for k in VOTE_COLUMNS}
    bad = next((k for k, v in cells.items() if has_control(v.replace("\n", "").replace("\t", ""))), None)
    if bad:
        return Problem(file, f"{bad} {cells[bad]!r} holds a control character (NUL?); row skipped", line, bad)
    a, b, vote = (cells[k].strip() for k in ("crs1", "crs2", "vote"))
    if not a or not b or a == b:
        return Problem(file, "crs1 and crs2 must be two different systems; row skipped", line)
    if vote not in (a, b, "tie"):
        return Problem(file, f"vote {vote!r} is neither crs1 ({a}), crs2 ({b}) nor tie; row skipped", line, "vote")
    battle = (cells["session_id"].strip(), cells["user_id"].strip(), frozenset((a, b)))
    if battle in seen:
        return Problem(
            file,
            f"a second vote of user {battle[1]!r} on {a} vs {b} in session {battle[0]!r} (first at line "
            f"{seen[battle]}); row skipped",
            line,
            "session_id",
        )
    seen[battle] = line
    return None


def import_votes(path: Path, out: Path) -> ImportReport:
    file = str(path)
    reader = csv.DictReader(io.StringIO(read_text(path)))
    rows_in = csv_rows(reader, file)
    first = next(rows_in, None)
    missing = [c for c in VOTE_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise DatasetError(
            Problem(
                file,
                f"missing column(s) {', '.join(missing)}: CRS Arena's votes CSV has {', '.join(VOTE_COLUMNS)}",
                1,
                missing[0],
            )
        )
    report = ImportReport(out)
    rows, seen = [], {}
    for row in itertools.chain([first] if first is not None else [], rows_in):  # lazily: line_num is the row's
        if problem := _vote_problem(row, reader.line_num, file, seen):
            report.problems.append(problem)
            continue
        a, b = row["crs1"].strip(), row["crs2"].strip()
        ds = {system_dataset(a), system_dataset(b)}
        rows.append(
            {
                "participant": row["user_id"],
                "situation_id": row["session_id"],
                "dialog_id": row["user_id"],
                "criterion": "overall",
                "system_a": a,
                "system_b": b,
                "shown_left": a,
                "winner": row["vote"].strip(),
                "seconds": "",
                "justification": (row.get("feedback") or "").strip(),
                "dataset": ds.pop() if len(ds) == 1 else "",
            }
        )
    if not rows:
        raise DatasetError([Problem(file, "no usable vote in the file"), *report.problems])
    # text cells neutralised and quoted (table_schema.csv_bytes): a participant's feedback never runs as a formula
    table = pd.DataFrame([[r.get(c, "") for c in PAIRWISE_OUT] for r in rows], columns=PAIRWISE_OUT)
    files = {"pairwise.csv": csv_bytes(table)}
    refuse_foreign(out, files, "crs-arena", _ours)
    swap_in(out, files)
    report.counts = {
        "votes": len(rows),
        "ties": sum(r["winner"] == "tie" for r in rows),
        "systems": len({r["system_a"] for r in rows} | {r["system_b"] for r in rows}),
    }
    return report


def _ours(name: str, first_line: str) -> bool:
    """Whether an existing file is one an earlier `import crs-arena` wrote (its first line says so)."""
    if name == "pairwise.csv":
        return first_line == ",".join(PAIRWISE_OUT)
    if name == "study.toml":
        return False  # written only when absent
    try:
        entry = json.loads(first_line)
    except ValueError:
        return False
    return isinstance(entry, dict) and {"conversation_id", "dialog_id", "system", "turns"} <= set(entry)


def import_crs_arena(file: str | Path, out: str | Path, *, study: bool = False) -> ImportReport:
    path, out = Path(file), Path(out)
    if not path.is_file():
        raise DatasetError(Problem(str(path), "file not found: give CRSArena-Dial's dialogues JSON or its votes CSV"))
    return import_votes(path, out) if path.suffix.lower() == ".csv" else import_dialogs(path, out, study=study)
