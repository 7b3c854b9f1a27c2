"""The questionnaire page: its items on the study's scale and the optional comment (typing watched)."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.participation.steps.questionnaire import COMMENT_ITEM, COMMENT_TYPING
from infact.state import Progress
from infact.text.catalogue import _, number
from infact.ui import typed_text
from infact.ui.participant_page import submit_button


def page(flow: Flow, progress: Progress, step: Step) -> None:
    q = flow.cfg.questionnaire
    st.markdown(_(flow.cfg.texts.questionnaire_intro))
    with st.form("form-questionnaire"):
        answers: dict[str, str | None] = {}
        # With the comment, its typing report (a component's value, not a widget key) is read in the press's run.
        keys = None if q.comment.enabled else {item.id: f"q-{item.id}" for item in q.items}
        for n, item in enumerate(q.items, start=1):
            answers[item.id] = st.radio(
                f"{number(n)}. {_(item.text)}", q.scale, format_func=_, index=None, horizontal=True, key=f"q-{item.id}"
            )
        if q.comment.enabled:
            block = flow.cfg.quality.block_paste
            typed_text.note(block, flow.cfg.texts.no_ai_tools)
            answers[COMMENT_TYPING] = typed_text.watch("questionnaire", block_paste=block).get("q-comment")
            answers[COMMENT_ITEM] = st.text_area(_(q.comment.question), max_chars=q.comment.max_chars, key="q-comment")
        submit_button(flow, progress, step, _("Continue"), "submit-questionnaire", answers, keys)
