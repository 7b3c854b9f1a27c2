"""Renderers of the comparison protocols: pairwise (responses or, ACUTE-style, whole conversations),
the onboarding with gold pairs, best–worst (issue 13)."""

from __future__ import annotations

import html

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.state import Progress
from infact.participation.steps import Step
from infact.participation.steps.compare import shown_texts
from infact.study.protocol_config import PROTOCOL_OF, block_texts
from infact.text.display import STYLE, dialog_html, escape
from infact.ui import typed_text
from infact.ui.participant_page import render_dialog, render_response, renderer, submit_button
from infact.values import response_letter


def _step_header(flow: Flow, progress: Progress, step: Step, what: str = "responses") -> None:
    done, total = flow.progress(progress.state)
    unit = "Situation" if what == "responses" else "Pair of conversations"
    st.progress(done / total, text=f"{unit} {step.index} of {total}")
    texts = block_texts(flow.cfg, PROTOCOL_OF.get(step.kind, step.kind))  # a [flow] study's block has its own
    st.caption(texts.situation_help)
    if what == "responses":
        render_dialog(flow.study.situation(step.situation_id).context)
    with st.expander(f"Reminder: how to judge the {what}"):
        st.markdown(texts.instructions)


def _compared_situation(flow: Flow, progress: Progress, step: Step) -> list[dict]:
    """Progress, dialog and the shown responses side by side (Streamlit stacks columns on a phone)."""
    _step_header(flow, progress, step)
    shown = shown_texts(flow, step)
    for col, item in zip(st.columns(len(shown)) if len(shown) <= 3 else [st.container()] * len(shown), shown):
        with col, st.container(border=True):
            render_response(response_letter(item["position"]), item["text"])
    return shown


@renderer("pairwise")
def pairwise_step(flow: Flow, progress: Progress, step: Step) -> None:
    _compared_situation(flow, progress, step)
    _pairwise_form(flow, progress, step, "Response")


@renderer("pairwise_dialog")
def pairwise_dialog_step(flow: Flow, progress: Progress, step: Step) -> None:
    """ACUTE-style: two whole conversations side by side, each under its letter (stacked on a phone)."""
    from infact.participation.steps.compare_dialog import shown_conversations

    _step_header(flow, progress, step, "conversations")
    _conversation_pair(
        flow.study.situation(step.situation_id).meta.get("topic", ""),
        [(response_letter(c["position"]), c["turns"]) for c in shown_conversations(flow, step)],
    )
    _pairwise_form(flow, progress, step, "Conversation")


def _conversation_pair(topic: str, conversations: list[tuple[str, list[dict]]]) -> None:
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
        f'<p class="infact-topic" style="{STYLE["intro"]}">The user is looking for: {escape(topic)}</p>'
        if topic
        else ""
    )
    body = "".join(
        f'<div class="infact-conversation"><span class="infact-letter" style="{STYLE["letter"]}">Conversation '
        f"{html.escape(letter)}</span>{dialog_html([(t['role'], t['text']) for t in turns], placeholder=False)}"
        f"</div>"
        for letter, turns in conversations
    )
    return f'<div class="infact-pair">{intro}<div style="{PAIR_STYLE}">{body}</div></div>'


def _pairwise_form(flow: Flow, progress: Progress, step: Step, noun: str) -> None:
    """Per criterion "Which … is more …?" (A, B, the tie label, "both bad" if offered) and the justification."""
    proto = flow.cfg.protocol
    with st.form(f"form-{step.name}"):
        options = ["A", "B"] + [proto.tie_label] * proto.allow_tie + [proto.both_bad_label] * proto.allow_both_bad
        choices = {
            crit.id: st.radio(
                proto.question_for(crit.id),
                options,
                index=None,
                horizontal=True,
                format_func=lambda o: f"{noun} {o}" if o in ("A", "B") else o,
                key=f"{step.name}-{crit.id}",
            )
            for crit in flow.cfg.criteria
        }
        why, typing = "", None
        if proto.justification != "off":
            need = (
                f" (at least {proto.justification_min_chars} characters)"
                if proto.justification == "required"
                else " (optional)"
            )
            block = flow.cfg.quality.block_paste
            typed_text.note(block, flow.cfg.texts.no_ai_tools)
            typing = typed_text.watch(step.name, block_paste=block).get(f"{step.name}-why")
            why = st.text_area(f"Briefly, why?{need}", key=f"{step.name}-why", max_chars=2000)
        submit_button(
            flow,
            progress,
            step,
            "Submit and continue",
            f"submit-{step.name}",
            {"choices": choices, "justification": why, "typing": typing},
        )


@renderer("onboarding")
def onboarding_step(flow: Flow, progress: Progress, step: Step) -> None:
    from infact.study.gold_pairs import read_gold_pairs

    pairs = read_gold_pairs(flow.study.folder, flow.cfg.protocol.onboarding)
    dialogs = bool(pairs) and isinstance(pairs[0]["a"], list)
    better = (
        "one conversation's chatbot is clearly the better one"
        if dialogs
        else "one response is clearly the better next message"
    )
    st.markdown(
        f"**Before the study: {len(pairs)} practice examples.** In each, {better}. "
        "Choose it to show you have understood the task."
    )
    with st.form(f"form-{step.name}"):
        gold = {}
        for i, pair in enumerate(pairs, start=1):
            with st.container(border=True):
                st.markdown(f"**Example {i}**")
                if isinstance(pair["a"], list):  # a dialog-level study's gold pair: two whole conversations
                    _conversation_pair(pair.get("topic", ""), [("A", pair["a"]), ("B", pair["b"])])
                    noun = "Conversation"
                else:
                    render_dialog(_turns(pair["context"]))
                    for col, (letter, key) in zip(st.columns(2), (("A", "a"), ("B", "b"))):
                        with col:
                            render_response(letter, pair[key])
                    noun = "Response"
                gold[str(i)] = st.radio(
                    flow.cfg.protocol.question_for(flow.cfg.criteria[0].id),
                    ["A", "B"],
                    index=None,
                    horizontal=True,
                    format_func=lambda o, n=noun: f"{n} {o}",
                    key=f"onboarding-{i}",
                )
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
            with st.container(key=f"infact-bw-{step.name}-{crit.id}"):  # large framed targets (display.CSS)
                best[crit.id] = st.radio(
                    "Best response", letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-best"
                )
                worst[crit.id] = st.radio(
                    "Worst response", letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-worst"
                )
        submit_button(
            flow, progress, step, "Submit and continue", f"submit-{step.name}", {"best": best, "worst": worst}
        )
