"""What INFACT makes Streamlit's media manager do for the researcher's downloads (issue 29, F7).

Streamlit serves a download button's file at `/media/<id>` to anyone with the link, names it
by a hash of its content (the same data downloaded again answers at the same URL), keeps it
while a session references it (a closed tab's session lives `server.disconnectedSessionTTL`,
120 s, more) and removes it only at a later sweep, which runs only when some session runs a
script. And a deferred download's id can be run by any session that sends it. So, once per
process (`install`, from downloads.space_sweeps):

- **the asking session only**: a deferred download runs only for the session that drew its
  button. Streamlit's handler knows the requesting session but does not check it; a wrapper
  of `DeferredFileHandler.handle` puts it in `REQUESTER` (a context variable, which
  `asyncio.to_thread` carries to the callable), and downloads.guarded compares;
- **a random salt**: every downloadable file gets an id of 32 random hex digits instead of its
  content hash, so a URL says nothing about the data and a link that stopped answering stays
  dead (the same data downloaded again gets another URL);
- **a lifetime, whoever holds it**: a downloadable file is deleted `lifetime` seconds after it
  was made, by a sweeper thread of INFACT's, whether a session still references it or not and
  whether or not anyone uses the app. A page that is still open draws its button again on
  its next rerun (a plain button such as report.html in the dashboard's 5-second live part
  gets a fresh file); an identical file made again within half the lifetime reuses the live
  id, so a refreshing dashboard does not pile up copies.

Participant pages have no download buttons, so every downloadable file is a researcher's.
These use Streamlit internals (`_storage`, `_files_by_id`, `_file_metadata`, `_lock`, the
handler class): if a Streamlit upgrade moves them, `install` logs a warning and does nothing,
and tests/ui/test_media_guard.py fails.
"""

from __future__ import annotations

import contextvars
import logging
import secrets
import threading
import time
from collections.abc import Callable

log = logging.getLogger("infact")
LIFETIME = 30.0  # seconds a downloadable file answers after it was made (downloads.py: EXPIRY + GRACE)
REQUESTER: contextvars.ContextVar[str | None] = contextvars.ContextVar("infact_requesting_session", default=None)
_install = threading.Lock()


def check_requesters() -> bool:
    """Wrap Streamlit's deferred-download handler so the requesting session is known (once)."""
    from streamlit.runtime.backend_operation_handler import DeferredFileHandler

    original = DeferredFileHandler.handle
    if getattr(original, "infact_wrapped", False):
        return True

    async def handle(self, request, session_id):
        token = REQUESTER.set(session_id)
        try:
            return await original(self, request, session_id)
        finally:
            REQUESTER.reset(token)

    handle.infact_wrapped = True
    DeferredFileHandler.handle = handle
    return True


class SaltedDownloads:
    """Random ids and a bounded lifetime for a media manager's downloadable files."""

    def __init__(self, manager, lifetime: float, clock: Callable[[], float] = time.monotonic) -> None:
        from streamlit.runtime.media_file_storage import MediaFileKind

        self.manager, self.lifetime, self.clock = manager, lifetime, clock
        self.storage = manager._storage
        self._downloadable = MediaFileKind.DOWNLOADABLE
        self._original = self.storage.load_and_get_id
        self._made: dict[str, tuple[float, str]] = {}  # salted id -> (made at, content id)
        self._live: dict[str, str] = {}  # content id -> its newest salted id
        self._lock = threading.Lock()
        self.storage.load_and_get_id = self.load_and_get_id
        self.storage.infact_salted = self

    def load_and_get_id(self, path_or_data, mimetype, kind, filename=None) -> str:
        content_id = self._original(path_or_data, mimetype, kind, filename)
        if kind != self._downloadable:
            return content_id
        files = self.storage._files_by_id
        now = self.clock()
        with self._lock:
            reuse = self._live.get(content_id)
            if reuse in self._made and reuse in files and now - self._made[reuse][0] < self.lifetime / 2:
                salted = reuse
            else:
                salted = secrets.token_hex(16)
                self._made[salted] = (now, content_id)
                self._live[content_id] = salted
                files[salted] = files[content_id]
        if content_id not in self.manager._file_metadata:  # never served under its content hash
            files.pop(content_id, None)
        return salted

    def expire(self) -> int:
        """Delete the downloadable files older than the lifetime; returns how many."""
        now = self.clock()
        with self._lock:
            old = [fid for fid, (made, _) in self._made.items() if now - made >= self.lifetime]
            for fid in old:
                content_id = self._made.pop(fid)[1]
                if self._live.get(content_id) == fid:
                    del self._live[content_id]
        if old:
            with self.manager._lock:
                for fid in old:
                    self.manager._file_metadata.pop(fid, None)
                    self.storage.delete_file(fid)
        return len(old)

    def run_forever(self, every: float) -> None:
        while True:
            time.sleep(every)
            try:
                self.expire()
            except Exception:  # never let the sweeper die: links would outlive their lifetime
                log.warning("INFACT: expiring downloads failed", exc_info=True)


def install_on_server() -> None:
    """`install` on this server's media manager (nothing without a running Streamlit server)."""
    from streamlit import runtime

    if runtime.exists():
        install(runtime.get_instance().media_file_mgr)


def install(manager, lifetime: float = LIFETIME, every: float = 1.0) -> SaltedDownloads | None:
    """Once per process: requester checks, salted ids and the lifetime sweeper on `manager`."""
    with _install:
        found = getattr(manager._storage, "infact_salted", None) if hasattr(manager, "_storage") else None
        if found is not None:
            return found
        try:
            check_requesters()
            salted = SaltedDownloads(manager, lifetime)
        except Exception:
            log.warning("INFACT: Streamlit's media manager changed; downloads are not salted or timed", exc_info=True)
            return None
        threading.Thread(target=salted.run_forever, args=(every,), name="infact-media-expiry", daemon=True).start()
        return salted
