"""The conversation protocol's page: one whole conversation, each system turn's scales right
under it, the dialogue-level aspects after the last turn (infact/participation/steps/conversation.py).

One HTML element per turn and one radio group per turn × aspect, in reading order inside one form:
on a phone the page is a single column, so every turn's scales stay next to (below) the turn.
"""

from __future__ import annotations

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.participation.steps.conversation import conversation_of, message_numbers
from infact.state import Progress
from infact.study.annotation.aspects import of_level
from infact.study.annotation.conversations import turns_of
from infact.text.catalogue import _, number
from infact.text.display import STYLE, caption_html, escape, progress_html, turn_html
from infact.ui.participant_page import submit_button


def page_top(flow: Flow, progress: Progress, step: Step) -> str:
    done, total = flow.progress(progress.state)
    conv, _expected = conversation_of(flow.study, step.situation_id)
    topic = conv.meta.get("topic") or ""
    intro = (
        f'<p class="infact-topic" style="{STYLE["intro"]}">'
        + escape(_("The user is looking for: {topic}")).format(topic=escape(topic))
        + "</p>"
        if topic
        else ""
    )
    return (
        progress_html(_("Conversation {n} of {total}").format(n=number(step.index), total=number(total)), done, total)
        + caption_html(_(flow.cfg.texts.situation_help))
        + intro
    )


def _turn_block(turn: dict, items, n: int | None) -> str:
    name = _("Chatbot message {n}").format(n=number(n)) if n else ""
    label = f'<span class="infact-letter" style="{STYLE["letter"]}">{escape(name)}</span>' if n else ""
    return (
        f'<div class="infact-annotated-turn" data-turn="{turn["turn_ind"]}">{label}'
        f"{turn_html(turn['role'], turn['text'], items=items)}</div>"
    )


def page(flow: Flow, progress: Progress, step: Step) -> None:
    cfg = flow.cfg
    conv, _expected = conversation_of(flow.study, step.situation_id)
    items = tuple(conv.meta.get("items") or ())
    numbers = message_numbers(conv)
    turn_aspects, dialogue_aspects = of_level(cfg.aspects, "turn"), of_level(cfg.aspects, "dialogue")
    with st.expander(_("Reminder: how to rate")):
        st.markdown(_(cfg.texts.instructions))
    with st.form(f"form-{step.name}"):
        turns: dict[str, dict] = {}
        for turn in turns_of(conv):
            ind = turn["turn_ind"]
            st.html(_turn_block(turn, items, numbers.get(ind)))
            if ind in numbers:
                turns[str(ind)] = {
                    a.id: st.radio(
                        _("Chatbot message {n}: {question}").format(n=number(numbers[ind]), question=_(a.question)),
                        a.labels,
                        format_func=_,
                        index=None,
                        horizontal=True,
                        key=f"{step.name}-t{ind}-{a.id}",
                    )
                    for a in turn_aspects
                }
        dialogue = {}
        if dialogue_aspects:
            st.markdown(_("**The whole conversation**"))
            dialogue = {
                a.id: st.radio(
                    _(a.question), a.labels, format_func=_, index=None, horizontal=True, key=f"{step.name}-d-{a.id}"
                )
                for a in dialogue_aspects
            }
        comment = ""
        if cfg.protocol.comment != "off":
            comment = st.text_area(
                _("Anything else about this conversation? (optional)"), key=f"{step.name}-comment", max_chars=2000
            )
        submit_button(
            flow,
            progress,
            step,
            _("Submit and continue"),
            f"submit-{step.name}",
            {"turns": turns, "dialogue": dialogue, "comment": comment},
        )
