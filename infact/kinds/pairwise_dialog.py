"""A dialog-level (ACUTE-style) pairwise vote on two whole conversations: its votes fill pairwise.csv, as the
response-level pairwise kind's do (one `KindResults`, infact/kinds/pairwise.py)."""

from infact.kinds import pairwise
from infact.participation.steps import Kind
from infact.participation.steps.pairwise_dialog import PairwiseDialog

KIND = Kind(
    "pairwise_dialog",
    PairwiseDialog(),
    results=pairwise.RESULTS,
    page="infact.ui.steps.pairwise_dialog.page",
    dashboard="infact.ui.dashboard.sections.results.show_results",
)
