"""Renderers of INFACT's own steps: consent, rated situations, questionnaire, demographics, done."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.participation.steps.questionnaire import COMMENT_ITEM, COMMENT_TYPING
from infact.participation.steps.situation import response_text
from infact.state import Progress
from infact.study.protocol_config import block_texts
from infact.text.catalogue import _, number
from infact.text.display import caption_html, dialog_html, progress_html, response_html, return_link_html
from infact.ui import typed_text
from infact.ui.participant_page import (
    page_top,
    renderer,
    show_errors,
    start_over_button,
    start_pending,
    submit,
    submit_button,
)
from infact.values import response_letter


@renderer("consent")
def consent_step(flow: Flow, progress: Progress, step: Step) -> None:
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


def _items(situation) -> tuple[str, ...]:
    return tuple(situation.meta.get("items") or ())  # what the importer marked as items: highlighted


@page_top("situation")
def situation_top(flow: Flow, progress: Progress, step: Step) -> str:
    """Progress, the short help and the dialog: drawn with the page's head, as one element."""
    done, total = flow.progress(progress.state)
    situation = flow.study.situation(step.situation_id)
    return (
        progress_html(_("Situation {n} of {total}").format(n=number(step.index), total=number(total)), done, total)
        + caption_html(_(block_texts(flow.cfg, "rating").situation_help))
        + dialog_html([(t.role, t.text) for t in situation.context], items=_items(situation))
    )


@renderer("situation")
def situation_step(flow: Flow, progress: Progress, step: Step) -> None:
    cfg = flow.cfg
    situation = flow.study.situation(step.situation_id)
    first = flow.condition is not None and step.index == 1  # the condition's instructions, not seen at consent
    title = _("Instructions: how to rate") if first else _("Reminder: what does *meaningful* mean?")
    with st.expander(title, expanded=first):
        st.markdown(_(block_texts(cfg, "rating").instructions))  # a [flow] study's rating block has its own
    with st.form(f"form-{step.name}"):
        answers: dict[str, dict[str, str | None]] = {}
        keys: dict[str, dict[str, str]] = {}
        for pos, system in enumerate(step.order, start=1):
            letter = response_letter(pos)
            # A card: the response, then its scales (framed by display.CSS, no container per response).
            st.html(response_html(letter, response_text(cfg, situation, step, system), _items(situation), card=True))
            answers[system], keys[system] = {}, {}
            for crit in cfg.criteria:
                keys[system][crit.id] = f"{step.name}-{letter}-{crit.id}"
                # The group's accessible name says which response it rates.
                answers[system][crit.id] = st.radio(
                    _("Response {letter}: {question}").format(letter=letter, question=_(crit.question)),
                    cfg.scale.labels,
                    format_func=_,  # stored as the study's label, shown in the participant's language
                    index=None,
                    horizontal=True,
                    key=keys[system][crit.id],
                )
        submit_button(
            flow,
            progress,
            step,
            _("Submit and continue"),
            f"submit-{step.name}",
            {"ratings": answers},
            {"ratings": keys},
        )


@renderer("questionnaire")
def questionnaire_step(flow: Flow, progress: Progress, step: Step) -> None:
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


@renderer("demographics")
def demographics_step(flow: Flow, progress: Progress, step: Step) -> None:
    st.markdown(_(flow.cfg.texts.demographics_intro))
    with st.form("form-demographics"):
        answers, keys = {}, {item.id: f"d-{item.id}" for item in flow.cfg.demographics}
        for item in flow.cfg.demographics:
            answers[item.id] = st.radio(
                _(item.text), item.options, format_func=_, index=None, horizontal=True, key=f"d-{item.id}"
            )
        submit_button(flow, progress, step, _("Finish"), "submit-demographics", answers, keys)


@renderer("done")
def done_step(flow: Flow, progress: Progress, step: Step) -> None:
    texts = flow.cfg.texts
    state = progress.state
    if state.withdrawn is not None:
        st.info(_(texts.withdrawn))
        return
    completion = flow.completion(state)
    if completion is None:  # every step stored, the completion not: the process that stored them died
        state = flow.finish_pending(state)
        completion = flow.completion(state)
    if completion is None:  # never show a code early
        st.warning(_("Saving your answers… please reload the page."))
        return
    screened_out = state.complete.get("outcome") == "screened_out"
    if screened_out:
        st.warning(_(texts.screened_out))
    else:
        st.success(_("All your answers are saved."))
        st.markdown(_(texts.completion))
    if completion.code:
        st.markdown(_("**Your participant code**") if screened_out else _("**Your completion code**"))
        with st.container(key="infact-completion-code"):  # drawn in the text font (display.CSS): "-" not "−"
            st.code(completion.code, language=None)
    st.write(completion.text)
    if completion.redirect_url:  # the page script redirects in this tab; the link is the fallback
        st.html(return_link_html(completion.redirect_url, _("Return to Prolific")))
    if flow.cfg.platform.kind == "none":
        start_over_button(flow, progress)
