"""Shared resources of every page: the study, the store, secrets, calm errors and the
researcher's sign-in (kept across reloads by infact/access/session.py)."""

from __future__ import annotations

import gc
import logging
import os
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import streamlit as st

from infact.access import session as researcher_session
from infact.access.source import request_source
from infact.deployment import study_folder
from infact.errors import InfactError
from infact.participation import situation_load
from infact.participation.flow import Flow, utcnow
from infact.participation.steps import Step
from infact.storage import Storage, open_storage
from infact.stores.config import resolve_store
from infact.study.loader import Study, load_study
from infact.text import catalogue
from infact.text.catalogue import N_, _
from infact.ui import media_guard, outage

log = logging.getLogger("infact")


def per_session(key: Any, resolve: Callable[[], Any]) -> Any:
    """Resolved once per browser session, not on every rerun: deployment settings (reading
    st.secrets parses its file again each time), references to the shared study and
    store (a cache_resource lookup hashes its arguments each time) and the app's pages
    (st.Page resolves and checks its file each time)."""
    resolved = st.session_state.setdefault("infact_deployment", {})
    if key not in resolved:
        resolved[key] = resolve()
    return resolved[key]


def freeze_warm_objects() -> None:
    """Once per process, after its first page is drawn: what is alive then (the imported modules of Streamlit,
    pandas and INFACT; the study) moves out of the garbage collector's reach (`gc.freeze`). Python's full
    collection scans every tracked object while every session waits: at a launch of 100 participants, three or
    four of them paused the process 160-250 ms each (its CPU, the rest of the heap being the sessions); frozen,
    each took half (bench/README.md, bench/burst.py). Nothing frozen is garbage: the modules live as long as
    the process."""
    if not _WARM["frozen"]:
        _WARM["frozen"] = True
        gc.collect()
        gc.freeze()


_WARM = {"frozen": False}


def study_dir() -> Path:
    """INFACT_STUDY (env) or [study] dir in secrets, else the bundled demo (infact/deployment.py)."""
    return per_session("study_dir", lambda: study_folder(os.environ, secrets())[0])


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
    return per_session(("study", str(path), mtime), lambda: _study(str(path), mtime))


@st.cache_resource(show_spinner=False)
def _storage(target: str) -> Storage:
    # One store shared by every session (thread): all backends serialise access.
    return open_storage(target)


def store_target(study: Study) -> tuple[str, str]:
    return per_session(("store", study.id), lambda: resolve_store(study.id, secrets()))


def get_storage(study: Study) -> Storage:
    target = store_target(study)[0]
    return per_session(("storage", target), lambda: _storage(target))


def get_flow() -> Flow:
    """This session's Flow (it holds no state of its own): a new one when the study is reloaded."""
    study = get_study()
    storage = get_storage(study)
    return per_session(("flow", id(study), id(storage)), lambda: _new_flow(study, storage))


def _new_flow(study: Study, storage: Storage) -> Flow:
    # Once per server: read the situation load now, not at the first consent (slow at 10,000 participants).
    situation_load.for_store(storage, study.id).warm_in_background(utcnow)
    return Flow(study, storage)


def show_problems(exc: InfactError, title: str) -> None:
    st.error(title)
    st.code("\n".join(str(p) for p in exc.problems), language=None)


def fail_safely(exc: BaseException, audience: str = "participant") -> None:
    """Log the traceback for the operator; show people a calm message, never the trace."""
    log.error("unexpected error: %s", "".join(traceback.format_exception(exc)))
    if audience == "participant":
        st.error(
            _(
                "Sorry, something went wrong on our side. Your answers so far are saved. "
                "Please reload the page in a moment; you will continue where you left off."
            )
        )
    else:
        st.error(f"Unexpected error ({type(exc).__name__}); the details are in the server log.")


def client_source() -> str | None:
    """Where this session's connection comes from, for per-source limits: the address a trusted proxy
    reports (infact/access/source.py: X-Forwarded-For only with the proxy secret, or from loopback /
    INFACT_TRUSTED_PROXIES without one), else the socket's peer ("local": Streamlit gives no address for
    localhost). None without a browser connection (AppTest, bare runs: no headers). A forged address only
    lets a client dodge a per-source limit, never the process-wide one."""
    try:
        headers = st.context.headers
        if not headers:
            return None
        return request_source(headers, st.context.ip_address)
    except Exception:  # no browser connection (bare script runs)
        return None


def _signing_key() -> bytes | None:
    # Once per session: every rerun of every page asks for it (keep_researcher_signed_in).
    return per_session("signing_key", lambda: researcher_session.signing_key(secrets()))


GENERATION_CHECK_SECONDS = 30  # a sign-out elsewhere ends an open dashboard within this


def _generation() -> int | None:
    """The store's current session generation (infact.access.session); None when the
    store cannot say, and then no cookie is trusted."""
    try:
        study = get_study()
        return researcher_session.generation(get_storage(study), study.id)
    except outage.OUTAGE_ERRORS as exc:  # counted in the outage: logged once, not at every check
        outage.OUTAGE.failed(exc)
        return None
    except Exception:
        log.warning("INFACT: the researcher session generation could not be read", exc_info=True)
        return None


def _still_current() -> bool:
    """A signed-in session's generation is re-read every GENERATION_CHECK_SECONDS: a sign-out in
    another browser or process ends this session too."""
    state = st.session_state
    if researcher_session.LOCAL_SIGN_OUTS.ends(state.get("researcher_since", 0.0)):
        _end_sign_in()  # a sign-out here the store could not record: at once, no store read needed
        return False
    issued = state.get("researcher_generation")
    if issued is None or time.monotonic() - state.get("researcher_generation_at", 0.0) < GENERATION_CHECK_SECONDS:
        return True
    state["researcher_generation_at"] = time.monotonic()
    if _generation() == issued:
        return True
    _end_sign_in()
    return False


def _end_sign_in() -> None:
    for key in ("researcher_signed_in", "researcher_by_password", "researcher_generation", "researcher_since"):
        st.session_state.pop(key, None)
    st.session_state["researcher_signed_out"] = True  # and the browser forgets its cookie


def is_researcher() -> bool:
    """Signed in during this session, or earlier in this browser (a reload) with a token of the
    current session generation: infact.access.session."""
    if st.session_state.get("researcher_signed_in"):
        return _still_current()
    if st.session_state.get("researcher_signed_out"):
        return False
    try:
        cookie = st.context.cookies.get(researcher_session.COOKIE)
    except Exception:  # no browser connection (bare script runs)
        cookie = None
    if not cookie or _signing_key() is None:
        return False
    current = _generation()
    if (
        current is not None
        and researcher_session.valid(cookie, _signing_key(), generation=current)
        and not researcher_session.LOCAL_SIGN_OUTS.ends(researcher_session.issued_at(cookie))
    ):
        st.session_state["researcher_signed_in"] = True
        st.session_state["researcher_since"] = researcher_session.issued_at(cookie)
        st.session_state["researcher_cookie_set"] = True  # the browser has it already
        st.session_state["researcher_generation"] = current
        st.session_state["researcher_generation_at"] = time.monotonic()
        return True
    return False


# Shown (keep_researcher_signed_in) until the next sign-in when the store refused the sign-out record.
SIGN_OUT_NOT_RECORDED = (
    "**The sign-out could not be recorded in the study's store** (it refused the write: read-only disk or "
    "database down; the details are in the server log). This browser is signed out and its sign-in cookie is "
    "deleted, and this app process refuses every sign-in made before now. But another app process (a replica "
    "behind a load balancer) still accepts a copy of the old cookie until it expires, at most "
    f"{researcher_session.LIFETIME_SECONDS // 3600} hours from sign-in, and a restart of this process forgets "
    "the sign-out. Once the store accepts writes again, sign in and sign out once more to end it everywhere."
)


def sign_out() -> bool:
    """End the sign-in here and on the server: a new session generation revokes every token
    issued before (a copied cookie too), then the browser is told to forget its cookie.
    Fails safe when the store refuses the record: this process ends every earlier sign-in
    (`LOCAL_SIGN_OUTS`), the cookie is deleted all the same, and the page says what is left
    (`SIGN_OUT_NOT_RECORDED`). Returns whether the sign-out was recorded in the store."""
    recorded = True
    try:
        study = get_study()
        researcher_session.sign_out(get_storage(study), study.id)
    except Exception:
        log.error("INFACT: the sign-out could not be recorded in the store", exc_info=True)
        recorded = False
        researcher_session.LOCAL_SIGN_OUTS.record()
    _end_sign_in()  # also forgets the sign-in cookie (keep_researcher_signed_in)
    if recorded:
        st.session_state.pop("researcher_sign_out_problem", None)
    else:
        st.session_state["researcher_sign_out_problem"] = SIGN_OUT_NOT_RECORDED
    return recorded


def keep_researcher_signed_in() -> None:
    """Once per session: after sign-in put the signed token in a cookie, after sign-out delete it."""
    key = _signing_key()
    if key is None:
        return
    state = st.session_state
    if state.get("researcher_signed_in"):
        media_guard.install_on_server()  # before any download button of the researcher pages is drawn
        state.pop("researcher_signed_out", None)
        state.pop("researcher_sign_out_problem", None)
        state.setdefault("researcher_since", time.time())  # a sign-in on this page (password, OIDC)
        if not state.get("researcher_cookie_set"):
            current = _generation()
            if current is None:
                return  # no cookie this time: the session itself stays signed in
            state["researcher_cookie_set"] = True
            state["researcher_generation"] = current
            state["researcher_generation_at"] = time.monotonic()
            st.html(
                researcher_session.cookie_script(researcher_session.token(key, generation=current)),
                unsafe_allow_javascript=True,
            )
    elif state.get("researcher_signed_out") and state.pop("researcher_cookie_set", True):
        st.html(researcher_session.cookie_script(None), unsafe_allow_javascript=True)
    if state.get("researcher_sign_out_problem") and not state.get("researcher_signed_in") and _first_call_this_run():
        st.error(state["researcher_sign_out_problem"])  # on every page (dashboard too) until the next sign-in


def _first_call_this_run() -> bool:
    """True once per script run: keep_researcher_signed_in runs in streamlit_app.py and again in the
    researcher pages (a fresh server serves them directly). Streamlit makes a new `cursors` dict for
    every run; the session keeps the last one seen (a reference, so its id is never reused)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    run = getattr(ctx, "cursors", None)
    if run is None:
        return True
    if st.session_state.get("infact_notice_run") is run:
        return False
    st.session_state["infact_notice_run"] = run
    return True


# ---------------------------------------------------------------- before a participant exists
# The participant page's own messages (catalogue strings, translated where shown), the visitor on the
# consent page and the page's language (infact/ui/participant_page.py).

STALE_TAB = N_(
    "This page was already answered in another tab or window, so the answers given here "
    "were not stored. You continue with the next step."
)
# A submit the store refused (read-only disk, database down): this answer is not saved, earlier ones are.
NOT_SAVED = N_(
    "Sorry, this answer could not be saved on our side, so it was **not** recorded. Please wait a "
    "moment and press the button again; your earlier answers are kept."
)
# More starts at once than the process (or this address) takes at once (visits.ConsentGate): the page
# keeps the participant's place and carries on by itself when it comes (`_wait_for_turn`).
WAITING = N_(
    "Many people are starting this study at this moment. Your place is kept: the study starts by itself "
    "in about {seconds} s. Please keep this page open."
)
PLACE = "infact_start_place"  # session state: the place this visitor holds at the gate, across reruns


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
    visit: str | None = None  # infact.participation.visits: counted in the funnel, not a participant


def use_study_language() -> None:
    """This run speaks the study's language (`[study] language`); English while no study can be read."""
    try:
        catalogue.use(get_study().config.study.language)
    except Exception:
        catalogue.use(catalogue.SOURCE)


# -- a form stored by its submit button's callback ----------------------------------------
# A step's form stored before the press's run: one script run per press instead of two.
#
# The submit button of a form used to be read in the run the press starts. That run drew the page just
# answered once more, down to its button, stored the answers, then `st.rerun()` drew the next page: two
# script runs, and two pages of elements sent, per press, where a plain Streamlit form needs one. With
# `keys` (the form's widget keys, in the shape of its answers) the button's `on_click` callback reads the
# answers from session state, which Streamlit fills with the form's values before any callback, and stores
# them; the single run that follows draws the next page, or the same page with what to correct
# (bench/burst.py, issue 38). The answer is stored as before: when the run starts, it is on disk.
#
# An error in the callback is kept and raised again at the top of that run, inside the page's own error
# handling (an outage pauses the page; anything else the calm error page): a participant never sees a
# traceback from a callback. Steps whose answers are not plain widget values keep the two runs.

DEFERRED = "infact_press_error"  # session state: an exception the submit callback raised

Keys = Mapping[str, "Keys"] | str


def answers_from_state(keys: Keys) -> Any:
    """`keys` with every widget key replaced by its widget's value (None when it has none)."""
    if isinstance(keys, Mapping):
        return {name: answers_from_state(sub) for name, sub in keys.items()}
    return st.session_state.get(keys)


def on_press(submit: Callable[..., None], flow: Flow, progress: Any, step: Any, keys: Keys) -> None:
    """A submit button's callback: `submit(flow, progress, step, answers)`, the answers read from session state
    by their widgets' `keys` (its `st.rerun()` only ends the callback: the run that draws the page follows)."""
    try:
        use_study_language()  # a callback runs before the page sets it for the run
        submit(flow, progress, step, answers_from_state(keys))
    except Exception as exc:  # raised again in the run that follows (`raise_deferred`)
        st.session_state[DEFERRED] = exc


def raise_deferred() -> None:
    """Raise what the last submit callback raised, in the run (and its error handling) that follows it."""
    exc = st.session_state.pop(DEFERRED, None)
    if exc is not None:
        raise exc
