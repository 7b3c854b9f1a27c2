"""The one Streamlit helper module: cached resources, secrets, and rendering.

Everything else in `infact/` is plain Python; pages call these helpers.
"""

from __future__ import annotations

import logging
import os
import traceback
from pathlib import Path
from typing import Any, Mapping

import streamlit as st

from .errors import InfactError
from .flow import Flow
from .storage import Storage, open_storage
from .store_config import REPO, resolve_store
from .study import Study, load_study
from .textfmt import CSS, dialog_html, response_html

log = logging.getLogger("infact")
DEFAULT_STUDY = REPO / "data" / "demo"


def study_dir() -> Path:
    """INFACT_STUDY (env) or [study] dir in secrets, else the bundled demo."""
    env = os.environ.get("INFACT_STUDY")
    if env:
        return Path(env)
    cfg = secret_section("study")
    return Path(cfg["dir"]) if cfg.get("dir") else DEFAULT_STUDY


def secrets() -> Mapping[str, Any]:
    """st.secrets as a plain dict; empty when there is no secrets.toml at all."""
    try:
        return {k: st.secrets[k] for k in st.secrets.keys()}
    except Exception:  # StreamlitSecretNotFoundError and parse errors alike
        return {}


def secret_section(name: str) -> dict:
    value = secrets().get(name)
    return dict(value) if isinstance(value, Mapping) else {}


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
    return _study(str(path), mtime)


@st.cache_resource(show_spinner=False)
def _storage(target: str) -> Storage:
    # One store shared by every session (thread): all backends serialise access.
    return open_storage(target)


def store_target(study: Study) -> tuple[str, str]:
    return resolve_store(study.id, secrets())


def get_storage(study: Study) -> Storage:
    return _storage(store_target(study)[0])


def get_flow() -> Flow:
    study = get_study()
    return Flow(study, get_storage(study))


def inject_css() -> None:
    st.html(CSS)


def render_dialog(turns, placeholder: bool = True) -> None:
    st.html(dialog_html([(t.role, t.text) for t in turns], placeholder))


def render_response(letter: str, text: str) -> None:
    st.html(response_html(letter, text))


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


def is_researcher() -> bool:
    return bool(st.session_state.get("researcher_signed_in"))
