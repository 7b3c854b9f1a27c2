"""The live chat's waiting states (issue 29, item 9 wording): a reload during a slow reply shows the answer
when it comes, and a retry clears the old timeout warning and its buttons from beside "typing…"."""

from __future__ import annotations

import threading

import pytest

from simulations.chat_stub import serve
from tests.support.app import TIMEOUT, open_app, run, token_of
from tests.support.live_pages import chat_texts, live_records, say, stub_study, through_situations


class Held:
    """A system client whose answer is held until `release` is set (then the real client answers)."""

    def __init__(self, client, release: threading.Event):
        self.client, self.release = client, release

    def __getattr__(self, name):
        return getattr(self.client, name)

    def reply(self, request):
        self.release.wait(TIMEOUT)
        return self.client.reply(request)


def ask_elsewhere(db, token: str, text: str, release: threading.Event) -> threading.Thread:
    """The participant's first tab, asking the system (which answers once `release` is set): a ChatSession on its
    own handle of the store."""
    from infact.chat.arena import LiveRun
    from infact.chat.client import connect_all
    from infact.storage import TinyDBStorage
    from infact.study.loader import load_study
    from infact.ui.resources import study_dir

    study = load_study(study_dir())
    storage = TinyDBStorage(db)
    clients = {name: Held(c, release) for name, c in connect_all(study.config.live.systems).items()}
    run = LiveRun(study, storage, clients, token)
    thread = threading.Thread(target=lambda: (run.session("A").send(text), storage.close()), daemon=True)
    thread.start()
    return thread


def watch_waits(monkeypatch, then=lambda: None) -> list[float]:
    """The seconds each run of the page set out to wait for another run's answer (live_step._await_answer);
    `then()` is called once a run starts waiting."""
    import infact.ui.steps.live as live_step

    waits, wait = [], live_step._await_answer

    def waiting(run, slot, conv, seconds):
        waits.append(seconds)
        then()
        return wait(run, slot, conv, seconds)

    monkeypatch.setattr(live_step, "_await_answer", waiting)
    return waits


@pytest.mark.slow  # 1.8 s on a 2-core machine: out of the fast subset (docs/testing.md)
def test_a_reload_during_a_slow_reply_shows_the_answer_when_it_comes(tmp_path, monkeypatch):
    # The system answers only once the reloaded page waits; its timeout (120 s) is longer than an AppTest run may
    # take (TIMEOUT): a page that waited for the whole timeout, not for that answer, never ends its run.
    release = threading.Event()
    with serve("normal") as system:
        db = stub_study(tmp_path, monkeypatch, system.url, system.url, timeout_s=120)
        token = token_of(through_situations(open_app()))
        waits = watch_waits(monkeypatch, then=release.set)
        sending = ask_elsewhere(db, token, "something scary please", release)  # the first tab asks the system …
        while not live_records(db, "chat_message") and sending.is_alive():
            sending.join(0.05)
        reloaded = open_app({"p": token})  # … and the page is reloaded meanwhile
        release.set()
        sending.join(TIMEOUT)
    assert len(waits) == 1 and waits[0] > TIMEOUT, waits  # it set out to wait for up to the whole timeout …
    texts = chat_texts(reloaded)  # … and drew the answer as it came
    assert [role for role, _ in texts] == ["user", "assistant"], [w.value for w in reloaded.warning]
    assert "Up (2009)" in texts[1][1] and not reloaded.warning and len(reloaded.chat_input) == 1


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
        waits = watch_waits(monkeypatch)
        at = open_app({"p": token})
    assert waits == []  # no answer can come any more: the page does not wait for one
    assert any("Waiting for the chatbot's answer" in w.value for w in at.warning)
    assert at.button(key="live-retry-A") is not None and len(at.chat_input) == 0


def test_a_retry_replaces_the_timeout_warning_and_its_buttons(tmp_path, monkeypatch):
    import infact.ui.steps.live as live_step

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
