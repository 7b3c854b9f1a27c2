"""The test-only step kind's table and page, declared once for the tests that register a `feedback` kind
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


def page(flow, progress, step) -> None:
    """The test kind's page: one sentence and Send (registered as "tests.support.feedback_kind.page")."""
    import streamlit as st

    from infact import ui

    with st.form("form-feedback"):
        text = st.text_input("Your feedback", key="feedback")
        ui.show_errors()
        if st.form_submit_button("Send", key="submit-feedback"):
            ui.submit(flow, progress, step, {"feedback": text})
            ui.show_errors()
