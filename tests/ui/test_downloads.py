"""The researcher's downloads (infact/ui/downloads.py): made only on click, refused once the
session's sign-in generation is over, and their media file expired soon after."""

from __future__ import annotations

import pytest

from infact.ui import downloads


def test_a_download_is_made_on_click_and_expires():
    made, expiries = [], []
    generate = downloads.guarded(lambda: made.append(1) or b"a,b\n", lambda: True, lambda: expiries.append(1))
    assert made == [] and expiries == []  # drawing the button makes nothing
    assert generate() == b"a,b\n" and generate() == b"a,b\n"
    assert made == [1, 1] and expiries == [1, 1]  # each click: a fresh file, and its expiry scheduled


def test_a_download_after_sign_out_is_refused_unmade():
    made, expiries = [], []
    signed_in = [True]
    generate = downloads.guarded(lambda: made.append(1) or b"x", lambda: signed_in[0], lambda: expiries.append(1))
    signed_in[0] = False  # signed out (here or elsewhere) after the page was drawn
    with pytest.raises(PermissionError):
        generate()
    assert made == [] and expiries == []


def test_sweeping_without_a_running_server_does_nothing(monkeypatch):
    monkeypatch.setattr(downloads, "GRACE_SECONDS", 0.01)
    downloads.sweep_media()  # no Streamlit runtime in a plain test process
    downloads.space_sweeps()
    timers = downloads.expire_later(0.01)
    assert len(timers) == 2
    for timer in timers:
        timer.join(2)
        assert not timer.is_alive()


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def made_file():
    """A deferred download clicked once, in Streamlit's own media manager and store (no server needed)."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    store = MemoryMediaFileStorage("/media")
    manager = MediaFileManager(store)
    url = manager.execute_deferred(manager.add_deferred(lambda: b"a,b\n1,2\n", "text/csv", "coord", "x.csv"))
    name = url.rsplit("/", 1)[1]

    def served() -> bool:
        try:
            return store.get_file(name).content == b"a,b\n1,2\n"
        except Exception:
            return False

    return manager, served


def test_two_quick_sweeps_remove_a_made_file_before_the_browser_fetched_it():
    """Why sweeps are spaced: unspaced, two script runs ending close together drop a just-made file."""
    manager, served = made_file()
    assert served()
    manager.remove_orphaned_files()
    manager.remove_orphaned_files()
    assert not served()


def test_spaced_sweeps_keep_a_made_file_for_the_grace_then_remove_it():
    manager, served = made_file()
    clock = Clock()
    sweep = downloads.SpacedSweeps(manager.remove_orphaned_files, grace=10, clock=clock)
    assert sweep() is True  # marks the file
    for dt in (0.01, 3, 9.9):  # other sessions' runs end: dropped
        clock.now = 100 + dt
        assert sweep() is False
        assert served()
    clock.now = 110.0
    assert sweep() is True and not served()  # a grace after the marking sweep: removed
