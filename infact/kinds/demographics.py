"""Demographics after the questionnaire: its table is in the exports only (no dashboard section shows it)."""

from infact.participation.steps import Kind
from infact.participation.steps.demographics import DEMOGRAPHICS, Demographics
from infact.results.kinds import Answers, KindResults


def build(answers: Answers):
    """demographics.csv: one row per participant and item."""
    from infact.results.tables import records as tables

    return tables.answers_table(answers.records, "demographics", None, groups=answers.groups)


RESULTS = KindResults(DEMOGRAPHICS, ("demographics",), build=build, always=True)

KIND = Kind("demographics", Demographics(), results=RESULTS, page="infact.ui.steps.demographics.page", dashboard=None)
