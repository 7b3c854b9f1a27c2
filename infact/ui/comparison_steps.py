"""Renderers of the comparison protocols: pairwise, ACUTE-style onboarding, best–worst (issue 13)."""

from __future__ import annotations


import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.participation.steps.compare import shown_texts
from infact.state import Progress
from infact.values import response_letter

from infact.ui.participant_page import render_dialog, render_response, renderer, submit_button


def _compared_situation(flow: Flow, progress: Progress, step: Step) -> list[dict]:
    """Progress, dialog and the shown responses side by side (Streamlit stacks columns on a phone)."""
    done, total = flow.progress(progress.state)
    st.progress(done / total, text=f"Situation {step.index} of {total}")
    st.caption(flow.cfg.texts.situation_help)
    render_dialog(flow.study.situation(step.situation_id).context)
    with st.expander("Reminder: how to judge the responses"):
        st.markdown(flow.cfg.texts.instructions)
    shown = shown_texts(flow, step)
    for col, item in zip(st.columns(len(shown)) if len(shown) <= 3 else [st.container()] * len(shown), shown):
        with col, st.container(border=True):
            render_response(response_letter(item["position"]), item["text"])
    return shown


@renderer("pairwise")
def pairwise_step(flow: Flow, progress: Progress, step: Step) -> None:
    proto = flow.cfg.protocol
    _compared_situation(flow, progress, step)
    with st.form(f"form-{step.name}"):
        options = ["A", "B"] + ([proto.tie_label] if proto.allow_tie else [])
        choices = {crit.id: st.radio(proto.question_for(crit.id), options, index=None, horizontal=True,
                                     format_func=lambda o: f"Response {o}" if o in ("A", "B") else o,
                                     key=f"{step.name}-{crit.id}") for crit in flow.cfg.criteria}
        why = ""
        if proto.justification != "off":
            need = f" (at least {proto.justification_min_chars} characters)" if proto.justification == "required" else " (optional)"
            why = st.text_area(f"Briefly, why?{need}", key=f"{step.name}-why", max_chars=2000)
        submit_button(flow, progress, step, "Submit and continue", f"submit-{step.name}", {"choices": choices, "justification": why})


@renderer("onboarding")
def onboarding_step(flow: Flow, progress: Progress, step: Step) -> None:
    from infact.participation.steps.onboarding import read_gold_pairs

    pairs = read_gold_pairs(flow.study.folder, flow.cfg.protocol.onboarding)
    st.markdown(f"**Before the study: {len(pairs)} practice examples.** In each, one response is clearly the more "
                "meaningful next message. Choose it to show you have understood the task.")
    with st.form(f"form-{step.name}"):
        gold = {}
        for i, pair in enumerate(pairs, start=1):
            with st.container(border=True):
                st.markdown(f"**Example {i}**")
                render_dialog(_turns(pair["context"]))
                for col, (letter, key) in zip(st.columns(2), (("A", "a"), ("B", "b"))):
                    with col:
                        render_response(letter, pair[key])
                gold[str(i)] = st.radio(flow.cfg.protocol.question_for(flow.cfg.criteria[0].id), ["A", "B"], index=None,
                                        horizontal=True, format_func=lambda o: f"Response {o}", key=f"onboarding-{i}")
        submit_button(flow, progress, step, "Continue to the study", "submit-onboarding", {"gold": gold})


def _turns(context: list[dict]):
    from infact.study.situations import Turn

    return [Turn(t["role"], t["text"]) for t in context]


@renderer("best_worst")
def best_worst_step(flow: Flow, progress: Progress, step: Step) -> None:
    shown = _compared_situation(flow, progress, step)
    letters = [response_letter(item["position"]) for item in shown]
    with st.form(f"form-{step.name}"):
        best, worst = {}, {}
        for crit in flow.cfg.criteria:
            st.markdown(flow.cfg.protocol.question_for(crit.id))
            best[crit.id] = st.radio("Best response", letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-best")
            worst[crit.id] = st.radio("Worst response", letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-worst")
        submit_button(flow, progress, step, "Submit and continue", f"submit-{step.name}", {"best": best, "worst": worst})
