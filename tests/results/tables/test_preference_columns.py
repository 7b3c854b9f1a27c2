"""pairwise.csv and best_worst.csv share their column runs, declared once (participation/steps/pairwise.py: `asked`,
`SOURCE`, `ROW_MARKS`), and their rows fill those columns alike from a record (`shared_cells`); each kind's rows
fill exactly its declared columns (issue 39 item 5: the runs were written twice)."""

from __future__ import annotations

import pytest

from infact.participation.steps import pairwise
from infact.participation.steps.best_worst import BEST_WORST, BestWorst
from infact.participation.steps.pairwise import PAIRWISE, ROW_MARKS, SOURCE, Pairwise

COMMON = {"study": "s", "participant": "p1", "index": 3, "situation_id": "sit-7", "dialog_id": "d-2", "seconds": 12.5}
PAIR = {
    **COMMON,
    "kind": "pairwise",
    "responses": [{"system": "Beta", "text": "Try Alien (1979)."}, {"system": "Alpha", "text": "Heat?"}],
    "choices": {"overall": "Alpha", "fluent": "tie"},
    "versions": {"Alpha": "responses-1"},
    "answered_at": "2026-12-05T07:00:00+00:00",
}
BW = {
    **COMMON,
    "kind": "best_worst",
    "responses": [{"system": "Gamma"}, {"system": "Alpha"}, {"system": "Beta"}],
    "best": {"overall": "Gamma", "fluent": "Alpha"},
    "worst": {"overall": "Beta", "fluent": "Gamma"},
    "at": "2026-12-05T07:01:00+00:00",  # no answered_at: stored before it existed
}


def runs(schema) -> list:
    return [c for c in schema.columns if c.name != "condition"]  # condition: added after the participant by TableSchema


def test_both_tables_are_built_from_the_same_declared_runs():
    pair, bw = runs(PAIRWISE), runs(BEST_WORST)
    for answer, columns in (("vote", pair), ("choice", bw)):
        assert [c.name for c in columns[:3]] == ["participant", "situation_id", "criterion"]
        assert columns[2].description == f"criterion id the {answer} answers"
        assert tuple(columns[-2:]) == ROW_MARKS == (pairwise.EXCLUDED, pairwise.BOT)
        at = columns.index(SOURCE[0])
        assert tuple(columns[at : at + len(SOURCE)]) == SOURCE
    assert pair[0] is bw[0] and pair[-1] is bw[-1]  # the same objects, not copies


# Filled by other sources: votes imported from CRS Arena (`dataset`) and the live arena's votes (chat/transcripts.py).
ELSEWHERE = {"dataset", *pairwise.LIVE_VOTE_COLUMNS}


@pytest.mark.parametrize(
    "kind, record, schema, elsewhere",
    [(Pairwise(), PAIR, PAIRWISE, ELSEWHERE), (BestWorst(), BW, BEST_WORST, set())],
)
def test_rows_fill_their_declared_columns_and_the_shared_ones_alike(kind, record, schema, elsewhere):
    rows = kind.rows(record, None)
    assert [r["criterion"] for r in rows] == ["overall", "fluent"]
    for row in rows:
        filled = {"participant", "condition", "excluded", "bot"} | set(row)  # the caller and the export add these
        assert filled | elsewhere == set(schema.names) and not filled & elsewhere
        assert {k: row[k] for k in ("study", "step_index", "situation_id", "dialog_id", "seconds")} == {
            "study": "s",
            "step_index": 3,
            "situation_id": "sit-7",
            "dialog_id": "d-2",
            "seconds": 12.5,
        }
        assert row["answered_at"] == record.get("answered_at", record.get("at"))
    assert kind.rows({**record, "attention_check": True}, None) == []  # a check is no preference
