"""The one Streamlit helper module: cached resources, secrets, and rendering.

Everything else in `infact/` is plain Python; pages call these helpers.
"""

from __future__ import annotations

import logging
import os
import traceback
from pathlib import Path
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping

import streamlit as st

from infact.deployment import study_folder
from infact import researcher_session
from infact.errors import InfactError
from infact.participation import situation_load
from infact.participation import steps
from infact.participation.flow import Flow, utcnow
from infact.participation.steps import Step
from infact.participation.steps.questionnaire import COMMENT_ITEM
from infact.participation.steps.compare import shown_texts
from infact.participation.steps.situation import response_text
from infact.state import Progress, ProgressCache
from infact.values import response_letter
from infact.participation.platforms import IdInUse, PlatformError, same_id
from infact.storage import Storage, open_storage
from infact.stores.config import resolve_store
from infact.study.loader import Study, load_study
from infact.participation.display import CSS, dialog_html, forget_script, page_script, response_html, return_link_html

log = logging.getLogger("infact")


def _per_session(key: Any, resolve: Callable[[], Any]) -> Any:
    """Resolved once per browser session, not on every rerun: deployment settings (reading
    st.secrets parses its file again each time) and references to the shared study and
    store (a cache_resource lookup hashes its arguments each time)."""
    resolved = st.session_state.setdefault("infact_deployment", {})
    if key not in resolved:
        resolved[key] = resolve()
    return resolved[key]


def study_dir() -> Path:
    """INFACT_STUDY (env) or [study] dir in secrets, else the bundled demo (infact/deployment.py)."""
    return _per_session("study_dir", lambda: study_folder(os.environ, secrets())[0])


def secrets() -> Mapping[str, Any]:
    """st.secrets as a plain dict; empty when there is no secrets.toml at all."""
    try:
        return {k: st.secrets[k] for k in st.secrets.keys()}
    except Exception:  # StreamlitSecretNotFoundError and parse errors alike
        return {}


@st.cache_resource(show_spinner=False)
def _study(path: str, mtime: float) -> Study:
    return load_study(path)


def get_study() -> Study:
    """The study, loaded and validated once (reloaded if study.toml changes)."""
    path = study_dir()
    try:
        mtime = (path / "study.toml").stat().st_mtime
    except OSError:
        mtime = 0.0
    # The session keeps its reference: a cache_resource lookup hashes its arguments on every rerun.
    return _per_session(("study", str(path), mtime), lambda: _study(str(path), mtime))


@st.cache_resource(show_spinner=False)
def _storage(target: str) -> Storage:
    # One store shared by every session (thread): all backends serialise access.
    return open_storage(target)


def store_target(study: Study) -> tuple[str, str]:
    return _per_session(("store", study.id), lambda: resolve_store(study.id, secrets()))


def get_storage(study: Study) -> Storage:
    target = store_target(study)[0]
    return _per_session(("storage", target), lambda: _storage(target))


def get_flow() -> Flow:
    study = get_study()
    storage = get_storage(study)
    # Once per server: read the situation load now, not at the first consent (slow at 10,000 participants).
    situation_load.for_store(storage, study.id).warm_in_background(utcnow)
    return Flow(study, storage)


def render_dialog(turns, placeholder: bool = True, intro: str | None = None, items=()) -> None:
    st.html(dialog_html([(t.role, t.text) for t in turns], placeholder, intro, items))


def render_response(letter: str, text: str, items=()) -> None:
    st.html(response_html(letter, text, items))


def show_problems(exc: InfactError, title: str) -> None:
    st.error(title)
    st.code("\n".join(str(p) for p in exc.problems), language=None)


def fail_safely(exc: BaseException, audience: str = "participant") -> None:
    """Log the traceback for the operator; show people a calm message, never the trace."""
    log.error("unexpected error: %s", "".join(traceback.format_exception(exc)))
    if audience == "participant":
        st.error("Sorry, something went wrong on our side. Your answers so far are saved. "
                 "Please reload the page in a moment; you will continue where you left off.")
    else:
        st.error(f"Unexpected error ({type(exc).__name__}); the details are in the server log.")


def _signing_key() -> bytes | None:
    # Once per session: every rerun of every page asks for it (keep_researcher_signed_in).
    return _per_session("signing_key", lambda: researcher_session.signing_key(secrets()))


def is_researcher() -> bool:
    """Signed in during this session, or earlier in this browser (a reload): infact.researcher_session."""
    if st.session_state.get("researcher_signed_in"):
        return True
    if st.session_state.get("researcher_signed_out"):
        return False
    try:
        cookie = st.context.cookies.get(researcher_session.COOKIE)
    except Exception:  # no browser connection (bare script runs)
        cookie = None
    if researcher_session.valid(cookie, _signing_key()):
        st.session_state["researcher_signed_in"] = True
        st.session_state["researcher_cookie_set"] = True  # the browser has it already
        return True
    return False


def keep_researcher_signed_in() -> None:
    """Once per session: after sign-in put the signed token in a cookie, after sign-out delete it."""
    key = _signing_key()
    if key is None:
        return
    state = st.session_state
    if state.get("researcher_signed_in"):
        state.pop("researcher_signed_out", None)
        if not state.get("researcher_cookie_set"):
            state["researcher_cookie_set"] = True
            st.html(researcher_session.cookie_script(researcher_session.token(key)), unsafe_allow_javascript=True)
    elif state.get("researcher_signed_out") and state.pop("researcher_cookie_set", True):
        st.html(researcher_session.cookie_script(None), unsafe_allow_javascript=True)


# -- the participant's page ----------------------------------------------------
# Kept here rather than in pages/participant.py so the page script stays a few lines:
# Streamlit compiles a page script on every run under AppTest, an imported module once.

REMEMBER_DAYS = 30  # how long this browser resumes its participant from the bare link
STALE_TAB = ("This page was already answered in another tab or window, so the answers given here "
             "were not stored. You continue with the next step.")


def page_header(flow: Flow) -> None:
    st.title(flow.cfg.study.title)


@dataclass
class Visitor:
    """Someone on the consent page who has not consented yet: nothing is stored for them.

    Stands in for a `Progress` until consent, when the arrival and the consent are
    stored together (`submit`)."""

    query: dict
    preview: bool
    shown_at: datetime  # stored with the consent: how long the consent page was read
    current: Step = field(default_factory=lambda: Step("consent", "consent"))
    state: None = None
    token: None = None


# Renderers by step kind: a step kind (infact/participation/steps/) draws its page here.
Renderer = Callable[[Flow, Progress, Step], None]
RENDERERS: dict[str, Renderer] = {}


def renderer(kind: str) -> Callable[[Renderer], Renderer]:
    """Register the function that draws the pages of step kind `kind`."""
    def add(fn: Renderer) -> Renderer:
        RENDERERS[kind] = fn
        return fn
    return add


def progress_cache() -> ProgressCache:
    return ProgressCache(st.session_state)


def cookie_name(flow: Flow) -> str:
    return f"infact-{flow.study.id}"


def remember(token: str) -> None:
    """This tab's participant: Back, Forward and the bare link come back to them."""
    st.session_state["infact_token"] = token
    st.query_params["p"] = token  # kept alongside the platform parameters


def remembered(flow: Flow) -> str | None:
    """The participant this tab (session) or this browser (cookie) already has."""
    token = st.session_state.get("infact_token")
    if token:
        return token
    cookie = st.context.cookies.get(cookie_name(flow))
    return None if cookie == st.session_state.get("infact_forgotten") else cookie


def _join(flow: Flow, visitor: Visitor, step: Step, answers: dict):
    """A visitor consents: store the arrival and the consent together (nothing before)."""
    checked = steps.get(step.kind).check(flow, step, answers)
    if checked.errors:
        return None, checked.errors
    try:
        token = flow.arrive(visitor.query, preview=visitor.preview)
    except IdInUse as exc:  # the same platform ID consented in another session meanwhile
        return None, (exc.participant_message,)
    flow.mark_shown(flow.state(token), step, at=visitor.shown_at)
    remember(token)
    return token, ()


def submit(flow: Flow, progress: Progress | Visitor, step: Step, answers: dict) -> None:
    """Submit a page; the cached progress becomes what the submit read back from storage."""
    token = progress.token
    if token is None:
        token, errors = _join(flow, progress, step, answers)
        if token is None:
            st.session_state["errors"] = list(errors)
            return
    result = flow.submit(token, step.name, answers)
    progress_cache().put(flow, result.state)
    here = st.session_state.setdefault("infact_submitted_here", set())
    if result.ok and result.stored:
        here.add(step.name)
    elif result.ok and step.name not in here:  # stored from another tab: say so, then move on
        st.session_state["infact_notice"] = STALE_TAB
    if result.ok:
        st.rerun()
    st.session_state["errors"] = list(result.errors)


def show_errors() -> None:
    errors = st.session_state.pop("errors", [])
    if len(errors) == 1:
        st.error(errors[0])
    elif errors:  # one box, not a wall of them
        st.error("Please answer every question before continuing:\n\n" + "\n".join(f"- {m}" for m in errors))


@renderer("consent")
def consent_step(flow: Flow, progress: Progress, step: Step) -> None:
    texts = flow.cfg.texts
    st.markdown(texts.welcome)
    with st.expander("Instructions: how to rate", expanded=True):
        st.markdown(texts.instructions)
    with st.expander("Terms of participation"):
        st.markdown(texts.terms)
    with st.expander("Data privacy"):
        st.markdown(texts.privacy)
    with st.form("form-consent", border=False):
        agreed = st.checkbox(texts.consent, key="consent")
        show_errors()
        if st.form_submit_button("Start the study", type="primary", key="consent_submit"):
            submit(flow, progress, step, {"consent": agreed})
            show_errors()


@renderer("situation")
def situation_step(flow: Flow, progress: Progress, step: Step) -> None:
    cfg = flow.cfg
    done, total = flow.progress(progress.state)
    st.progress(done / total, text=f"Situation {step.index} of {total}")
    st.caption(cfg.texts.situation_help)
    situation = flow.study.situation(step.situation_id)
    items = situation.meta.get("items") or ()  # what the importer marked as items: highlighted
    render_dialog(situation.context, items=items)
    with st.expander("Reminder: what does *meaningful* mean?"):
        st.markdown(cfg.texts.instructions)
    with st.form(f"form-{step.name}"):
        answers: dict[str, dict[str, str | None]] = {}
        for pos, system in enumerate(step.order, start=1):
            letter = response_letter(pos)
            with st.container(border=True):
                render_response(letter, response_text(cfg, situation, step, system), items)
                answers[system] = {}
                for crit in cfg.criteria:
                    # The group's accessible name says which response it rates.
                    answers[system][crit.id] = st.radio(
                        f"Response {letter}: {crit.question}", cfg.scale.labels, index=None, horizontal=True,
                        key=f"{step.name}-{letter}-{crit.id}")
        show_errors()
        if st.form_submit_button("Submit and continue", type="primary", key=f"submit-{step.name}"):
            submit(flow, progress, step, {"ratings": answers})
            show_errors()


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
        show_errors()
        if st.form_submit_button("Submit and continue", type="primary", key=f"submit-{step.name}"):
            submit(flow, progress, step, {"choices": choices, "justification": why})
            show_errors()


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
        show_errors()
        if st.form_submit_button("Continue to the study", type="primary", key="submit-onboarding"):
            submit(flow, progress, step, {"gold": gold})
            show_errors()


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
        show_errors()
        if st.form_submit_button("Submit and continue", type="primary", key=f"submit-{step.name}"):
            submit(flow, progress, step, {"best": best, "worst": worst})
            show_errors()


@renderer("questionnaire")
def questionnaire_step(flow: Flow, progress: Progress, step: Step) -> None:
    q = flow.cfg.questionnaire
    st.markdown(flow.cfg.texts.questionnaire_intro)
    with st.form("form-questionnaire"):
        answers: dict[str, str | None] = {}
        for n, item in enumerate(q.items, start=1):
            answers[item.id] = st.radio(f"{n}. {item.text}", q.scale, index=None, horizontal=True, key=f"q-{item.id}")
        if q.comment.enabled:
            answers[COMMENT_ITEM] = st.text_area(q.comment.question, max_chars=q.comment.max_chars, key="q-comment")
        show_errors()
        if st.form_submit_button("Continue", type="primary", key="submit-questionnaire"):
            submit(flow, progress, step, answers)
            show_errors()


@renderer("demographics")
def demographics_step(flow: Flow, progress: Progress, step: Step) -> None:
    st.markdown(flow.cfg.texts.demographics_intro)
    with st.form("form-demographics"):
        answers = {}
        for item in flow.cfg.demographics:
            answers[item.id] = st.radio(item.text, item.options, index=None, horizontal=True, key=f"d-{item.id}")
        show_errors()
        if st.form_submit_button("Finish", type="primary", key="submit-demographics"):
            submit(flow, progress, step, answers)
            show_errors()


@renderer("done")
def done_step(flow: Flow, progress: Progress, step: Step) -> None:
    texts = flow.cfg.texts
    state = progress.state
    if state.withdrawn is not None:
        st.info(texts.withdrawn)
        return
    completion = flow.completion(state)
    if completion is None:  # cannot happen once every step is stored; never show a code early
        st.warning("Saving your answers… please reload the page.")
        return
    if state.complete.get("outcome") == "screened_out":
        st.warning(texts.screened_out)
    else:
        st.success("All your answers are saved.")
        st.markdown(texts.completion)
    if completion.code:
        st.markdown("**Your completion code**")
        st.code(completion.code, language=None)
    st.write(completion.text)
    if completion.redirect_url:  # the page script redirects in this tab; the link is the fallback
        st.html(return_link_html(completion.redirect_url, "Return to Prolific"))
    if flow.cfg.platform.kind == "none":
        start_over_button(flow, progress)


def withdraw_box(flow: Flow, token: str | None) -> None:
    st.divider()
    with st.expander("Withdraw from the study"):
        if token is None:  # nothing stored yet; the same layout on every step (see display.CSS)
            st.write("You have not started yet and nothing is stored. If you do not want to take part, "
                     "simply close this page.")
            return
        st.write("You can stop at any time without giving a reason. Your answers will be marked as "
                 "withdrawn and not used.")
        if st.button("Withdraw and leave", key="withdraw"):
            flow.withdraw(token, "participant clicked withdraw")
            progress_cache().drop()  # rebuilt from storage on the rerun
            st.rerun()


def start_over_button(flow: Flow, progress: Progress) -> None:
    """The explicit choice to start as a new participant in this browser (own recruitment only)."""
    st.caption("Someone else wants to take part on this device?")
    if st.button("Start the study as a new participant", key="start_over"):
        st.session_state["infact_forgotten"] = st.context.cookies.get(cookie_name(flow))
        for key in ("infact_token", "infact_submitted_here", "infact_visitor_shown"):
            st.session_state.pop(key, None)
        progress_cache().drop()
        del st.query_params["p"]
        st.rerun()


def _newcomer(flow: Flow, token: str | None) -> Progress | Visitor | None:
    """Whom this URL brings when it names nobody this session knows: the participant
    resumed (platform session, this tab, this browser), a visitor to the consent page,
    or None when a message is shown instead."""
    cache = progress_cache()
    # A signed-in researcher's visit is always a preview: stored as one and never counted.
    preview = is_researcher()
    query = {k: st.query_params.get_all(k) for k in st.query_params.keys() if k != "p"}
    try:
        arrival, resume = flow.admit({**query, "p": token} if token else query, preview=preview)
    except PlatformError as exc:
        st.error(exc.participant_message)
        st.text(f"Details for the researcher: {exc.reason}")  # holds URL values: plain text, no Markdown
        return None
    except IdInUse as exc:  # a platform ID without its session: reveal nothing, store nothing
        st.warning(exc.participant_message)
        return None
    if arrival.mturk_preview:
        # MTurk HIT preview: the worker has not accepted the HIT; describe, do not start.
        st.markdown(flow.cfg.texts.welcome)
        st.info("Please accept the HIT to start the study.")
        return None
    if resume is None and not preview:
        mine = remembered(flow)
        progress = cache.get(flow, mine) if mine else None
        if progress is not None and (arrival.platform_id is None
                                     or same_id(progress.state.arrival.get("platform_id"), arrival.platform_id)):
            resume = mine
    if resume is not None:
        remember(resume)
        return cache.get(flow, resume)
    if token:
        # A personal link we do not know: say so instead of silently starting over.
        st.warning("We could not find your session from this link. If you have already started, "
                   "please open the exact link from your browser's address bar or history.")
        if st.button("Start the study from the beginning", key="restart"):
            del st.query_params["p"]
            st.rerun()
        return None
    return Visitor(query, preview, st.session_state.setdefault("infact_visitor_shown", flow.clock()))


def arrive(flow: Flow) -> Progress | Visitor | None:
    """The participant named in the URL (from the session cache when this session already
    read them), else whom `_newcomer` finds. Back, Forward and reload never make a second
    participant: nobody is stored before consent, and this tab and browser remember theirs."""
    token = st.query_params.get("p")
    progress = progress_cache().get(flow, token) if token else None
    if progress is not None:
        st.session_state["infact_token"] = token
        return progress
    return _newcomer(flow, token)


def _page_script(flow: Flow, progress: Progress | Visitor, step: Step) -> str:
    """The page's JavaScript for this step: top of page, click guard, remembered token, redirect."""
    token = progress.token
    cookie = None if token is None else (cookie_name(flow), token, REMEMBER_DAYS * 86400)
    redirect = None
    if step.kind == "done" and progress.state is not None:
        completion = flow.completion(progress.state)  # None until every answer is stored
        redirect = completion.redirect_url if completion is not None else None
    forget = st.session_state.get("infact_forgotten")
    extra = forget_script(cookie_name(flow)) if forget and token is None else ""
    return page_script(f"{token or 'visitor'}/{step.name}", cookie=cookie, redirect_url=redirect) + extra


def participant_page() -> None:
    head = st.empty()  # first on every page: the stylesheet, then this step's script
    head.html(CSS)
    try:
        flow = get_flow()
    except InfactError as exc:
        # Details hold server paths: they go to the log and the researcher's dashboard, never to participants.
        log.error("study not available:\n%s", "\n".join(str(p) for p in exc.problems))
        st.title("This study is not available right now")
        st.info("Please try again later. If this persists, contact the researchers who invited you.")
        return
    page_header(flow)
    progress = arrive(flow)
    if progress is None:
        return
    step = progress.current
    head.html(CSS + _page_script(flow, progress, step), unsafe_allow_javascript=True)
    if progress.state is not None and progress.state.preview:
        st.info("Preview mode: your answers are stored as a preview and never count.")
    notice = st.session_state.pop("infact_notice", None)
    if notice:
        st.info(notice)
    answered = steps.get(step.kind).answered
    if answered and progress.state is not None:
        flow.mark_shown(progress.state, step)  # stores once per step; the cached state remembers it
    RENDERERS[step.kind](flow, progress, step)
    if answered:
        withdraw_box(flow, progress.token)


# -- live chat (issue 14): chat A → rubric → chat B → rubric → vote; infact/chat/arena.py ----

@st.cache_resource(show_spinner=False)
def _live_clients(path: str, mtime: float) -> dict:
    from infact.chat.client import connect_all

    return connect_all(get_study().config.live.systems)


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


def show_ranking(result: dict | None, confidence: float) -> None:
    """Dashboard: is the ranking settled, strengths with intervals, the win-rate matrix (results/ranking_dashboard.py)."""
    from infact.results.ranking_dashboard import strength_chart, win_rate_matrix

    if result is None:
        st.info("No votes yet.")
        return
    if "error" in result:
        st.error(result["error"])
        return
    level = f"{confidence:.0%}"
    if result["settled"]["settled"]:
        st.success(f"The ranking is settled: every two adjacent ranks are separated at {level} confidence.")
    else:
        open_pairs = [f"{g['higher']} / {g['lower']}" for g in result["settled"]["adjacent"] if not g["separated"]]
        st.info(f"Not settled yet at {level} confidence: {', '.join(open_pairs)} still overlap.")
    st.altair_chart(strength_chart(result), use_container_width=True)
    rows = [{"rank": r["rank"], "system": r["system"], "strength": round(r["strength"], 2),
             "interval": f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]", "rank range": f"{r['rank_range'][0]}–{r['rank_range'][1]}"}
            for r in result["ranking"]]
    st.dataframe(rows, hide_index=True, key="ranking_table")
    matrix = win_rate_matrix(result)
    if matrix is not None:
        st.caption(f"Win rates (row beats column; ties count ½) from {result['n_votes']} votes by "
                   f"{result['n_participants']} participants; Davidson tie parameter {result['tie_parameter']:.2f}.")
        st.dataframe(matrix.style.format("{:.0%}", na_rep="–"), key="win_rate_matrix")
    else:
        st.dataframe(result["scores"], hide_index=True, key="best_worst_scores")


def show_judges(result: dict) -> None:
    """Dashboard: each automatic judge (judges/NAME.csv in the study folder) beside the human raters."""
    if "error" in result:
        st.error(result["error"])
        return
    if not result:
        st.info("No human answers yet to compare the judges with.")
        return
    st.caption("Agreement of each automatic judge with the human raters (docs/ranking.md): Kendall τ of the "
               "system ranking, Spearman of items, Krippendorff's α with the judge as one more coder (and the humans' "
               "own α), position and length bias.")
    cols = ["n_items", "kendall_tau_systems", "spearman_items", "krippendorff_alpha_with_humans",
            "krippendorff_alpha_humans", "position_bias", "length_bias"]
    st.dataframe([{"judge": name, **{c: j.get(c) for c in cols}} for name, j in result.items()],
                 hide_index=True, key="judges_table")
