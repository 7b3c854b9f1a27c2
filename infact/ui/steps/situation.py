"""A rated situation (the `rating` protocol): the dialog on top, each response with its scales."""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.participation.steps.situation import response_text
from infact.state import Progress
from infact.study.protocol_config import block_texts
from infact.text.catalogue import _, number
from infact.text.display import caption_html, dialog_html, progress_html, response_html
from infact.ui.participant_page import submit_button
from infact.values import response_letter


def _items(situation) -> tuple[str, ...]:
    return tuple(situation.meta.get("items") or ())  # what the importer marked as items: highlighted


def page_top(flow: Flow, progress: Progress, step: Step) -> str:
    """Progress, the short help and the dialog: drawn with the page's head, as one element."""
    done, total = flow.progress(progress.state)
    situation = flow.study.situation(step.situation_id)
    return (
        progress_html(_("Situation {n} of {total}").format(n=number(step.index), total=number(total)), done, total)
        + caption_html(_(block_texts(flow.cfg, "rating").situation_help))
        + dialog_html([(t.role, t.text) for t in situation.context], items=_items(situation))
    )


def page(flow: Flow, progress: Progress, step: Step) -> None:
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
