"""A pairwise vote on two responses (Chatbot Arena, ACUTE-Eval at the response level), and the parts the other
comparison pages share: the step's header, the shown responses, the vote's form and its wording."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.participation.steps.pairwise import shown_texts
from infact.state import Progress
from infact.study.protocol_config import block_texts, protocol_of
from infact.text.catalogue import _, number
from infact.ui import typed_text
from infact.ui.participant_page import render_dialog, render_response, submit_button
from infact.values import response_letter


def step_header(flow: Flow, progress: Progress, step: Step, what: str = "responses") -> None:
    done, total = flow.progress(progress.state)
    line = _("Situation {n} of {total}") if what == "responses" else _("Pair of conversations {n} of {total}")
    st.progress(done / total, text=line.format(n=number(step.index), total=number(total)))
    texts = block_texts(flow.cfg, protocol_of(step.kind) or step.kind)  # a [flow] study's block has its own
    st.caption(_(texts.situation_help))
    if what == "responses":
        render_dialog(flow.study.situation(step.situation_id).context)
    reminder = (
        _("Reminder: how to judge the responses")
        if what == "responses"
        else _("Reminder: how to judge the conversations")
    )
    first = flow.condition is not None and step.index == 1  # a condition's instructions were not shown at consent
    with st.expander(reminder, expanded=first):
        st.markdown(_(texts.instructions))


def compared_situation(flow: Flow, progress: Progress, step: Step) -> list[dict]:
    """Progress, dialog and the shown responses side by side (Streamlit stacks columns on a phone)."""
    step_header(flow, progress, step)
    shown = shown_texts(flow, step)
    for col, item in zip(st.columns(len(shown)) if len(shown) <= 3 else [st.container()] * len(shown), shown):
        with col, st.container(border=True):
            render_response(response_letter(item["position"]), item["text"])
    return shown


def page(flow: Flow, progress: Progress, step: Step) -> None:
    compared_situation(flow, progress, step)
    pairwise_form(flow, progress, step, "Response")


def pairwise_form(flow: Flow, progress: Progress, step: Step, noun: str) -> None:
    """Per criterion "Which … is more …?" (A, B, the tie label, "both bad" if offered) and the justification."""
    proto = flow.cfg.protocol
    with st.form(f"form-{step.name}"):
        options = ["A", "B"] + [proto.tie_label] * proto.allow_tie + [proto.both_bad_label] * proto.allow_both_bad
        choices = {
            crit.id: st.radio(
                question(proto, crit.id),
                options,
                index=None,
                horizontal=True,
                format_func=lambda o: letter_label(noun, o) if o in ("A", "B") else _(o),
                key=f"{step.name}-{crit.id}",
            )
            for crit in flow.cfg.criteria
        }
        why, typing = "", None
        if proto.justification != "off":
            label = (
                _("Briefly, why? (at least {n} characters)").format(n=number(proto.justification_min_chars))
                if proto.justification == "required"
                else _("Briefly, why? (optional)")
            )
            block = flow.cfg.quality.block_paste
            typed_text.note(block, flow.cfg.texts.no_ai_tools)
            typing = typed_text.watch(step.name, block_paste=block).get(f"{step.name}-why")
            why = st.text_area(label, key=f"{step.name}-why", max_chars=2000)
        submit_button(
            flow,
            progress,
            step,
            _("Submit and continue"),
            f"submit-{step.name}",
            {"choices": choices, "justification": why, "typing": typing},
        )


def question(proto, criterion: str) -> str:
    """The protocol's question (a catalogue string unless the study wrote its own) about `criterion`."""
    return _(proto.question).replace("{criterion}", criterion)


def letter_label(noun: str, letter: str) -> str:
    """ "Response A" / "Conversation B" in the participant's language."""
    return (_("Conversation {letter}") if noun == "Conversation" else _("Response {letter}")).format(letter=letter)
