"""Prolific: the platform IDs to approve, reject or ask to return, ready to paste into Prolific."""

from __future__ import annotations

import streamlit as st

from infact.results.dashboard import running_study
from infact.ui.dashboard import prolific_section
from infact.ui.dashboard.registry import section


@section("Prolific")
def show_prolific(view) -> None:
    # The API's view first (docs/prolific.md: sync, statuses beside INFACT's stages), then the ID lists.
    prolific_section.show(view.study, view.storage, view.data.counts(view.now))
    lists = running_study.prolific_lists(view.overview())
    st.caption(
        "Platform IDs of finished participants, by the recommended action (docs/quality.md). Copy a list "
        "with the icon at its top right and paste it into Prolific's bulk approve / reject / message tools."
    )
    for name, title in (
        ("approve", "Approve"),
        ("reject", "Reject (eligible under Prolific's rules)"),
        ("return", "Ask to return the submission"),
    ):
        ids = lists[name]
        st.markdown(f"**{title}** · {len(ids)}")
        if len(ids):
            st.code("\n".join(ids["platform_id"]), language=None)
            if name != "approve":
                st.dataframe(ids, hide_index=True, key=f"prolific_{name}")
