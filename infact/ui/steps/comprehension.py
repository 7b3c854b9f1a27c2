"""The comprehension check's page: the instructions again, then the questions (two attempts; Prolific's rules)."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text.catalogue import _, number
from infact.ui.participant_page import submit_button


def page(flow: Flow, progress: Progress, step: Step) -> None:
    cfg = flow.cfg.comprehension
    attempt = step.data.get("attempt", 1)
    with st.expander(_("Instructions"), expanded=True):
        st.markdown(_(flow.cfg.texts.instructions))
    if attempt > 1:
        st.warning(_(cfg.retry))
    else:
        st.markdown(_(cfg.intro))
    # One form per attempt: its widgets start empty again, and a click on the first attempt's page cannot
    # count as the second attempt (the attempt number travels with the answers).
    with st.form(f"form-{step.name}-{attempt}"):
        answers = {
            q.id: st.radio(
                f"{number(n)}. {_(q.text)}", q.options, format_func=_, index=None, key=f"comprehension-{attempt}-{q.id}"
            )
            for n, q in enumerate(cfg.questions, start=1)
        }
        submit_button(
            flow,
            progress,
            step,
            _("Continue"),
            f"submit-{step.name}-{attempt}",
            {"answers": answers, "attempt": attempt},
        )
