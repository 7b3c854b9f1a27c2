"""The comprehension check's page: the instructions again, then the questions (two attempts; Prolific's rules)."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.state import Progress
from infact.participation.steps import Step
from infact.ui.participant_page import renderer, submit_button


@renderer("comprehension")
def comprehension_step(flow: Flow, progress: Progress, step: Step) -> None:
    cfg = flow.cfg.comprehension
    attempt = step.data.get("attempt", 1)
    with st.expander("Instructions", expanded=True):
        st.markdown(flow.cfg.texts.instructions)
    if attempt > 1:
        st.warning(cfg.retry)
    else:
        st.markdown(cfg.intro)
    # One form per attempt: its widgets start empty again, and a click on the first attempt's page cannot
    # count as the second attempt (the attempt number travels with the answers).
    with st.form(f"form-{step.name}-{attempt}"):
        answers = {
            q.id: st.radio(f"{n}. {q.text}", q.options, index=None, key=f"comprehension-{attempt}-{q.id}")
            for n, q in enumerate(cfg.questions, start=1)
        }
        submit_button(
            flow,
            progress,
            step,
            "Continue",
            f"submit-{step.name}-{attempt}",
            {"answers": answers, "attempt": attempt},
        )
