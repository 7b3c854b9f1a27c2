"""Renderers of the comparison protocols: pairwise (responses or, ACUTE-style, whole conversations),
the onboarding with gold pairs, best–worst (issue 13)."""

from __future__ import annotations

import html

import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.participation.steps.compare import shown_texts
from infact.state import Progress
from infact.study.protocol_config import PROTOCOL_OF, block_texts
from infact.text.catalogue import _, ngettext, number
from infact.text.display import STYLE, dialog_html, escape
from infact.ui import typed_text
from infact.ui.participant_page import render_dialog, render_response, renderer, submit_button
from infact.values import response_letter


def _step_header(flow: Flow, progress: Progress, step: Step, what: str = "responses") -> None:
    done, total = flow.progress(progress.state)
    line = _("Situation {n} of {total}") if what == "responses" else _("Pair of conversations {n} of {total}")
    st.progress(done / total, text=line.format(n=number(step.index), total=number(total)))
    texts = block_texts(flow.cfg, PROTOCOL_OF.get(step.kind, step.kind))  # a [flow] study's block has its own
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


def _pairwise_form(flow: Flow, progress: Progress, step: Step, noun: str) -> None:
    """Per criterion "Which … is more …?" (A, B, the tie label, "both bad" if offered) and the justification."""
    proto = flow.cfg.protocol
    with st.form(f"form-{step.name}"):
        options = ["A", "B"] + [proto.tie_label] * proto.allow_tie + [proto.both_bad_label] * proto.allow_both_bad
        choices = {
            crit.id: st.radio(
                _question(proto, crit.id),
                options,
                index=None,
                horizontal=True,
                format_func=lambda o: _letter(noun, o) if o in ("A", "B") else _(o),
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


@renderer("onboarding")
def onboarding_step(flow: Flow, progress: Progress, step: Step) -> None:
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
                    _conversation_pair(pair.get("topic", ""), [("A", pair["a"]), ("B", pair["b"])])
                    noun = "Conversation"
                else:
                    render_dialog(_turns(pair["context"]))
                    for col, (letter, key) in zip(st.columns(2), (("A", "a"), ("B", "b"))):
                        with col:
                            render_response(letter, pair[key])
                    noun = "Response"
                gold[str(i)] = st.radio(
                    _question(flow.cfg.protocol, flow.cfg.criteria[0].id),
                    ["A", "B"],
                    index=None,
                    horizontal=True,
                    format_func=lambda o, n=noun: _letter(n, o),
                    key=f"onboarding-{i}",
                )
        submit_button(flow, progress, step, _("Continue to the study"), "submit-onboarding", {"gold": gold})


def _question(proto, criterion: str) -> str:
    """The protocol's question (a catalogue string unless the study wrote its own) about `criterion`."""
    return _(proto.question).replace("{criterion}", criterion)


def _letter(noun: str, letter: str) -> str:
    """ "Response A" / "Conversation B" in the participant's language."""
    return (_("Conversation {letter}") if noun == "Conversation" else _("Response {letter}")).format(letter=letter)


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
            st.markdown(_question(flow.cfg.protocol, crit.id))
            with st.container(key=f"infact-bw-{step.name}-{crit.id}"):  # large framed targets (display.CSS)
                best[crit.id] = st.radio(
                    _("Best response"), letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-best"
                )
                worst[crit.id] = st.radio(
                    _("Worst response"), letters, index=None, horizontal=True, key=f"{step.name}-{crit.id}-worst"
                )
        submit_button(
            flow, progress, step, _("Submit and continue"), f"submit-{step.name}", {"best": best, "worst": worst}
        )
