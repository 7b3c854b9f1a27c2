"""Judges: the automatic judges in the study's judges/ folder beside the human raters (docs/ranking.md)."""

from __future__ import annotations

from infact.ui.dashboard.registry import section
from infact.ui.rankings import show_judges


@section("Judges", tables=True)
def show_judges_section(view) -> None:
    show_judges(view.judges())
