"""A dialog-level (ACUTE-style) pairwise vote: two whole conversations side by side."""

from __future__ import annotations

import html

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text.catalogue import _
from infact.text.display import STYLE, dialog_html, escape
from infact.ui.steps.pairwise import pairwise_form, step_header
from infact.values import response_letter


def page(flow: Flow, progress: Progress, step: Step) -> None:
    """ACUTE-style: two whole conversations side by side, each under its letter (stacked on a phone)."""
    from infact.participation.steps.pairwise_dialog import shown_conversations

    step_header(flow, progress, step, "conversations")
    conversation_pair(
        flow.study.situation(step.situation_id).meta.get("topic", ""),
        [(response_letter(c["position"]), c["turns"]) for c in shown_conversations(flow, step)],
    )
    pairwise_form(flow, progress, step, "Conversation")


def conversation_pair(topic: str, conversations: list[tuple[str, list[dict]]]) -> None:
    st.html(conversation_pair_html(topic, conversations))


# Two columns where both fit at 300 px or more (a laptop), one below the other where not (a phone):
# one HTML element instead of columns, containers and an element per conversation.
PAIR_STYLE = (
    "display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,300px),1fr));gap:1rem;align-items:start"
)


def conversation_pair_html(topic: str, conversations: list[tuple[str, list[dict]]]) -> str:
    """The topic (if any), then each conversation under its label ("Conversation A"), so stacked
    on a phone each stays named. Dataset text is escaped (dialog_html), never Markdown."""
    intro = (
        f'<p class="infact-topic" style="{STYLE["intro"]}">'
        + escape(_("The user is looking for: {topic}")).format(topic=escape(topic))
        + "</p>"
        if topic
        else ""
    )
    name = _("Conversation {letter}")
    body = "".join(
        f'<div class="infact-conversation"><span class="infact-letter" style="{STYLE["letter"]}">'
        f"{html.escape(name.format(letter=letter))}</span>"
        f"{dialog_html([(t['role'], t['text']) for t in turns], placeholder=False)}"
        f"</div>"
        for letter, turns in conversations
    )
    return f'<div class="infact-pair">{intro}<div style="{PAIR_STYLE}">{body}</div></div>'
