"""Streamlit's media manager made to serve researcher downloads as documented (issue 29, F7;
infact/ui/media_guard.py), on Streamlit's own manager, store and deferred-download handler
(no server needed): the asking session only, random ids, a lifetime whoever holds the file."""

from __future__ import annotations

import asyncio

import pytest
from streamlit.proto.BackMsg_pb2 import BackendOperationRequest
from streamlit.runtime.backend_operation_handler import DeferredFileHandler
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from infact.ui import downloads, media_guard

DATA = b"participant,code\np1,ABCD\n"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def guarded_manager(clock=None):
    store = MemoryMediaFileStorage("/media")
    manager = MediaFileManager(store)
    salted = media_guard.SaltedDownloads(manager, lifetime=30.0, clock=clock or Clock())
    media_guard.check_requesters()
    return store, manager, salted


def served(store, url: str) -> bytes | None:
    try:
        return store.get_file(url.rsplit("/", 1)[1]).content
    except Exception:
        return None


def ask(manager, file_id: str, session: str):
    """What Streamlit does when a browser session sends a deferred-download request."""
    request = BackendOperationRequest(request_id="r1")
    request.deferred_file.file_id = file_id
    return asyncio.run(DeferredFileHandler(lambda: manager).handle(request, session))


def test_a_deferred_download_runs_only_for_the_session_that_drew_it():
    store, manager, _ = guarded_manager()
    made = []
    generate = downloads.guarded(lambda: made.append(1) or DATA, lambda: True, lambda: None, owner="researcher")
    file_id = manager.add_deferred(generate, "text/csv", "coord", "participants.csv")
    stranger = ask(manager, file_id, "anonymous-session")
    assert stranger.error_msg and not stranger.deferred_file.url and made == []  # refused, nothing made
    mine = ask(manager, file_id, "researcher")
    assert not mine.error_msg and served(store, mine.deferred_file.url) == DATA and made == [1]


def test_links_are_random_so_a_dead_link_stays_dead():
    clock = Clock()
    store, manager, salted = guarded_manager(clock)
    first = manager.execute_deferred(manager.add_deferred(lambda: DATA, "text/csv", "c", "x.csv"))
    name = first.rsplit("/", 1)[1]
    assert len(name.split(".")[0]) == 32 and served(store, first) == DATA
    clock.now += 31
    assert salted.expire() == 1 and served(store, first) is None
    again = manager.execute_deferred(manager.add_deferred(lambda: DATA, "text/csv", "c", "x.csv"))
    assert again != first and served(store, first) is None and served(store, again) == DATA
    # The content hash Streamlit would have used serves nothing.
    assert not any(fid not in salted._made for fid in store._files_by_id)


def test_a_file_a_session_still_holds_is_deleted_at_its_lifetime_and_a_rerun_makes_a_fresh_one():
    """report.html: a plain button re-added on every rerun of the dashboard's live part."""
    clock = Clock()
    store, manager, salted = guarded_manager(clock)
    url = manager.add(DATA, "text/html", "coord-report", "report.html", is_for_static_download=True)
    clock.now += 10
    assert manager.add(DATA, "text/html", "coord-report", "report.html", is_for_static_download=True) == url
    clock.now += 21  # 31 s after it was made; the session still references it
    salted.expire()
    assert served(store, url) is None
    fresh = manager.add(DATA, "text/html", "coord-report", "report.html", is_for_static_download=True)
    assert fresh != url and served(store, fresh) == DATA


def test_install_is_once_per_manager_and_media_files_keep_their_ids():
    store = MemoryMediaFileStorage("/media")
    manager = MediaFileManager(store)
    first = media_guard.install(manager, 30.0, every=3600)
    assert first is not None and media_guard.install(manager, 30.0, every=3600) is first
    image = manager.add(b"\x89PNG....", "image/png", "img")  # not a download: Streamlit's own id
    assert served(store, image) == b"\x89PNG...." and image.rsplit("/", 1)[1].split(".")[0] not in first._made


@pytest.mark.parametrize("owner", [None, "researcher"])
def test_a_download_called_outside_a_request_is_not_refused_for_its_session(owner):
    """Streamlit's own unit use (no handler): the callable still runs; only another session is refused."""
    assert downloads.guarded(lambda: DATA, lambda: True, lambda: None, owner=owner)() == DATA
