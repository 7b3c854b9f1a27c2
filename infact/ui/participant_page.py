"""The participant's page: arrival, resume, drawing the current step, submitting, withdrawal.

Kept out of pages/participant.py so the page script stays a few lines: Streamlit compiles a
page script on every run under AppTest, an imported module once. Each kind's page is the function its
registration names (infact/kinds/<name>.py → infact/ui/steps/<name>.py), found through infact/ui/hooks.py.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from infact.errors import InfactError
from infact.participation import steps, visits
from infact.participation.flow import Flow
from infact.participation.platforms import IdInUse, PlatformError, may_resume, same_id
from infact.participation.steps import Step
from infact.state import Progress, ProgressCache
from infact.stores.records import StorageError, StoreUnavailable
from infact.study.protocol_config import block_texts, protocol_of
from infact.text.catalogue import _, number
from infact.text.display import dialog_html, forget_script, page_css, page_script, response_html, title_html
from infact.ui import hooks, outage, resources

# NOT_SAVED, WAITING, PLACE: tests read them from here too
from infact.ui.resources import NOT_SAVED, PLACE, STALE_TAB, WAITING, Visitor, get_flow, log


def render_dialog(turns, placeholder: bool = True, intro: str | None = None, items=()) -> None:
    st.html(dialog_html([(t.role, t.text) for t in turns], placeholder, intro, items))


def render_response(letter: str, text: str, items=()) -> None:
    st.html(response_html(letter, text, items))


REMEMBER_DAYS = 30  # how long this browser resumes its participant from the bare link


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
        _give_back_place()
        return None, checked.errors
    source = resources.client_source()  # None: no browser connection (AppTest), no bound to apply
    if source is not None and not visitor.preview:
        _wait_for_turn(flow, source)
    try:
        token = flow.arrive(visitor.query, preview=visitor.preview)
    except IdInUse as exc:  # the same platform ID consented in another session meanwhile
        return None, (_(exc.participant_message),)
    flow.mark_shown(flow.state(token), step, at=visitor.shown_at)
    if visitor.visit:
        try:
            visits.store_consent(flow.storage, flow.study, visitor.visit, token, flow.clock())
        except Exception:
            log.warning("INFACT: the consent of visit %s could not be linked to it", visitor.visit, exc_info=True)
    remember(token)
    return token, ()


def _wait_for_turn(flow: Flow, source: str) -> None:
    """Take this visitor's place at the consent gate (or the one a previous run of this session took) and
    wait until it comes, saying so in a short message that counts down. A rerun meanwhile (a second press)
    keeps the place; a closed tab gives it back. Nothing is stored before it comes."""
    place = st.session_state.get(PLACE) or visits.consent_gate(flow.study).admit(source)
    if place.wait() <= 0:
        st.session_state.pop(PLACE, None)
        return
    st.session_state[PLACE] = place
    log.info("INFACT: a start waits %.1f s for its place (visits.ConsentGate)", place.wait())
    note = st.empty()
    try:
        while (left := place.wait()) > 0:
            note.info(_(WAITING).format(seconds=number(max(1, math.ceil(left)))), icon=":material/hourglass_top:")
            time.sleep(min(1.0, left))
    except StopException:  # the session ends (tab closed): the place goes to the next one
        _give_back_place()
        raise
    note.empty()
    st.session_state.pop(PLACE, None)


def _give_back_place() -> None:
    place = st.session_state.pop(PLACE, None)
    if place is not None:
        place.give_back()


def start_pending() -> bool:
    """A press of "Start the study" is waiting for its place (a rerun came between): carry on without
    another press."""
    return PLACE in st.session_state


def submit(flow: Flow, progress: Progress | Visitor, step: Step, answers: dict) -> None:
    """Submit a page; the cached progress becomes what the submit read back from storage."""
    try:
        token = progress.token
        if token is None:
            token, errors = _join(flow, progress, step, answers)
            if token is None:
                st.session_state["errors"] = list(errors)
                return
        result = flow.submit(token, step.name, answers)
    except (StorageError, OSError) as exc:
        _not_stored(flow, step, exc)
        return
    progress_cache().put(flow, result.state)
    here = st.session_state.setdefault("infact_submitted_here", set())
    if result.ok and result.stored:
        here.add(step.name)
    elif result.ok and step.name not in here:  # stored from another tab: say so, then move on
        st.session_state["infact_notice"] = _(STALE_TAB)
    if result.ok:
        st.rerun()
    st.session_state["errors"] = list(result.errors)


def _not_stored(flow: Flow, step: Step, exc: BaseException) -> None:
    """A submit the store did not take. The store is away (an outage): the page pauses, logged once per
    outage. The store reads but refused this write: say it is THIS answer, beside its button."""
    progress_cache().drop()  # read back from storage on the next run: what is stored, not what was hoped
    if outage.is_outage(exc, flow.storage, flow.study.id):
        outage.OUTAGE.failed(exc)
        st.session_state["infact_outage_submit"] = True
        st.rerun()
    log.error("INFACT: a submit of step %s could not be stored: %s", step.name, exc, exc_info=True)
    st.session_state["errors"] = [_(NOT_SAVED)]


def show_errors() -> None:
    errors = st.session_state.pop("errors", [])
    if len(errors) == 1:
        st.error(errors[0])
    elif errors:  # one box, not a wall of them
        st.error(_("Please answer every question before continuing:") + "\n\n" + "\n".join(f"- {m}" for m in errors))


def submit_button(flow, progress: Progress | Visitor, step: Step, label: str, key: str, answers: dict, keys=None):
    """The form's last errors, then its submit button; with `keys` (the widget keys of `answers`) resources.on_press."""
    show_errors()
    press = {} if keys is None else {"on_click": resources.on_press, "args": (submit, flow, progress, step, keys)}
    if st.form_submit_button(label, type="primary", key=key, **press) and keys is None:
        submit(flow, progress, step, answers)
        show_errors()


def withdraw_box(flow: Flow, token: str | None) -> None:
    # Set apart by a line drawn in CSS (display.CSS: .st-key-infact-withdraw), not a divider element.
    with st.expander(_("Withdraw from the study"), key="infact-withdraw"):
        if token is None:  # nothing stored yet; the same layout on every step (see display.CSS)
            st.write(
                _(
                    "You have not started yet and nothing is stored. If you do not want to take part, "
                    "simply close this page."
                )
            )
            return
        st.write(
            _(
                "You can stop at any time without giving a reason. Your answers will be marked as withdrawn "
                "and not used."
            )
        )
        if st.button(_("Withdraw and leave"), key="withdraw"):
            flow.withdraw(token, "participant clicked withdraw")
            progress_cache().drop()  # rebuilt from storage on the rerun
            st.rerun()


def start_over_button(flow: Flow, progress: Progress) -> None:
    """The explicit choice to start as a new participant in this browser (own recruitment only)."""
    st.caption(_("Someone else wants to take part on this device?"))
    if st.button(_("Start the study as a new participant"), key="start_over"):
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
    preview = resources.is_researcher()
    query = {k: st.query_params.get_all(k) for k in st.query_params.keys() if k != "p"}
    try:
        arrival, resume = flow.admit({**query, "p": token} if token else query, preview=preview)
    except PlatformError as exc:
        st.error(_(exc.participant_message))
        st.text(
            _("Details for the researcher: {reason}").format(reason=exc.reason)
        )  # holds URL values: plain text, no Markdown
        return None
    except IdInUse as exc:  # a platform ID without its session: reveal nothing, store nothing
        st.warning(_(exc.participant_message))
        return None
    if arrival.mturk_preview:
        # MTurk HIT preview: the worker has not accepted the HIT; describe, do not start.
        st.markdown(_(flow.cfg.texts.welcome))
        st.info(_("Please accept the HIT to start the study."))
        return None
    if resume is None and not preview:
        mine = remembered(flow)
        progress = cache.get(flow, mine) if mine else None
        if progress is not None and (
            arrival.platform_id is None
            or (
                same_id(progress.state.arrival.get("platform_id"), arrival.platform_id)
                # another SESSION_ID is another submission (issue 36): never the one this browser remembers
                and (arrival.session_id is None or may_resume(progress.state.arrival, arrival))
            )
        ):
            resume = mine
    if resume is not None:
        remember(resume)
        return cache.get(flow, resume)
    if token:
        # A personal link we do not know: say so instead of silently starting over.
        st.warning(
            _(
                "We could not find your session from this link. If you have already started, "
                "please open the exact link from your browser's address bar or history."
            )
        )
        if st.button(_("Start the study from the beginning"), key="restart"):
            del st.query_params["p"]
            st.rerun()
        return None
    return Visitor(
        query,
        preview,
        st.session_state.setdefault("infact_visitor_shown", flow.clock()),
        visit=None if preview else _visit(flow, arrival),
    )


def _visit(flow: Flow, arrival) -> str:
    """This visitor's visit id, stored once per visit (visits.py): Back, Forward and a reload
    bring the browser's cookie, so they are the same visit."""
    # cookies are read when the tab connects: within a session, the id this session made first
    remembered = st.session_state.get("infact_visit") or st.context.cookies.get(visits.cookie_name(flow.study))
    visit = visits.visit_id(flow.study, arrival, remembered)
    if st.session_state.get("infact_visit") != visit:
        try:
            visits.store_visit(flow.storage, flow.study, visit, flow.clock())
        except Exception as exc:
            if outage.is_outage(exc, flow.storage, flow.study.id):  # counted in the outage: one log line
                outage.OUTAGE.failed(exc)
            else:
                log.warning("INFACT: the visit %s could not be recorded; the participant goes on", visit, exc_info=True)
        st.session_state["infact_visit"] = visit
    return visit


Draw = Callable[..., object]


def arrive(flow: Flow) -> tuple[Progress | Visitor | None, Draw]:
    """The participant named in the URL (from the session cache when this session already
    read them), else whom `_newcomer` finds; and how to draw the page's head. Back, Forward
    and reload never make a second participant: nobody is stored before consent, and this
    tab and browser remember theirs."""
    token = st.query_params.get("p")
    progress = progress_cache().get(flow, token) if token else None
    if progress is not None:  # every rerun of a known participant: nothing drawn yet
        st.session_state["infact_token"] = token
        return progress, st.html
    head = st.empty()  # what _newcomer says comes below the stylesheet and the title
    head.html(page_css() + title_html(flow.cfg.study.title))
    return _newcomer(flow, token), head.html


def _page_script(flow: Flow, progress: Progress | Visitor, step: Step) -> str:
    """The page's JavaScript for this step: top of page, click guard, remembered token, redirect."""
    token = progress.token
    cookie = None if token is None else (cookie_name(flow), token, REMEMBER_DAYS * 86400)
    if token is None and getattr(progress, "visit", None):
        cookie = (visits.cookie_name(flow.study), progress.visit, visits.COOKIE_MAX_AGE)
    redirect = None
    if step.kind == "done" and progress.state is not None:
        completion = flow.completion(progress.state)  # None until every answer is stored
        redirect = completion.redirect_url if completion is not None else None
    forget = st.session_state.get("infact_forgotten")
    extra = forget_script(cookie_name(flow)) if forget and token is None else ""
    return page_script(f"{token or 'visitor'}/{step.name}", cookie=cookie, redirect_url=redirect) + extra


def _messages(progress: Progress | Visitor) -> list[str]:
    out = []
    if progress.state is not None and progress.state.preview:
        out.append(_("Preview mode: your answers are stored as a preview and never count."))
    notice = st.session_state.pop("infact_notice", None)
    back = outage.back_notice()
    unsent = _(NOT_SAVED) if st.session_state.pop("infact_outage_submit", False) else None  # e.g. a consent
    return out + [m for m in (back, unsent, notice) if m]


def _draw_head(flow: Flow, progress: Progress | Visitor, step: Step, draw: Draw) -> None:
    """The page's first element: stylesheet, this step's script, title and the step's top.
    Messages (preview, another tab) go between the title and the step's top."""
    head = page_css() + _page_script(flow, progress, step) + title_html(flow.cfg.study.title)
    draw_top = hooks.page_top(step.kind)
    top = draw_top(flow, progress, step) if draw_top else ""
    messages = _messages(progress)
    if not messages:
        draw(head + top, unsafe_allow_javascript=True)
        return
    draw(head, unsafe_allow_javascript=True)
    for message in messages:
        st.info(message)
    if top:
        st.html(top)


def _new_block(flow: Flow, progress: Progress | Visitor, step: Step):
    """The texts of the block `step` opens, when it is the first step of a later block of a `[flow]`
    study whose task-change screen this tab has not shown yet; else None."""
    kind = protocol_of(step.kind)
    if kind is None or len(flow.cfg.blocks) < 2 or progress.state is None:
        return None
    texts = block_texts(flow.cfg, kind)
    if texts.intro is None or (progress.token, kind) in st.session_state.get("infact_blocks_seen", set()):
        return None
    first = next((s for s in flow.steps(progress.state) if s.kind == step.kind), None)
    return texts if first is not None and first.name == step.name else None


def _task_change(flow: Flow, progress: Progress, step: Step, texts, draw: Draw) -> None:
    """ "Part 2 of 2: the task changes", the block's instructions and Continue (nothing is stored)."""
    draw(
        page_css() + page_script(f"{progress.token}/{step.name}/intro") + title_html(flow.cfg.study.title),
        unsafe_allow_javascript=True,
    )
    st.subheader(_("Part {number} of {count}").format(number=number(texts.number), count=number(texts.count)))
    st.markdown(_(texts.intro))
    st.markdown(_(texts.instructions))
    if st.button(_("Continue"), type="primary", key=f"block-intro-{step.kind}"):
        st.session_state.setdefault("infact_blocks_seen", set()).add((progress.token, protocol_of(step.kind)))
        st.rerun()
    withdraw_box(flow, progress.token)


def participant_page() -> None:
    resources.use_study_language()
    try:
        flow = get_flow()
    except StoreUnavailable as exc:  # the store cannot even be opened (a process started during an outage)
        outage.paused_page(None, exc)
        return
    except InfactError as exc:
        # Details hold server paths: they go to the log and the researcher's dashboard, never to participants.
        log.error("study not available:\n%s", "\n".join(str(p) for p in exc.problems))
        st.html(page_css())
        st.title(_("This study is not available right now"))
        st.info(_("Please try again later. If this persists, contact the researchers who invited you."))
        return
    try:
        outage.after_unsent_submit(flow.storage, flow.study.id)
        resources.raise_deferred()
        _participant_run(flow)
    except outage.OUTAGE_ERRORS as exc:  # the store is away: told as an outage, never as a lost session
        if not outage.is_outage(exc, flow.storage, flow.study.id):
            raise  # an OSError of something else, the store reads: the calm error page (fail_safely)
        outage.paused_page(flow, exc)
        return
    if outage.OUTAGE.active:  # this run met no outage: is the store back? (asked only during one)
        outage.store_back(flow.storage, flow.study.id)


def _participant_run(flow: Flow) -> None:
    progress, draw = arrive(flow)
    if progress is None:
        return
    flow, step = flow.of(progress.state), progress.current  # flow.of: the participant's condition's settings
    if (block := _new_block(flow, progress, step)) is not None:
        _task_change(flow, progress, step, block, draw)  # a short screen before a [flow] study's next block
        return
    _draw_head(flow, progress, step, draw)
    answered = steps.get(step.kind).answered
    if answered and progress.state is not None:
        flow.mark_shown(progress.state, step)  # stores once per step; the cached state remembers it
    hooks.page(step.kind)(flow, progress, step)
    if answered:
        withdraw_box(flow, progress.token)
