"""Progress of a long computation, reported to whoever asked for it (the command line's progress bar).

Long statistics (the bootstrap at arena scale, the fragility search) call `report(stage, done, total)`;
by default nothing listens and a report costs one context-variable lookup. `reporting(callback)` makes
`callback(stage, done, total)` the listener for the code run inside it, so the statistics need no
progress argument threaded through every layer between the command line and them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Listener = Callable[[str, int, int], None]
_listener: ContextVar[Listener | None] = ContextVar("infact_progress", default=None)


@contextmanager
def reporting(callback: Listener) -> Iterator[None]:
    """Send every `report` made inside the block to `callback(stage, done, total)`."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


def report(stage: str, done: int, total: int) -> None:
    """`done` of `total` steps of `stage` are finished (done == total: the stage is over)."""
    callback = _listener.get()
    if callback is not None:
        callback(stage, int(done), int(total))
