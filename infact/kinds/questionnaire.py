"""The questionnaire after the situations: its items on the study's scale, and an optional comment."""

from infact.participation.steps import Kind
from infact.participation.steps.questionnaire import QUESTIONNAIRE, Questionnaire
from infact.results.kinds import Answers, KindResults


def build(answers: Answers):
    """questionnaire.csv: one row per participant and item, the answer as its label on the questionnaire's scale."""
    from infact.results.tables import records as tables

    scale = answers.cfg.questionnaire.scale
    return tables.answers_table(answers.records, "questionnaire", scale, groups=answers.groups)


RESULTS = KindResults(QUESTIONNAIRE, ("questionnaire",), build=build, always=True)

KIND = Kind(
    "questionnaire",
    Questionnaire(),
    results=RESULTS,
    page="infact.ui.steps.questionnaire.page",
    dashboard="infact.ui.dashboard.sections.results.show_results",
)
