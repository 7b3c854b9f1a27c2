"""The live chat step's page (issue 14): chat A → rubric → chat B → rubric → vote (infact/chat/arena.py)."""

from __future__ import annotations

import streamlit as st

from infact.chat.arena import Phase
from infact.chat.contract import failure_message
from infact.participation.chat_display import chat_html, lines_of, vote_note
from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress
from infact.text import typed
from infact.text.catalogue import N_, _, ngettext, number
from infact.text.display import caption_html, progress_html, screen_script
from infact.ui import typed_text
from infact.ui.participant_page import show_errors, submit
from infact.ui.resources import fail_safely, get_study, secrets, study_dir


@st.cache_resource(show_spinner=False)
def _live_clients(path: str, mtime: float) -> dict:
    from infact.chat.client import connect_all

    config = get_study().config
    return connect_all(config.live.systems, config.endpoints, secrets())


INPUT = N_("Type your message…")


def _progress(run, phase) -> None:
    from infact.chat.progress import position, progress_text

    n, total = position(phase, run.live.arena)
    screen = screen_script(f"{run.token}/live/{phase.name}/{phase.slot or ''}")  # a new screen opens at its top
    st.html(progress_html(progress_text(phase, run.live.arena), n - 1, total) + screen, unsafe_allow_javascript=True)


def _waiting_for(slot: str) -> tuple[str, str] | None:
    """What this run asks the system, read before anything is drawn: ("send", text) when
    Enter was pressed, ("retry", "") for Try again. The page first shows it waiting, then asks."""
    text = st.session_state.get(f"live-input-{slot}")
    if text and text.strip():
        return "send", text
    return ("retry", "") if st.session_state.get(f"live-retry-{slot}") else None


def _ask(run, slot: str, action: tuple[str, str], reports: dict) -> None:
    """The slow part, after the page shows the message and the typing state: then a rerun."""
    session = run.session(slot)
    if action[0] == "send":
        outcome = session.send(action[1], typing=typed_text.take(reports, f"live-input-{slot}", action[1].strip()))
    else:
        outcome = session.retry()
    if not outcome.ok and outcome.failure is None and outcome.message:
        st.session_state["errors"] = [outcome.message]  # refused (e.g. the chat ended): said on the rerun
    st.rerun()


def _live_chat(flow: Flow, run, slot: str, conv) -> None:
    live = flow.cfg.live
    block = flow.cfg.quality.block_paste
    reports = typed_text.watch(f"chat-{slot}", block_paste=block)  # hidden; the message's counts (typed_text.py)
    action = _waiting_for(slot) if conv.ended is None else None
    pending = action[1] if action and action[0] == "send" and not conv.awaiting_reply else None
    # A reload while another run of this participant still asks the system: wait for that answer here.
    due = _answer_due(live, conv) if action is None and conv.ended is None else 0.0
    _progress(run, Phase("chat", slot))
    st.markdown(_(live.task))
    typed_text.note(block, flow.cfg.texts.no_ai_tools)  # with the task: the chat input is pinned to the bottom
    st.subheader(_("Chatbot {slot}").format(slot=slot))
    sent = conv.user_turns + (1 if pending else 0)
    st.html(
        caption_html(
            ngettext(
                "{sent} of at most {n} message sent.", "{sent} of at most {n} messages sent.", live.max_turns
            ).format(sent=number(sent), n=number(live.max_turns))
        )
        + chat_html(lines_of(conv.turns), slot, pending=pending, typing=action is not None or due > 0)
    )
    if action is not None or due > 0:  # shown waiting, the input disabled, while the system answers
        # An empty slot where the warning and buttons were: the browser keeps a run's old elements
        # until they are replaced, so "Try again" and the timeout warning would stay beside "typing…".
        st.empty()
        st.chat_input(_(INPUT), key=f"live-input-{slot}", max_chars=1000, disabled=True)
        if action is not None:
            _ask(run, slot, action, reports)
        else:
            _await_answer(run, slot, conv, due)
        return
    with st.container():  # one slot for everything under the chat (see the st.empty above)
        _chat_controls(live, run, slot, conv)
    if not conv.awaiting_reply:  # else: answer the waiting message first (try again or skip)
        st.chat_input(_(INPUT), key=f"live-input-{slot}", max_chars=1000)  # read at the top of the next run
        show_errors()


ANSWER_GRACE_S = 2.0  # past the system's timeout, the asking run has stored its answer or its failure


def _answer_due(live, conv) -> float:
    """Seconds left for an answer another run is still waiting for (a reload mid-call), else 0."""
    if not conv.awaiting_reply or conv.last_error or not conv.turns or conv.turns[-1].role != "user":
        return 0.0
    system = live.systems.get(conv.system)
    sent = conv.turns[-1].at
    if system is None or not sent:
        return 0.0
    from datetime import UTC, datetime

    try:
        age = (datetime.now(UTC) - datetime.fromisoformat(sent)).total_seconds()
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, system.timeout_s + ANSWER_GRACE_S - age)


def _await_answer(run, slot: str, conv, seconds: float) -> None:
    """Read the conversation until the other run's answer (or failure) is stored, at most `seconds`; redraw."""
    import time

    end, seen = time.monotonic() + seconds, len(conv.turns)
    while time.monotonic() < end:
        time.sleep(min(0.3, max(0.0, end - time.monotonic())))
        if len(run.conversation(slot).turns) != seen:
            break
    st.rerun()


def _chat_controls(live, run, slot: str, conv) -> None:
    session = run.session(slot)
    answered = [t for t in conv.turns if t.role == "assistant" and t.ok]
    if live.turn_rating and answered and answered[-1].turn not in conv.turn_ratings and not conv.awaiting_reply:
        last = answered[-1].turn
        choice = st.segmented_control(
            _(live.turn_rating), ["Yes", "No"], format_func=_, key=f"live-rate-{conv.conversation_id}-{last}"
        )
        if choice is not None:
            session.rate_turn(last, choice == "Yes")
            st.rerun()
    if conv.awaiting_reply:
        # The words of the stored failure (a timeout says so), or a reload after the system was asked.
        st.warning(
            _(failure_message(conv.last_error))
            if conv.last_error
            else _(
                "Waiting for the chatbot's answer. Your conversation is saved. You can try again, or skip this chatbot."
            )
        )
        left, right = st.columns(2)
        left.button(_("Try again"), key=f"live-retry-{slot}", type="primary")  # answered at the top of the next run
        if right.button(_("Skip this chatbot"), key=f"live-skip-{slot}"):
            session.skip()
            st.rerun()
        return
    if run.can_end(conv):
        left, right = st.columns(2)
        if left.button(_("I found what I wanted: end the chat"), key=f"live-satisfied-{slot}"):
            session.end("satisfied")
            st.rerun()
        if right.button(_("I give up: end the chat"), key=f"live-frustrated-{slot}"):
            session.end("frustrated")
            st.rerun()


def _live_rubric(flow: Flow, run, slot: str) -> None:
    live = flow.cfg.live
    _progress(run, Phase("rubric", slot))
    st.subheader(_("About chatbot {slot}").format(slot=slot))
    st.markdown(_("How much do you agree with each statement about the conversation you just had?"))
    # Not in a form: an answer is the session's as soon as it is given, so a rerun before Continue (the
    # run chain after "end the chat", a late second click, a busy server) redraws it instead of wiping it.
    # A form keeps its answers in the browser until submitted: 4 of ~14 rubrics under load lost them.
    answers = {
        item.id: st.radio(
            f"{number(n)}. {_(item.question)}",
            live.rubric_scale,
            format_func=_,
            index=None,
            horizontal=True,
            key=f"live-rubric-{slot}-{item.id}",
        )
        for n, item in enumerate(live.rubric, start=1)
    }
    show_errors()
    if st.button(_("Continue"), type="primary", key=f"live-rubric-submit-{slot}"):
        errors = run.submit_rubric(slot, answers)
        if not errors:
            st.rerun()
        st.session_state["errors"] = errors
        show_errors()


def _reopen(conv) -> None:
    """One conversation, closed until the participant opens it: one expander and one HTML block."""
    with st.expander(
        _("Chatbot {slot}: read the conversation again").format(slot=conv.slot), key=f"live-reopen-{conv.slot}"
    ):
        st.html(chat_html(lines_of(conv.turns), conv.slot, empty=_("No messages.")))


def _live_vote(flow: Flow, run, records: list[dict]) -> None:
    live = flow.cfg.live
    convs = [run.conversation(slot, records) for slot in run.slots(records)]
    _progress(run, Phase("vote"))
    forfeit = any(c.never_answered for c in convs)
    st.subheader(_("There is nothing to compare") if forfeit else _("Which chatbot was better?"))
    note = vote_note(convs)
    if note:
        st.info(_(note))
    for conv in convs:
        if not conv.never_answered:
            _reopen(conv)
    if forfeit:  # no vote is asked: the page stores the forfeit (docs/live.md, "When a system fails")
        if st.button(_("Continue"), type="primary", key="live-vote-submit"):
            run.submit_vote("", "")
            st.rerun()
        return
    options = ["A", "B", *(["tie"] if live.allow_tie else []), *(["both_bad"] if live.allow_both_bad else [])]
    names = {
        "A": _("Chatbot {slot}").format(slot="A"),
        "B": _("Chatbot {slot}").format(slot="B"),
        "tie": _("About the same"),
        "both_bad": _("Both were bad"),
    }
    with st.form("form-live-vote"):
        choice = st.radio(
            _("Overall, which chatbot helped you better?"),
            options,
            index=None,
            horizontal=True,
            format_func=names.get,
            key="live-vote",
        )
        need = live.vote_reason_min_chars
        block = flow.cfg.quality.block_paste
        typed_text.note(block, flow.cfg.texts.no_ai_tools)
        report = typed_text.watch("vote", block_paste=block).get("live-vote-reason")
        reason = st.text_area(_("Why?") if need else _("Why? (optional)"), key="live-vote-reason", max_chars=2000)
        show_errors()
        if st.form_submit_button(_("Submit my vote"), type="primary", key="live-vote-submit"):
            typing = typed.metrics(report, (reason or "").strip())
            errors = run.submit_vote(choice or "", reason, typing=typing)
            if not errors:
                st.rerun()
            st.session_state["errors"] = errors
            show_errors()


def page(flow: Flow, progress: Progress, step: Step) -> None:
    from infact.participation.steps.live import live_run

    path = study_dir()
    try:
        clients = _live_clients(str(path), (path / "study.toml").stat().st_mtime)
    except (ImportError, AttributeError) as exc:  # a researcher's callable that does not load
        fail_safely(exc)
        return
    run = live_run(flow, step, clients)
    records = run.records()
    phase = run.phase(records)
    if phase.name == "chat":
        _live_chat(flow, run, phase.slot, run.conversation(phase.slot, records))
    elif phase.name == "rubric":
        _live_rubric(flow, run, phase.slot)
    elif phase.name == "vote":
        _live_vote(flow, run, records)
    else:  # everything is stored: the page itself is submitted
        submit(flow, progress, step, {})
        show_errors()
