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


def test_sweeping_without_a_running_server_does_nothing():
    downloads.sweep_media()  # no Streamlit runtime in a plain test process
    timer = downloads.expire_later(0.01)
    timer.join(2)
    assert not timer.is_alive()
