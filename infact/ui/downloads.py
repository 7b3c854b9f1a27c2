"""The researcher's downloads (exports, the report): made on click, for a signed-in session,
and gone from the server soon after.

What Streamlit allows: a download button's file is kept in its in-memory media store and
served at `/media/<id>` to anyone with the link — the route checks no session — until
the store's clean-up removes it. With data passed as bytes the file is registered on every
rerun and lives as long as the page that shows it, then a while longer. So instead:

- the data is a callable (Streamlit's deferred download): nothing is made or stored until
  the button is clicked, and only the clicking session's websocket can ask for it;
- the callable refuses unless the session is still signed in: the store's session
  generation (infact.access.session) must be the one the page was drawn in, so a sign-out
  anywhere ends the downloads of every open dashboard too;
- a made file is never referenced by any session, so Streamlit's own clean-up marks it at
  one sweep and drops it at the next. Sweeps run at the end of every script and fragment run
  of *any* session: on a live study two can come milliseconds apart, and the file was gone
  before the browser fetched it (a browser test saw `Download.path: canceled`). So sweeps
  are spaced `GRACE_SECONDS` apart (`SpacedSweeps`): a made file answers at least that long.
  `EXPIRY_SECONDS` after a click INFACT sweeps, and once more a grace later, so a link copied
  from the browser stops answering within `LINK_LIFETIME_MAX` even when nobody uses the app.

And infact/ui/media_guard.py (installed by `space_sweeps`) makes the media manager run a
deferred download only for the session that drew its button, name every downloadable file by
a random id (not its content hash: a dead link stays dead) and delete it `LINK_LIFETIME`
after it was made, whoever still references it (report.html too, and a closed tab's session
that Streamlit keeps for two minutes).

Streamlit has no way to tie a `/media` URL to a session: in those seconds the link works
for whoever has it (docs/deploying.md). Draw these buttons outside a `run_every` fragment:
every rerun registers a new id, and a click still holding the old one fails.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import streamlit as st

from infact.access import session as researcher_session
from infact.ui import media_guard
from infact.ui.resources import get_storage, get_study

log = logging.getLogger("infact")
GRACE_SECONDS = 10.0  # a made file answers at least this long: time for the browser to fetch it
EXPIRY_SECONDS = 20.0  # after a click INFACT sweeps itself, and again a grace later
LINK_LIFETIME = media_guard.LIFETIME  # every downloadable file is deleted this long after it was made
assert LINK_LIFETIME >= EXPIRY_SECONDS + GRACE_SECONDS  # never before INFACT's own sweeps are due
LINK_LIFETIME_MAX = LINK_LIFETIME + 1.0  # media_guard's sweeper looks every second
_install = threading.Lock()


class SpacedSweeps:
    """Streamlit's `remove_orphaned_files`, run at most once per `grace` seconds (calls in between
    are dropped). A file is marked at one run and removed at the next, so it lives at least `grace`."""

    def __init__(self, sweep: Callable[[], None], grace: float, clock: Callable[[], float] = time.monotonic):
        self.sweep, self.grace, self.clock = sweep, grace, clock
        self._last = float("-inf")
        self._lock = threading.Lock()

    def __call__(self) -> bool:
        with self._lock:
            now = self.clock()
            if now - self._last < self.grace:
                return False
            self._last = now
        self.sweep()
        return True


def space_sweeps() -> None:
    """Space this server's media sweeps (once per process; before the first download button is drawn)."""
    from streamlit import runtime

    if not runtime.exists():
        return
    manager = runtime.get_instance().media_file_mgr
    with _install:
        if not isinstance(manager.remove_orphaned_files, SpacedSweeps):
            # Streamlit calls `runtime.media_file_mgr.remove_orphaned_files()`: the instance attribute wins.
            manager.remove_orphaned_files = SpacedSweeps(manager.remove_orphaned_files, GRACE_SECONDS)
    media_guard.install(manager, LINK_LIFETIME)  # the asking session only, random ids, a lifetime


def sweep_media() -> None:
    """One (spaced) clean-up sweep: files no session references are marked, or removed if marked before."""
    from streamlit import runtime

    if runtime.exists():
        runtime.get_instance().media_file_mgr.remove_orphaned_files()


def expire_later(delay: float = EXPIRY_SECONDS) -> list[threading.Timer]:
    """Two sweeps, `delay` and a grace later: the first (or one in the grace before it) marks the file,
    the second — at least a grace after any other — removes it."""
    timers = [threading.Timer(at, sweep_media) for at in (delay, delay + GRACE_SECONDS + 0.5)]
    for timer in timers:
        timer.daemon = True
        timer.start()
    return timers


def guarded(
    make: Callable[[], bytes],
    still_signed_in: Callable[[], bool],
    expire: Callable[[], object] = expire_later,
    owner: str | None = None,
) -> Callable[[], bytes]:
    """The callable a download button gets: checks the asking session (`owner`: the one that drew the
    button) and the sign-in, makes the file, schedules its expiry.
    Runs on Streamlit's worker thread, outside the script: no st.* calls in here."""

    def generate() -> bytes:
        requester = media_guard.REQUESTER.get()
        if owner is not None and requester is not None and requester != owner:
            log.warning("INFACT: a download was refused: asked by another session than the one that drew it")
            raise PermissionError("this download belongs to another session")
        if not still_signed_in():
            log.warning("INFACT: a download was refused: the researcher session has ended")
            raise PermissionError("the researcher session has ended: sign in again to download")
        data = make()
        expire()
        return data

    return generate


def signed_in_check() -> Callable[[], bool]:
    """A check, usable off the script thread, that this session's sign-in generation is still the current one."""
    study = get_study()
    storage = get_storage(study)
    issued = st.session_state.get("researcher_generation")
    if issued is None:
        issued = researcher_session.generation(storage, study.id)
    since = st.session_state.get("researcher_since")

    def check() -> bool:
        if researcher_session.LOCAL_SIGN_OUTS.ends(since):  # a sign-out the store could not record
            return False
        try:
            return researcher_session.generation(storage, study.id) == issued
        except Exception:
            return False

    return check


def researcher_download(
    label: str, make: Callable[[], bytes], *, file_name: str, key: str, mime: str | None = None
) -> None:
    """A download button whose file is made on click by a signed-in session and expires soon after."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    space_sweeps()
    ctx = get_script_run_ctx()
    owner = ctx.session_id if ctx is not None else None
    st.download_button(
        label,
        guarded(make, signed_in_check(), owner=owner),
        file_name=file_name,
        key=key,
        mime=mime,
        on_click="ignore",
    )
