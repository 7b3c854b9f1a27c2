"""The consent page: welcome, instructions, terms, privacy and the tick that starts the study."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text.catalogue import _
from infact.ui.participant_page import show_errors, start_pending, submit


def page(flow: Flow, progress: Progress, step: Step) -> None:
    texts = flow.cfg.texts
    st.markdown(_(texts.welcome))
    if not flow.study.conditions:  # a between-subjects study: its condition's instructions open the first step
        with st.expander(_("Instructions: how to rate"), expanded=True):
            st.markdown(_(texts.instructions))
    with st.expander(_("Terms of participation")):
        st.markdown(_(texts.terms))
    with st.expander(_("Data privacy")):
        st.markdown(_(texts.privacy))
    # Not in a form: the tick is the session's as soon as it is given, so a rerun between the tick and
    # the click (the page's first run still drawing on a busy server) cannot drop it: a first "Start the
    # study" was once ignored with the box ticked.
    agreed = st.checkbox(_(texts.consent), key="consent")
    show_errors()
    if st.button(_("Start the study"), type="primary", key="consent_submit") or start_pending():
        submit(flow, progress, step, {"consent": agreed})
        show_errors()
