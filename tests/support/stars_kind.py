"""Test-only: a whole kind in one file, registered once (issue 39). `register_stars()` adds it just before done.

"stars": after the questionnaire, each of the study's systems gets one to five stars for its response in the
study's first situation. This file is all it takes — its step (planned, checked, stored, answered by bots), its
results (a table, the default analysis, a judge comparison as ratings), its page and its own dashboard section —
and tests/kinds/test_one_file_kind.py follows it everywhere (the page, a bot, the export and datapackage.json,
`analyze`, the dashboard, the judge comparison) with no other file touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from infact.participation import steps
from infact.participation.steps import Checked, Kind, Step, StepKind
from infact.results.kinds import KindResults, with_excluded
from infact.table_schema import Column, TableSchema

NAME = "stars"
POINTS = (1, 2, 3, 4, 5)

STARS = TableSchema(
    NAME,
    "Test-only: one to five stars per participant and system, for the first situation's responses.",
    (
        Column("participant", "string", "random participant token", True),
        Column("condition", "string", "the participant's condition (empty without conditions)"),
        Column("situation_id", "string", "the situation whose responses were starred", True),
        Column("system", "string", "the system starred", True),
        Column("stars", "integer", "1 to 5 stars", True),
        Column("seconds", "number", "seconds on the page"),
    ),
)


class Stars(StepKind):
    name = NAME
    schema = STARS
    bot_seconds = 15.0

    def plan(self, flow, st) -> list[Step]:
        first = flow.study.situations[0]
        return [Step(NAME, NAME, 1, first.situation_id, tuple(flow.study.systems))]

    def check(self, flow, step: Step, answers: Mapping[str, Any]) -> Checked:
        given = answers.get("stars") or {}
        missing = [s for s in step.order if given.get(s) not in POINTS]
        if missing:
            return Checked.refuse("Please give every response one to five stars.")
        return Checked(fields=step.answer_fields(stars={s: int(given[s]) for s in step.order}))

    def bot_answers(self, study, step: Step, bot) -> dict:
        return {"stars": {s: bot.rng.choice(POINTS) for s in step.order}}

    def rows(self, record: dict, scale) -> list[dict]:
        return [
            {"situation_id": record["situation_id"], "system": s, "stars": n, "seconds": record["seconds"]}
            for s, n in record["stars"].items()
        ]


def as_ratings(table, include_flagged: bool, cfg) -> list:
    """The judge comparison's shape: ratings on a 5-point scale (the criterion is `stars`)."""
    kept = table if include_flagged or "excluded" not in table.columns else table[~table["excluded"].astype(bool)]
    return [(kept.rename(columns={"stars": "rating"}).assign(criterion=NAME), len(POINTS))]


RESULTS = KindResults(with_excluded(STARS), (NAME,), compared_as="ratings", prepare=as_ratings, judged=True)


def page(flow, progress, step: Step) -> None:
    """One radio group per system under its response, then Send."""
    import streamlit as st

    from infact import ui

    situation = flow.study.situation(step.situation_id)
    with st.form(f"form-{NAME}"):
        given = {}
        for system in step.order:
            st.markdown(situation.responses[system])
            given[system] = st.radio(f"Stars for {system}", POINTS, index=None, horizontal=True, key=f"stars-{system}")
        ui.show_errors()
        if st.form_submit_button("Send", key=f"submit-{NAME}"):
            ui.submit(flow, progress, step, {"stars": given})
            ui.show_errors()


def section(view, kind: str) -> None:
    """Its own dashboard section: how many stars each system got, on average."""
    import streamlit as st

    table = view.table(STARS.file, criterion=False)
    if table.empty:
        st.info("No stars yet.")
        return
    st.caption(f"{len(table)} stars from {table['participant'].nunique()} participants")
    st.dataframe(table.groupby("system", as_index=False)["stars"].mean(), hide_index=True, key="stars_by_system")


KIND = Kind(NAME, Stars(), results=RESULTS, page=f"{__name__}.page", dashboard=f"{__name__}.section")


def register_stars() -> Kind:
    """Add the kind just before done (a test removes it again with `steps.unregister("stars")`)."""
    return steps.register(KIND, before="done")
