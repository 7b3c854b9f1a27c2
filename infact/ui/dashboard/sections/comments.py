"""Comments: what participants wrote in the questionnaire's comment box."""

from __future__ import annotations

import streamlit as st

from infact.results.dashboard import live_study
from infact.ui.dashboard.registry import section


@section("Comments")
def show_comments(view) -> None:
    st.dataframe(live_study.comments(view.progress()), hide_index=True, key="comments_table")
