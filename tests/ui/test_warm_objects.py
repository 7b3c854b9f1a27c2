"""The app freezes what is alive after a process's first page, once (infact/ui/resources.py): Python's full
collections then skip the imported modules instead of pausing every session to scan them again."""

from __future__ import annotations

import gc

from infact.ui import resources
from tests.support.app import open_app, run


def test_the_first_page_freezes_once_and_later_pages_do_not(monkeypatch, tmp_path):
    calls: list[str] = []
    monkeypatch.setitem(resources._WARM, "frozen", False)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))

    at = open_app()
    assert calls == ["collect", "freeze"]  # collected first: garbage of the first run is not kept forever
    run(at)
    open_app()  # another session of the same process
    assert calls == ["collect", "freeze"]
