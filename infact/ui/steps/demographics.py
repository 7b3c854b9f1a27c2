"""The demographics page: one question per item, each with its options."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text.catalogue import _
from infact.ui.participant_page import submit_button


def page(flow: Flow, progress: Progress, step: Step) -> None:
    st.markdown(_(flow.cfg.texts.demographics_intro))
    with st.form("form-demographics"):
        answers, keys = {}, {item.id: f"d-{item.id}" for item in flow.cfg.demographics}
        for item in flow.cfg.demographics:
            answers[item.id] = st.radio(
                _(item.text), item.options, format_func=_, index=None, horizontal=True, key=f"d-{item.id}"
            )
        submit_button(flow, progress, step, _("Finish"), "submit-demographics", answers, keys)
