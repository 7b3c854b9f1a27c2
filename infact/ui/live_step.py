"""Renderer of the live chat step (issue 14): chat A → rubric → chat B → rubric → vote (infact/chat/arena.py)."""

from __future__ import annotations


import streamlit as st

from infact.participation.flow import Flow
from infact.participation.steps import Step
from infact.state import Progress

from infact.ui.participant_page import renderer, show_errors, submit
from infact.ui.resources import fail_safely, get_study, secrets, study_dir


@st.cache_resource(show_spinner=False)
def _live_clients(path: str, mtime: float) -> dict:
    from infact.chat.client import connect_all

    config = get_study().config
    return connect_all(config.live.systems, config.endpoints, secrets())


def _chat_bubbles(conv) -> None:
    import html

    for turn in conv.turns:
        if turn.role == "assistant" and not turn.ok:
            continue  # failed attempts are stored, not shown: the waiting message says it
        with st.chat_message("user" if turn.role == "user" else "assistant"):
            # System output is data, not Markdown or HTML: escaped, shown as written.
            st.html(f'<div class="chat-text" style="white-space: pre-wrap">{html.escape(turn.text)}</div>')


def _live_chat(flow: Flow, run, slot: str, conv) -> None:
    live = flow.cfg.live
    st.markdown(live.task)
    st.subheader(f"Chatbot {slot}")
    st.caption(f"{conv.user_turns} of at most {live.max_turns} messages sent.")
    _chat_bubbles(conv)
    session = run.session(slot)
    answered = [t for t in conv.turns if t.role == "assistant" and t.ok]
    if live.turn_rating and answered and answered[-1].turn not in conv.turn_ratings and not conv.awaiting_reply:
        last = answered[-1].turn
        choice = st.segmented_control(live.turn_rating, ["Yes", "No"], key=f"live-rate-{conv.conversation_id}-{last}")
        if choice is not None:
            session.rate_turn(last, choice == "Yes")
            st.rerun()
    if conv.awaiting_reply:
        st.warning((conv.last_error and "The chatbot did not answer this time. ") or "Waiting for the chatbot's answer. ")
        st.caption("Your conversation is saved. You can try again, or skip this chatbot.")
        left, right = st.columns(2)
        if left.button("Try again", key=f"live-retry-{slot}", type="primary"):
            with st.spinner("The chatbot is typing…"):
                session.retry()
            st.rerun()
        if right.button("Skip this chatbot", key=f"live-skip-{slot}"):
            session.skip()
            st.rerun()
        return
    if run.can_end(conv):
        left, right = st.columns(2)
        if left.button("I found what I wanted: end the chat", key=f"live-satisfied-{slot}"):
            session.end("satisfied")
            st.rerun()
        if right.button("I give up: end the chat", key=f"live-frustrated-{slot}"):
            session.end("frustrated")
            st.rerun()
    text = st.chat_input("Type your message…", key=f"live-input-{slot}", max_chars=1000)
    if text:
        with st.spinner("The chatbot is typing…"):
            outcome = session.send(text)
        if not outcome.ok and outcome.failure is None and outcome.message:
            st.session_state["errors"] = [outcome.message]
        st.rerun()
    show_errors()


def _live_rubric(flow: Flow, run, slot: str) -> None:
    live = flow.cfg.live
    st.subheader(f"About chatbot {slot}")
    st.markdown("How much do you agree with each statement about the conversation you just had?")
    with st.form(f"form-live-rubric-{slot}"):
        answers = {item.id: st.radio(f"{n}. {item.question}", live.rubric_scale, index=None, horizontal=True,
                                     key=f"live-rubric-{slot}-{item.id}")
                   for n, item in enumerate(live.rubric, start=1)}
        show_errors()
        if st.form_submit_button("Continue", type="primary", key=f"live-rubric-submit-{slot}"):
            errors = run.submit_rubric(slot, answers)
            if not errors:
                st.rerun()
            st.session_state["errors"] = errors
            show_errors()


def _live_vote(flow: Flow, run) -> None:
    live = flow.cfg.live
    st.subheader("Which chatbot was better?")
    options = ["A", "B", *(["tie"] if live.allow_tie else [])]
    names = {"A": "Chatbot A", "B": "Chatbot B", "tie": "About the same"}
    with st.form("form-live-vote"):
        choice = st.radio("Overall, which chatbot helped you better?", options, index=None, horizontal=True,
                          format_func=names.get, key="live-vote")
        need = live.vote_reason_min_chars
        reason = st.text_area("Why?" + ("" if need else " (optional)"), key="live-vote-reason", max_chars=2000)
        show_errors()
        if st.form_submit_button("Submit my vote", type="primary", key="live-vote-submit"):
            errors = run.submit_vote(choice or "", reason)
            if not errors:
                st.rerun()
            st.session_state["errors"] = errors
            show_errors()


@renderer("live")
def live_step(flow: Flow, progress: Progress, step: Step) -> None:
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
        _live_vote(flow, run)
    else:  # everything is stored: the page itself is submitted
        submit(flow, progress, step, {})
        show_errors()
