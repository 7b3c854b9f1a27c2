"""Practice examples before a comparison study: one answer is clearly right (gold pairs)."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text.catalogue import _, ngettext, number
from infact.ui.participant_page import render_dialog, render_response, submit_button
from infact.ui.steps.pairwise import letter_label, question
from infact.ui.steps.pairwise_dialog import conversation_pair


def page(flow: Flow, progress: Progress, step: Step) -> None:
    from infact.study.gold_pairs import read_gold_pairs

    pairs = read_gold_pairs(flow.study.folder, flow.cfg.protocol.onboarding)
    dialogs = bool(pairs) and isinstance(pairs[0]["a"], list)
    intro = (
        ngettext(
            "**Before the study: {n} practice example.** In it, one conversation's chatbot is clearly the better "
            "one. Choose it to show you have understood the task.",
            "**Before the study: {n} practice examples.** In each, one conversation's chatbot is clearly the better "
            "one. Choose it to show you have understood the task.",
            len(pairs),
        )
        if dialogs
        else ngettext(
            "**Before the study: {n} practice example.** In it, one response is clearly the better next message. "
            "Choose it to show you have understood the task.",
            "**Before the study: {n} practice examples.** In each, one response is clearly the better next message. "
            "Choose it to show you have understood the task.",
            len(pairs),
        )
    )
    st.markdown(intro.format(n=number(len(pairs))))
    with st.form(f"form-{step.name}"):
        gold = {}
        for i, pair in enumerate(pairs, start=1):
            with st.container(border=True):
                st.markdown(_("**Example {n}**").format(n=number(i)))
                if isinstance(pair["a"], list):  # a dialog-level study's gold pair: two whole conversations
                    conversation_pair(pair.get("topic", ""), [("A", pair["a"]), ("B", pair["b"])])
                    noun = "Conversation"
                else:
                    render_dialog(_turns(pair["context"]))
                    for col, (letter, key) in zip(st.columns(2), (("A", "a"), ("B", "b"))):
                        with col:
                            render_response(letter, pair[key])
                    noun = "Response"
                gold[str(i)] = st.radio(
                    question(flow.cfg.protocol, flow.cfg.criteria[0].id),
                    ["A", "B"],
                    index=None,
                    horizontal=True,
                    format_func=lambda o, n=noun: letter_label(n, o),
                    key=f"onboarding-{i}",
                )
        submit_button(flow, progress, step, _("Continue to the study"), "submit-onboarding", {"gold": gold})


def _turns(context: list[dict]):
    from infact.study.situations import Turn

    return [Turn(t["role"], t["text"]) for t in context]
