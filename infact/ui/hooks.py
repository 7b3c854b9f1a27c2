"""Where the UI finds what a kind registered (infact/kinds/): its page, the top of its page and its dashboard
section. A registration names them as dotted paths ("infact.ui.steps.situation.page"); they are resolved only here,
so no layer below the UI imports Streamlit code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from infact import kinds as built_in
from infact.participation import steps


def load_all() -> None:
    """Register the built-in kinds (once per process; streamlit_app.py calls this before anything is drawn)."""
    built_in.load_all()


def resolve(path: str) -> Callable:
    """The function a registration names as "package.module.function"; an error naming the path and the fix."""
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise LookupError(
            f"kind hook {path!r} cannot be found ({exc}): give its Kind(...) registration the dotted path of a "
            "function, module.function"
        ) from exc


def _hook(kind: str, point: str) -> Callable | None:
    path = getattr(steps.kind(kind), point)
    return resolve(path) if path else None


def page(kind: str) -> Callable:
    """`page(flow, progress, step)`: draws the pages of step kind `kind`."""
    draw = _hook(kind, "page")
    if draw is None:
        raise LookupError(f"step kind {kind!r} registers no page: give its Kind(...) a `page`")
    return draw


def page_top(kind: str) -> Callable | None:
    """`page_top(flow, progress, step) -> str`: the HTML at the top of kind `kind`'s pages, or None."""
    return _hook(kind, "page_top")


def dashboard(kind: str) -> Callable | None:
    """`draw(view, kind)`: the dashboard section that shows kind `kind`'s answers, or None (exports only)."""
    return _hook(kind, "dashboard")
