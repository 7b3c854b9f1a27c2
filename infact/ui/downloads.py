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
- a made file is never referenced by any session, so Streamlit's own clean-up drops it at
  the second sweep after it was made (sweeps run at the end of every script and fragment
  run: within about 10 s while the dashboard is open); `EXPIRY_SECONDS` after a click two
  sweeps are run anyway, so a link copied from the browser stops answering even when
  nobody uses the app any more.

Streamlit has no way to tie a `/media` URL to a session: in those seconds the link works
for whoever has it (docs/deploying.md). Draw these buttons outside a `run_every` fragment:
every rerun registers a new id, and a click still holding the old one fails.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import streamlit as st

from infact.access import session as researcher_session
from infact.ui.resources import get_storage, get_study

log = logging.getLogger("infact")
EXPIRY_SECONDS = 30.0


def sweep_media() -> None:
    """Two of Streamlit's clean-up sweeps: files no session references are marked, then removed."""
    from streamlit import runtime

    if not runtime.exists():
        return
    manager = runtime.get_instance().media_file_mgr
    manager.remove_orphaned_files()
    manager.remove_orphaned_files()


def expire_later(delay: float = EXPIRY_SECONDS) -> threading.Timer:
    timer = threading.Timer(delay, sweep_media)
    timer.daemon = True
    timer.start()
    return timer


def guarded(
    make: Callable[[], bytes], still_signed_in: Callable[[], bool], expire: Callable[[], object] = expire_later
) -> Callable[[], bytes]:
    """The callable a download button gets: checks the sign-in, makes the file, schedules its expiry.
    Runs on Streamlit's worker thread, outside the script: no st.* calls in here."""

    def generate() -> bytes:
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

    def check() -> bool:
        try:
            return researcher_session.generation(storage, study.id) == issued
        except Exception:
            return False

    return check


def researcher_download(
    label: str, make: Callable[[], bytes], *, file_name: str, key: str, mime: str | None = None
) -> None:
    """A download button whose file is made on click by a signed-in session and expires soon after."""
    st.download_button(
        label, guarded(make, signed_in_check()), file_name=file_name, key=key, mime=mime, on_click="ignore"
    )
