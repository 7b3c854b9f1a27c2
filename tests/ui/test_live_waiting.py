"""The live chat's waiting states (issue 29, item 9 wording): a reload during a slow reply shows the answer
when it comes, and a retry clears the old timeout warning and its buttons from beside "typing…"."""

from __future__ import annotations

import threading
import time

import pytest

from simulations.chat_stub import serve
from tests.support.app import open_app, run, token_of
from tests.support.live_pages import chat_texts, live_records, say, stub_study, through_situations


def ask_elsewhere(db, token: str, text: str) -> threading.Thread:
    """The participant's first tab, asking the system: a ChatSession on its own handle of the store."""
    from infact.chat.arena import LiveRun
    from infact.chat.client import connect_all
    from infact.storage import TinyDBStorage
    from infact.study.loader import load_study
    from infact.ui.resources import study_dir

    study = load_study(study_dir())
    storage = TinyDBStorage(db)
    run = LiveRun(study, storage, connect_all(study.config.live.systems), token)
    thread = threading.Thread(target=lambda: (run.session("A").send(text), storage.close()), daemon=True)
    thread.start()
    return thread


@pytest.mark.slow  # 2.9 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_reload_during_a_slow_reply_shows_the_answer_when_it_comes(tmp_path, monkeypatch):
    with serve("normal", delay_s=2.0) as slow:
        db = stub_study(tmp_path, monkeypatch, slow.url, slow.url, timeout_s=6)
        token = token_of(through_situations(open_app()))
        sending = ask_elsewhere(db, token, "something scary please")  # the first tab asks the system (2 s) …
        deadline = time.monotonic() + 5
        while not live_records(db, "chat_message") and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        reloaded = open_app({"p": token})  # … and the page is reloaded meanwhile
        waited = time.monotonic() - started
        sending.join(10)
    texts = chat_texts(reloaded)
    assert [role for role, _ in texts] == ["user", "assistant"], [w.value for w in reloaded.warning]
    assert "Up (2009)" in texts[1][1] and not reloaded.warning and len(reloaded.chat_input) == 1
    assert waited < 5.5  # it waited for that answer, not for the whole timeout


def test_a_reload_long_after_the_call_offers_try_again_at_once(tmp_path, monkeypatch):
    from datetime import UTC, datetime, timedelta

    from infact.chat.arena import LiveRun
    from infact.chat.client import connect_all
    from infact.storage import TinyDBStorage
    from infact.study.loader import load_study
    from infact.ui.resources import study_dir

    with serve("normal") as quick:
        db = stub_study(tmp_path, monkeypatch, quick.url, quick.url, timeout_s=0.5)
        token = token_of(through_situations(open_app()))
        storage = TinyDBStorage(db)  # a message whose asking run died 10 s ago (a restart): no answer will come
        study = load_study(study_dir())
        session = LiveRun(study, storage, connect_all(study.config.live.systems), token).session("A")
        session.clock = lambda: datetime.now(UTC) - timedelta(seconds=10)
        storage.append(session._record("chat_message", "1/user", role="user", turn=1, text="hello?"))
        storage.close()
        started = time.monotonic()
        at = open_app({"p": token})
    assert time.monotonic() - started < 3
    assert any("Waiting for the chatbot's answer" in w.value for w in at.warning)
    assert at.button(key="live-retry-A") is not None and len(at.chat_input) == 0


def test_a_retry_replaces_the_timeout_warning_and_its_buttons(tmp_path, monkeypatch):
    import infact.ui.live_step as live_step

    with serve("normal", delay_s=3.0) as slow:
        stub_study(tmp_path, monkeypatch, slow.url, slow.url, timeout_s=0.3)
        at = say(through_situations(open_app()), "A", "hello?")
        assert any("taking too long" in w.value for w in at.warning)
        monkeypatch.setattr(live_step, "_ask", lambda *a: None)  # the run as drawn while the system is asked
        at.button(key="live-retry-A").click()
        at = run(at)
    assert not at.warning and not [b for b in at.button if b.key in ("live-retry-A", "live-skip-A")]
    drawn = list(at.main.children.values())
    chat = next(
        i for i, b in enumerate(drawn) if 'class="infact-chat"' in getattr(getattr(b, "proto", None), "body", "")
    )
    # The slot right under the chat, where the warning and its buttons were, is redrawn empty: the browser
    # replaces what a run drew there before (else it keeps the old warning until the run ends).
    assert chat + 1 < len(drawn) and type(drawn[chat + 1]).__name__ == "UnknownElement"
    assert drawn[chat + 1].type == "empty", [type(b).__name__ for b in drawn]
