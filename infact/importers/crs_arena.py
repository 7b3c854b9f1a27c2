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
Malformed entries are warnings (file:line or entry number: what is wrong) and skipped.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from infact.errors import DatasetError, Problem
from infact.fileio import atomic_write_text
from infact.importers.common import ImportReport, clean_text, read_text, study_id
from infact.participation.steps.compare import PAIRWISE
from infact.study.annotation.conversations import dataset_of

ROLES = {"USER": "user", "AGENT": "bot", "ASSISTANT": "bot", "SYSTEM": "bot"}
VOTE_COLUMNS = ("session_id", "user_id", "crs1", "crs2", "vote", "feedback")
# pairwise.csv as declared (infact/participation/steps/compare.py): the columns an import fills, the rest empty.
PAIRWISE_OUT = PAIRWISE.names
STARTER = Path(__file__).resolve().parents[2] / "data" / "demo-conversations" / "study.toml"


def system_dataset(system: str) -> str:
    """A CRS Arena system id is `<model>_<dataset>` (`kbrd_redial` → `redial`)."""
    parts = system.split("_")
    return parts[1] if len(parts) >= 2 else ""


def _file_name(system: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", system) + ".jsonl"


def _entry(obj, file: str, i: int) -> tuple[dict | None, Problem | None]:
    where = f"entry {i}"
    if not isinstance(obj, dict):
        return None, Problem(
            file, f"{where}: expected an object with 'conversation ID', 'agent', 'user', 'conversation'"
        )
    cid, agent, user = obj.get("conversation ID"), obj.get("agent"), obj.get("user")
    if not isinstance(cid, str) or not cid.strip():
        return None, Problem(file, f"{where}: missing 'conversation ID'; skipped", key="conversation ID")
    if not isinstance(agent, dict) or not isinstance(agent.get("id"), str) or not agent["id"].strip():
        return None, Problem(file, f"{where} ({cid}): missing agent.id (the system); skipped", key="agent")
    if not isinstance(user, dict) or not isinstance(user.get("id"), (str, int)):
        return None, Problem(file, f"{where} ({cid}): missing user.id; skipped", key="user")
    turns = []
    for t in obj.get("conversation") or []:
        role = ROLES.get(str((t or {}).get("participant", "")).upper()) if isinstance(t, dict) else None
        text = t.get("utterance") if isinstance(t, dict) else None
        if role is None or not isinstance(text, str):
            return None, Problem(
                file,
                f"{where} ({cid}): every turn needs participant USER or AGENT and an utterance; skipped",
                key="conversation",
            )
        if text.strip():
            turns.append({"role": role, "text": clean_text(text)})
    if not any(t["role"] == "bot" for t in turns):
        return None, Problem(file, f"{where} ({cid}): no AGENT turn, nothing to judge; skipped", key="conversation")
    return {
        "conversation_id": cid.strip(),
        "dialog_id": str(user["id"]).strip(),
        "system": agent["id"].strip(),
        "dataset": dataset_of(cid.strip()),
        "turns": turns,
    }, None


def import_dialogs(path: Path, out: Path, *, study: bool) -> ImportReport:
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DatasetError(
            Problem(
                str(path),
                f"not valid JSON ({exc.msg}, line {exc.lineno}): CRSArena-Dial's dialogues file is one JSON list",
                exc.lineno,
            )
        ) from None
    if not isinstance(data, list):
        raise DatasetError(
            Problem(str(path), "expected a JSON list of dialogues (CRSArena-Dial's crs_arena_dial_*.json)")
        )
    report = ImportReport(out)
    by_system: dict[str, list[dict]] = {}
    for i, obj in enumerate(data, start=1):
        entry, problem = _entry(obj, str(path), i)
        if problem:
            report.problems.append(problem)
        else:
            by_system.setdefault(entry["system"], []).append(entry)
    if not by_system:
        raise DatasetError([Problem(str(path), "no usable dialogue in the file"), *report.problems])
    folder = out / "conversations"
    folder.mkdir(parents=True, exist_ok=True)
    for system, entries in sorted(by_system.items()):
        text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
        atomic_write_text(folder / _file_name(system), text)
    report.counts = {
        "conversations": sum(map(len, by_system.values())),
        "systems": len(by_system),
        "users": len({e["dialog_id"] for es in by_system.values() for e in es}),
    }
    if study and not (out / "study.toml").exists():
        atomic_write_text(out / "study.toml", starter_toml(study_id(out.name), sorted(by_system)))
        report.notes.append("wrote a starter study.toml (conversation protocol): edit its texts and aspects")
    return report


def starter_toml(sid: str, systems: list[str]) -> str:
    """The conversation demo's study.toml for these systems' files (no gold conversation yet)."""
    text = STARTER.read_text(encoding="utf-8")
    files = ", ".join(json.dumps(f"conversations/{_file_name(s)}") for s in systems)
    text = re.sub(r'(?m)^id = ".*"$', f'id = "{sid}"', text, count=1)
    text = re.sub(r"(?m)^situations = \[.*\]$", f"situations = [{files}]", text, count=1)
    text = re.sub(
        r"(?m)^systems = \[.*\]$", "systems = [" + ", ".join(json.dumps(s) for s in systems) + "]", text, count=1
    )
    return re.sub(r"(?m)^gold = .*\n", "", text, count=1)


def import_votes(path: Path, out: Path) -> ImportReport:
    reader = csv.DictReader(io.StringIO(read_text(path)))
    missing = [c for c in VOTE_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise DatasetError(
            Problem(
                str(path),
                f"missing column(s) {', '.join(missing)}: CRS Arena's votes CSV has {', '.join(VOTE_COLUMNS)}",
                1,
                missing[0],
            )
        )
    report = ImportReport(out)
    rows = []
    for line, row in enumerate(reader, start=2):
        a, b, vote = (str(row.get(k) or "").strip() for k in ("crs1", "crs2", "vote"))
        if not a or not b or a == b:
            report.problems.append(Problem(str(path), "crs1 and crs2 must be two different systems; row skipped", line))
            continue
        if vote not in (a, b, "tie"):
            report.problems.append(
                Problem(
                    str(path), f"vote {vote!r} is neither crs1 ({a}), crs2 ({b}) nor tie; row skipped", line, "vote"
                )
            )
            continue
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
                "winner": vote,
                "seconds": "",
                "justification": (row.get("feedback") or "").strip(),
                "dataset": ds.pop() if len(ds) == 1 else "",
            }
        )
    if not rows:
        raise DatasetError([Problem(str(path), "no usable vote in the file"), *report.problems])
    out.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=PAIRWISE_OUT, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(out / "pairwise.csv", buf.getvalue())
    report.counts = {
        "votes": len(rows),
        "ties": sum(r["winner"] == "tie" for r in rows),
        "systems": len({r["system_a"] for r in rows} | {r["system_b"] for r in rows}),
    }
    return report


def import_crs_arena(file: str | Path, out: str | Path, *, study: bool = False) -> ImportReport:
    path, out = Path(file), Path(out)
    if not path.is_file():
        raise DatasetError(Problem(str(path), "file not found: give CRSArena-Dial's dialogues JSON or its votes CSV"))
    return import_votes(path, out) if path.suffix.lower() == ".csv" else import_dialogs(path, out, study=study)
