"""`python -m infact import annotated FILE.json (--out DIR | --study DIR)`: already-annotated conversations.

FILE is CRSArena-Eval's aggregated shape, which INFACT's own export `annotations_aggregated.json`
also writes: `[{"conv_id", "dialogue": [{"turn_ind", "role": "USER"|"ASST", "utterance",
"turn_level_aggregated": {aspect: value}}], "dial_level_aggregated": {aspect: value}}]`. It becomes
`DIR/annotations.csv` (the export's columns) with participant `aggregated`, one row per item, ready for
`python -m infact analyze DIR/annotations.csv --judge NAME=RUN.json`. The system is the entry's
`system` when given (INFACT's export adds it), else the conv id's first two `_`-separated fields
(`barcor_redial_…` → `barcor_redial`); `dataset` is the second (`redial`).
"""

from __future__ import annotations

import json
import numbers
from pathlib import Path

import pandas as pd

from infact.errors import DatasetError, Problem
from infact.fileio import atomic_write_text
from infact.importers.common import ImportReport, read_text
from infact.participation.steps.conversation import ANNOTATION_COLUMNS
from infact.study.annotation.conversations import dataset_of

PARTICIPANT = "aggregated"


def system_of_id(conv_id: str) -> str:
    parts = conv_id.split("_")
    return "_".join(parts[:2]) if len(parts) >= 3 else conv_id


def _number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _values(values, where: str, file: str, report: ImportReport) -> dict:
    if not isinstance(values, dict):
        report.problems.append(Problem(file, f"{where}: expected an object {{aspect: value}}; skipped"))
        return {}
    good = {a: v for a, v in values.items() if _number(v)}
    for a in sorted(set(values) - set(good)):
        if values[a] is not None:
            report.problems.append(Problem(file, f"{where}: {a} = {values[a]!r} is not a number; skipped", key=a))
    return good


def rows_of(entry: dict, i: int, file: str, report: ImportReport) -> list[dict]:
    cid = entry.get("conv_id")
    if not isinstance(cid, str) or not cid.strip():
        report.problems.append(Problem(file, f"entry {i}: missing 'conv_id'; skipped", key="conv_id"))
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
        if not isinstance(t, dict) or "turn_level_aggregated" not in t:
            continue
        if not isinstance(t.get("turn_ind"), int):
            report.problems.append(Problem(file, f"entry {i} ({cid}): a turn without an integer turn_ind; skipped"))
            continue
        for aspect, v in _values(t["turn_level_aggregated"], f"{cid} turn {t['turn_ind']}", file, report).items():
            rows.append({**common, "turn": t["turn_ind"], "aspect": aspect, "level": "turn", "value": v})
    for aspect, v in _values(entry.get("dial_level_aggregated") or {}, f"{cid} dialogue", file, report).items():
        rows.append({**common, "turn": None, "aspect": aspect, "level": "dialogue", "value": v})
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
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DatasetError(Problem(str(path), f"not valid JSON ({exc.msg})", exc.lineno)) from None
    if not isinstance(data, list):
        raise DatasetError(Problem(str(path), "expected a JSON list of {conv_id, dialogue, dial_level_aggregated}"))
    report = ImportReport(out)
    rows = [r for i, e in enumerate(data, start=1) if isinstance(e, dict) for r in rows_of(e, i, str(path), report)]
    if not rows:
        raise DatasetError([Problem(str(path), "no annotation in the file"), *report.problems])
    df = pd.DataFrame(rows, columns=ANNOTATION_COLUMNS)
    df["turn"] = df["turn"].astype("Int64")
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "annotations.csv", df.to_csv(index=False))
    report.counts = {
        "conversations": df["conversation_id"].nunique(),
        "annotations": len(df),
        "aspects": df["aspect"].nunique(),
    }
    return report
