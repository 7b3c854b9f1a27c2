"""Derived export formats built from the long tables (docs/data-model.md).

Pure functions on DataFrames: a wide ratings table (one column per system), the
XLSX workbook with the original INFACT's four sheets, and records as JSON. The
long tables themselves are written elsewhere; these only reshape them.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any

import pandas as pd

from infact.errors import InfactError, Problem
from infact.fileio import atomic_write_bytes
from infact.participation.steps.situation import RATINGS
from infact.table_schema import neutral_cell
from infact.text.neutral import visible_controls
from infact.values import bool_column

SHEETS = ("valid trials", "invalid trials", "demographics", "feedback")
# Carried into the wide table when present; constant within one shown situation.
_META = ("dialog_id", "seconds", "is_attention_check", "excluded", "bot", "exclusion_reason")


def _key_columns(ratings: pd.DataFrame, every: bool = False) -> list[str]:
    # step_index tells two showings of the same situation to one participant apart; `every` keys by step and
    # criterion whatever the values, so the export's ratings_wide.csv always has its declared columns.
    keys = ["participant"]
    if "step_index" in ratings.columns and (every or ratings["step_index"].notna().any()):
        keys.append("step_index")
    keys.append("situation_id")
    if "criterion" in ratings.columns and (every or ratings["criterion"].nunique(dropna=True) > 1):
        keys.append("criterion")
    return keys


def _wide(ratings: pd.DataFrame, value: str, suffix: str, meta: Iterable[str], every: bool = False) -> pd.DataFrame:
    RATINGS.check_columns(ratings.columns, "ratings", needed=("participant", "situation_id", "system", value))
    keys = _key_columns(ratings, every)
    dup = ratings.duplicated(keys + ["system"], keep=False)
    if dup.any():
        first = ratings[dup].iloc[0]
        where = ", ".join(f"{k}={first[k]}" for k in keys + ["system"])
        raise InfactError(
            Problem(
                "ratings",
                f"{int(dup.sum())} rows share one cell of the wide table (e.g. {where}); "
                "remove the duplicate ratings or add step_index to tell them apart",
                key="system",
            )
        )
    systems = list(dict.fromkeys(ratings["system"]))
    groups = ratings.groupby(keys, sort=False, dropna=False)
    meta = [c for c in meta if c in ratings.columns]
    wide = groups[meta].first() if meta else groups.size().to_frame()[[]]
    cells = ratings.pivot_table(index=keys, columns="system", values=value, aggfunc="first", dropna=False, sort=False)
    cells = cells.reindex(columns=systems)
    if value == "rating":  # a skipped rating leaves a hole; keep the others integers
        cells = cells.apply(lambda col: pd.to_numeric(col, errors="coerce").round().astype("Int64"))
    cells.columns = [f"{s}{suffix}" for s in systems]
    return wide.join(cells).reset_index()


def wide_ratings(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per participant × shown situation [× criterion when there are several],
    one column per system holding its rating, plus dialog_id, step_index,
    is_attention_check and excluded where the long table has them."""
    if ratings.empty:
        return pd.DataFrame(
            columns=_key_columns(ratings) if "participant" in ratings.columns else ["participant", "situation_id"]
        )
    return _wide(ratings, "rating", "", _META)


def export_wide_ratings(ratings: pd.DataFrame, systems: list[str]) -> bytes:
    """ratings_wide.csv as the export writes it: its declared columns, then one column per system."""
    from infact.results.tables.schemas import RATINGS_WIDE

    wide = _wide(ratings, "rating", "", _META, every=True) if len(ratings) else pd.DataFrame()
    shown = [str(c) for c in wide.columns if RATINGS_WIDE.column(str(c)) is None]
    columns = [*shown, *(s for s in systems if s not in shown)]
    return RATINGS_WIDE.csv_bytes(wide, columns)


def _participant_flags(ratings: pd.DataFrame, participants: pd.DataFrame) -> tuple[set[str], dict[str, str]]:
    """Participants marked excluded in either table, and the reason given for each."""
    excluded: set[str] = set()
    reasons: dict[str, str] = {}
    for table, reason_cols in ((participants, ("exclusion_reason", "reason")), (ratings, ("exclusion_reason",))):
        if table is None or table.empty or "excluded" not in table.columns or "participant" not in table.columns:
            continue
        flagged = table[bool_column(table["excluded"])]
        excluded |= set(flagged["participant"].astype(str))
        for col in reason_cols:
            if col in flagged.columns:
                for pid, reason in zip(flagged["participant"].astype(str), flagged[col]):
                    if pd.notna(reason) and str(reason).strip():
                        reasons.setdefault(pid, str(reason))
    return excluded, reasons


def _trial_sheet(
    ratings: pd.DataFrame, participants: pd.DataFrame, valid: bool, excluded: set[str], reasons: dict[str, str]
) -> pd.DataFrame:
    rows = ratings[ratings["participant"].astype(str).isin(excluded) != valid]
    if valid and "is_attention_check" in rows.columns:  # INFACT's valid sheet left the check trial out
        rows = rows[~bool_column(rows["is_attention_check"])]
    meta = ["dialog_id", "seconds", "is_attention_check"] + (["context"] if "context" in rows.columns else [])
    if rows.empty:
        systems = list(dict.fromkeys(ratings["system"])) if "system" in ratings.columns else []
        sheet = pd.DataFrame(columns=["participant", "situation_id"] + [f"{s}_rating" for s in systems])
    else:
        sheet = _wide(rows, "rating", "_rating", meta)
        if "response" in rows.columns:
            sheet = sheet.join(_wide(rows, "response", "_response", ()).drop(columns=_key_columns(rows)))
    sheet.insert(1, "valid", "Yes" if valid else "No")
    if participants is not None and "completion_code" in participants.columns and "participant" in participants.columns:
        codes = dict(zip(participants["participant"].astype(str), participants["completion_code"]))
        sheet.insert(2, "completion_code", sheet["participant"].astype(str).map(codes))
    if not valid:
        sheet["reason"] = sheet["participant"].astype(str).map(reasons)
    return sheet


def _answers_sheet(answers: pd.DataFrame, keep: set[str] | None) -> pd.DataFrame:
    """Long (participant, item, answer) -> one row per participant, one column per item."""
    if answers is None or answers.empty or not {"participant", "item", "answer"} <= set(answers.columns):
        return pd.DataFrame(columns=["participant"])
    answers = answers.assign(participant=answers["participant"].astype(str))
    if keep is not None:
        answers = answers[answers["participant"].isin(keep)]
    wide = answers.pivot_table(index="participant", columns="item", values="answer", aggfunc="first", sort=False)
    wide = wide.reindex(columns=list(dict.fromkeys(answers["item"])))
    wide.columns.name = None
    return wide.reset_index()


def infact_workbook_bytes(
    ratings: pd.DataFrame,
    participants: pd.DataFrame | None = None,
    questionnaire: pd.DataFrame | None = None,
    demographics: pd.DataFrame | None = None,
) -> bytes:
    """Build the sheets INFACT's Excel script produced, into one workbook:

    "valid trials"   – included participants' trials without the attention check,
                       one row per trial, `<system>_rating` (and `_response`) columns;
    "invalid trials" – every trial of excluded participants, with the reason;
    "demographics", "feedback" – one row per included participant.

    A participant is excluded when `excluded` is true in `ratings` or `participants`.
    Every text cell is written as text, never as a formula (`sheet_cells`, `text_only`).
    Returns the XLSX file's bytes (for downloads); `infact_workbook` writes it to a path."""
    ratings = ratings if ratings is not None else pd.DataFrame()
    excluded, reasons = _participant_flags(ratings, participants)
    if ratings.empty:
        valid_sheet = invalid_sheet = pd.DataFrame(columns=["participant", "valid"])
    else:
        valid_sheet = _trial_sheet(ratings, participants, True, excluded, reasons)
        invalid_sheet = _trial_sheet(ratings, participants, False, excluded, reasons)
    everyone: set[str] = set()
    for table in (ratings, participants, questionnaire, demographics):
        if table is not None and "participant" in table.columns:
            everyone |= set(table["participant"].astype(str))
    keep = everyone - excluded
    sheets = dict(
        zip(
            SHEETS,
            (valid_sheet, invalid_sheet, _answers_sheet(demographics, keep), _answers_sheet(questionnaire, keep)),
        )
    )
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        for name, sheet in sheets.items():
            sheet_cells(sheet).to_excel(writer, sheet_name=name, index=False)
            text_only(writer.sheets[name])
    return buffer.getvalue()


def cell_text(value):
    """A text cell as the workbook holds it: hidden controls shown as their code points (neutral.py; the XML
    of an XLSX file cannot hold most C0 controls at all) and a formula's first character neutralised with a
    quote (table_schema.neutral_cell). Numbers and missing values are returned as they are."""
    return neutral_cell(visible_controls(value))


def sheet_cells(sheet: pd.DataFrame) -> pd.DataFrame:
    """A sheet with every text cell, and every column name, through `cell_text`."""
    out = sheet.copy()
    for c in out.columns:
        if out[c].dtype.kind in "OSU" or out[c].dtype == "string":
            out[c] = out[c].map(cell_text)
    return out.rename(columns=lambda c: cell_text(c) if isinstance(c, str) else c)


def text_only(worksheet) -> None:
    """No cell of a written sheet is a formula: openpyxl makes any text beginning with `=` one unless told."""
    for row in worksheet.iter_rows():
        for cell in row:
            if cell.data_type == "f":
                cell.data_type = "s"


def infact_workbook(
    path,
    ratings: pd.DataFrame,
    participants: pd.DataFrame | None = None,
    questionnaire: pd.DataFrame | None = None,
    demographics: pd.DataFrame | None = None,
) -> None:
    """Write `infact_workbook_bytes` to `path`, atomically."""
    atomic_write_bytes(path, infact_workbook_bytes(ratings, participants, questionnaire, demographics))


def _record_order(record: dict[str, Any]) -> tuple[str, str]:
    return (str(record.get("at") or ""), str(record.get("key") or ""))


def records_json(records: Iterable[dict[str, Any]]) -> str:
    """All records as a pretty JSON array; sorted by time then key, keys sorted, so two
    exports of the same records are byte-identical."""
    ordered = sorted(records, key=_record_order)
    return json.dumps(ordered, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"
