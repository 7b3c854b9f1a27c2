"""Comments: what participants wrote in the questionnaire's comment box."""

from __future__ import annotations

import streamlit as st

from infact.results.dashboard import running_study
from infact.ui.dashboard.registry import section


@section("Comments")
def show_comments(view) -> None:
    st.dataframe(running_study.comments(view.progress()), hide_index=True, key="comments_table")
