"""Wide ratings, the INFACT workbook and records as JSON, from small hand-made tables."""

from __future__ import annotations

import json

import openpyxl
import pandas as pd
import pytest

from infact.errors import InfactError
from infact.results.tables.formats import SHEETS, infact_workbook, records_json, wide_ratings

SYSTEMS = ["A", "B", "C"]


def _ratings(rows):
    """rows: (participant, step, situation, ratings for A, B, C, is_check, excluded)."""
    out = []
    for pid, step, sid, values, check, excluded in rows:
        for system, value in zip(SYSTEMS, values):
            out.append(
                {
                    "participant": pid,
                    "step_index": step,
                    "situation_id": sid,
                    "dialog_id": int(sid[1]),
                    "system": system,
                    "criterion": "meaningful",
                    "rating": value,
                    "response": f"{system} says {sid}",
                    "seconds": 10.0,
                    "is_attention_check": check,
                    "excluded": excluded,
                    "exclusion_reason": "failed the attention check" if excluded else None,
                }
            )
    return pd.DataFrame(out)


RATINGS = _ratings(
    [
        ("p1", 1, "d1-f2", (5, 2, 3), False, False),
        ("p1", 2, "d6-check", (1, 1, 1), True, False),
        ("p1", 3, "d2-f4", (4, 4, 1), False, False),
        ("p2", 1, "d1-f2", (3, 3, 3), False, True),
        ("p2", 2, "d6-check", (4, 4, 4), True, True),
    ]
)
PARTICIPANTS = pd.DataFrame({"participant": ["p1", "p2"], "completion_code": ["AAA111", "BBB222"]})
DEMOGRAPHICS = pd.DataFrame(
    {"participant": ["p1", "p1", "p2"], "item": ["Age", "Gender", "Age"], "answer": ["25-34", "Female", "18-24"]}
)
QUESTIONNAIRE = pd.DataFrame({"participant": ["p1", "p2"], "item": ["Remarks", "Remarks"], "answer": ["fine", "meh"]})


def test_wide_has_one_row_per_shown_situation_and_one_column_per_system():
    wide = wide_ratings(RATINGS)
    assert len(wide) == 5
    assert {
        "participant",
        "step_index",
        "situation_id",
        "dialog_id",
        "is_attention_check",
        "excluded",
        *SYSTEMS,
    } <= set(wide.columns)
    assert "criterion" not in wide.columns  # only one criterion
    row = wide[(wide["participant"] == "p1") & (wide["situation_id"] == "d2-f4")].iloc[0]
    assert (row["A"], row["B"], row["C"]) == (4, 4, 1) and row["dialog_id"] == 2
    assert wide["is_attention_check"].sum() == 2


def test_wide_splits_criteria_and_leaves_holes():
    second = RATINGS.assign(criterion="engaging", rating=RATINGS["rating"].rsub(6))
    both = pd.concat([RATINGS, second.iloc[1:]])  # p1's first A rating for "engaging" is missing
    wide = wide_ratings(both)
    assert len(wide) == 10 and "criterion" in wide.columns
    hole = wide[(wide["participant"] == "p1") & (wide["step_index"] == 1) & (wide["criterion"] == "engaging")].iloc[0]
    assert pd.isna(hole["A"]) and hole["B"] == 4


def test_wide_refuses_duplicates_instead_of_picking_one():
    with pytest.raises(InfactError, match="duplicate"):
        wide_ratings(pd.concat([RATINGS, RATINGS.iloc[:1]]))


def test_workbook_has_infacts_sheets(tmp_path):
    path = tmp_path / "sheets.xlsx"
    infact_workbook(path, RATINGS, PARTICIPANTS, QUESTIONNAIRE, DEMOGRAPHICS)
    assert openpyxl.load_workbook(path).sheetnames == list(SHEETS)
    sheets = pd.read_excel(path, sheet_name=None)
    valid, invalid = sheets["valid trials"], sheets["invalid trials"]
    # p1's two real trials; the attention check is left out like INFACT's script did
    assert len(valid) == 2 and set(valid["participant"]) == {"p1"} and (valid["valid"] == "Yes").all()
    assert valid.set_index("situation_id").loc["d1-f2", ["A_rating", "B_rating", "C_rating"]].tolist() == [5, 2, 3]
    assert valid["A_response"].tolist() == ["A says d1-f2", "A says d2-f4"]
    assert (valid["completion_code"] == "AAA111").all()
    # every trial of an excluded participant, the check included, with the reason
    assert len(invalid) == 2 and (invalid["valid"] == "No").all()
    assert (invalid["reason"] == "failed the attention check").all()
    assert sheets["demographics"].to_dict("records") == [{"participant": "p1", "Age": "25-34", "Gender": "Female"}]
    assert sheets["feedback"].to_dict("records") == [{"participant": "p1", "Remarks": "fine"}]


def test_exclusion_can_come_from_the_participants_table(tmp_path):
    path = tmp_path / "sheets.xlsx"
    ratings = RATINGS.drop(columns=["excluded", "exclusion_reason"])
    participants = PARTICIPANTS.assign(
        excluded=["False", "True"], reason=[None, "on the exclusion list"]
    )  # as read from CSV
    infact_workbook(path, ratings, participants, QUESTIONNAIRE, DEMOGRAPHICS)
    invalid = pd.read_excel(path, sheet_name="invalid trials")
    assert set(invalid["participant"]) == {"p2"} and (invalid["reason"] == "on the exclusion list").all()


def test_workbook_without_exclusions_or_answers(tmp_path):
    path = tmp_path / "sheets.xlsx"
    infact_workbook(path, RATINGS.drop(columns=["excluded"]), None, None, None)
    sheets = pd.read_excel(path, sheet_name=None)
    assert list(sheets) == list(SHEETS)
    assert len(sheets["valid trials"]) == 3 and sheets["invalid trials"].empty


def test_records_json_is_stable():
    records = [
        {"key": "s/p2/arrival", "at": "2024-05-01T10:00:02Z", "participant": "p2"},
        {"key": "s/p1/arrival", "at": "2024-05-01T10:00:01Z", "participant": "p1", "answers": {"z": 1, "a": 2}},
        {"key": "s/p1/consent", "at": "2024-05-01T10:00:02Z", "participant": "p1"},
    ]
    text = records_json(records)
    assert text == records_json(list(reversed(records)))
    parsed = json.loads(text)
    assert [r["key"] for r in parsed] == ["s/p1/arrival", "s/p1/consent", "s/p2/arrival"]
    assert text.index('"a"') < text.index('"z"') and "\n  " in text
