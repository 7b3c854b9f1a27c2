"""A best–worst choice: the shown responses, then per criterion the best and the worst."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text.catalogue import _
from infact.ui.participant_page import submit_button
from infact.ui.steps.pairwise import compared_situation, question
from infact.values import response_letter


def page(flow: Flow, progress: Progress, step: Step) -> None:
    shown = compared_situation(flow, progress, step)
    letters = [response_letter(item["position"]) for item in shown]
    with st.form(f"form-{step.name}"):
        best, worst = {}, {}
        for crit in flow.cfg.criteria:
            st.markdown(question(flow.cfg.protocol, crit.id))
            with st.container(key=f"infact-bw-{step.name}-{crit.id}"):  # large framed targets (display.CSS)
                best[crit.id] = st.radio(
                    _("Best response"), letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-best"
                )
                worst[crit.id] = st.radio(
                    _("Worst response"), letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-worst"
                )
        submit_button(
            flow, progress, step, _("Submit and continue"), f"submit-{step.name}", {"best": best, "worst": worst}
        )
