"""A step's form stored before the press's run: one script run per press instead of two.

The submit button of a form used to be read in the run the press starts. That run drew the page just
answered once more, down to its button, stored the answers, then `st.rerun()` drew the next page: two
script runs, and two pages of elements sent, per press, where a plain Streamlit form needs one. With
`keys` (the form's widget keys, in the shape of its answers) the button's `on_click` callback reads the
answers from session state, which Streamlit fills with the form's values before any callback, and stores
them; the single run that follows draws the next page, or the same page with what to correct
(bench/burst.py, issue 38). The answer is stored as before: when the run starts, it is on disk.

An error in the callback is kept and raised again at the top of that run, inside the page's own error
handling (an outage pauses the page; anything else the calm error page): a participant never sees a
traceback from a callback. Steps whose answers are not plain widget values keep the two runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

DEFERRED = "infact_press_error"  # session state: an exception the submit callback raised

Keys = Mapping[str, "Keys"] | str


def answers_from_state(keys: Keys) -> Any:
    """`keys` with every widget key replaced by its widget's value (None when it has none)."""
    if isinstance(keys, Mapping):
        return {name: answers_from_state(sub) for name, sub in keys.items()}
    return st.session_state.get(keys)


def on_press(submit: Callable[..., None], *args: Any, keys: Keys) -> None:
    """The submit button's callback: `submit(*args, answers, rerun=False)` with the answers in session state."""
    try:
        submit(*args, answers_from_state(keys), rerun=False)
    except Exception as exc:  # raised again in the run that follows (`raise_deferred`)
        st.session_state[DEFERRED] = exc


def raise_deferred() -> None:
    """Raise what the last submit callback raised, in the run (and its error handling) that follows it."""
    exc = st.session_state.pop(DEFERRED, None)
    if exc is not None:
        raise exc
