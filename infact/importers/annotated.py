"""`python -m infact import annotated FILE.json (--out DIR | --study DIR)`: already-annotated conversations.

FILE is CRSArena-Eval's aggregated shape, which INFACT's own export `annotations_aggregated.json`
also writes: `[{"conv_id", "dialogue": [{"turn_ind", "role": "USER"|"ASST", "utterance",
"turn_level_aggregated": {aspect: value}}], "dial_level_aggregated": {aspect: value}}]`. It becomes
`DIR/annotations.csv` (the export's columns) with participant `aggregated`, one row per item, ready for
`python -m infact analyze DIR/annotations.csv --judge NAME=RUN.json`. The system is the entry's
`system` when given (INFACT's export adds it), else the conv id's first two `_`-separated fields
(`barcor_redial_…` → `barcor_redial`); `dataset` is the second (`redial`). A non-object entry or turn,
a repeated conv_id, a NaN or Infinity and a `turn_ind` that is not an integer are warnings at their line.
"""

from __future__ import annotations

import json
import numbers
from pathlib import Path

import pandas as pd

from infact.errors import DatasetError, Problem
from infact.fileio import NonFinite, json_entries, swap_in
from infact.importers.common import ImportReport, read_text, refuse_foreign
from infact.participation.steps.conversation import ANNOTATION_COLUMNS
from infact.study.annotation.conversations import dataset_of
from infact.table_schema import csv_bytes

PARTICIPANT = "aggregated"


def system_of_id(conv_id: str) -> str:
    parts = conv_id.split("_")
    return "_".join(parts[:2]) if len(parts) >= 3 else conv_id


def _number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _values(values, where: str, file: str, line: int, report: ImportReport) -> dict:
    if not isinstance(values, dict):
        report.problems.append(Problem(file, f"{where}: expected an object {{aspect: value}}; skipped", line))
        return {}
    good = {a: v for a, v in values.items() if _number(v)}
    for a in sorted(set(values) - set(good)):
        if isinstance(values[a], NonFinite):
            why = f"{values[a]} is not a finite number (write a number, or null for no value)"
            report.problems.append(Problem(file, f"{where}: {a} = {why}; skipped", line, a))
        elif values[a] is not None:
            report.problems.append(Problem(file, f"{where}: {a} = {values[a]!r} is not a number; skipped", line, a))
    return good


def rows_of(entry: dict, i: int, file: str, line: int, report: ImportReport) -> list[dict]:
    cid = entry.get("conv_id")
    if not isinstance(cid, str) or not cid.strip():
        report.problems.append(Problem(file, f"entry {i}: missing 'conv_id'; skipped", line, "conv_id"))
        return []
    system = entry.get("system") if isinstance(entry.get("system"), str) else system_of_id(cid)
    common = {
        "participant": PARTICIPANT,
        "dialog_id": entry.get("dialog_id") or cid,
        "system": system,
        "seconds": None,
        "conversation_id": cid,
        "dataset": entry.get("dataset") or dataset_of(cid),
        "label": None,
        "step_index": None,
        "is_gold": False,
        "study": None,
        "dataset_version": None,
    }
    rows = []
    for t in entry.get("dialogue") or []:
        if not isinstance(t, dict):
            report.problems.append(Problem(file, f"entry {i} ({cid}): a turn that is not an object; skipped", line))
            continue
        if "turn_level_aggregated" not in t:
            continue  # a turn nobody annotated (the user's)
        turn = t.get("turn_ind")
        if not isinstance(turn, int) or isinstance(turn, bool):  # true is not turn 1
            report.problems.append(
                Problem(file, f"entry {i} ({cid}): turn_ind {turn!r} is not an integer; turn skipped", line, "turn_ind")
            )
            continue
        for aspect, v in _values(t["turn_level_aggregated"], f"{cid} turn {turn}", file, line, report).items():
            rows.append({**common, "turn": turn, "aspect": aspect, "level": "turn", "value": v})
    for aspect, v in _values(entry.get("dial_level_aggregated") or {}, f"{cid} dialogue", file, line, report).items():
        rows.append({**common, "turn": None, "aspect": aspect, "level": "dialogue", "value": v})
    return rows


def _entries(path: Path) -> list[tuple[int, object]]:
    try:
        entries = json_entries(read_text(path))
    except json.JSONDecodeError as exc:
        raise DatasetError(Problem(str(path), f"not valid JSON ({exc.msg})", exc.lineno)) from None
    if entries is None:
        raise DatasetError(Problem(str(path), "expected a JSON list of {conv_id, dialogue, dial_level_aggregated}"))
    return entries


def _rows(path: Path, report: ImportReport) -> list[dict]:
    """Every entry's rows; a non-object or a repeated conv_id is a warning at its line, and skipped."""
    file, rows, seen = str(path), [], {}
    for i, (line, entry) in enumerate(_entries(path), start=1):
        if not isinstance(entry, dict):
            report.problems.append(
                Problem(
                    file, f"entry {i}: expected an object {{conv_id, dialogue, …}}, not {entry!r:.40}; skipped", line
                )
            )
            continue
        cid = entry.get("conv_id")
        if isinstance(cid, str) and cid in seen:
            report.problems.append(
                Problem(
                    file, f"entry {i}: conv_id {cid!r} repeats the entry at line {seen[cid]}; skipped", line, "conv_id"
                )
            )
            continue
        if isinstance(cid, str):
            seen[cid] = line
        rows.extend(rows_of(entry, i, file, line, report))
    return rows


def import_annotated(file: str | Path, out: str | Path) -> ImportReport:
    path, out = Path(file), Path(out)
    if not path.is_file():
        raise DatasetError(
            Problem(
                str(path),
                "file not found: give an aggregated annotations JSON (CRSArena-Eval's "
                "shape, or INFACT's annotations_aggregated.json)",
            )
        )
    report = ImportReport(out)
    rows = _rows(path, report)
    if not rows:
        raise DatasetError([Problem(str(path), "no annotation in the file"), *report.problems])
    df = pd.DataFrame(rows, columns=ANNOTATION_COLUMNS)
    df["turn"] = df["turn"].astype("Int64")
    files = {"annotations.csv": csv_bytes(df)}  # text cells neutralised and quoted: a formula never runs
    refuse_foreign(out, files, "annotated", lambda _, first: first == ",".join(ANNOTATION_COLUMNS))
    swap_in(out, files)
    report.counts = {
        "conversations": df["conversation_id"].nunique(),
        "annotations": len(df),
        "aspects": df["aspect"].nunique(),
    }
    return report
