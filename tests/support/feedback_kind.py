"""The test-only step kind's table, declared once for the tests that register a `feedback` kind
(tests/participation/test_step_registry.py, tests/results/tables/test_table_schemas.py)."""

from __future__ import annotations

from infact.table_schema import Column, TableSchema

FEEDBACK = TableSchema(
    "feedback",
    "Test-only: one sentence of feedback per participant.",
    (
        Column("participant", "string", "random participant token", True),
        Column("text", "string", "the sentence", True),
        Column("seconds", "number", "seconds on the page"),
    ),
)
