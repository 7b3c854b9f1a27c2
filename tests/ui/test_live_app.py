"""The live step under AppTest: a 3-turn chat with two systems, a reload in the middle, rubric, vote.

The study is `data/demo-live` (three built-in systems, in process) or a copy whose systems
are stub servers on 127.0.0.1 (tests/support/chat_stubs.py) for the failure paths.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from infact.storage import TinyDBStorage
from tests.support.app import give_consent, open_app, run, token_of
from tests.support.live_pages import chat_texts, live_records, say, stub_study, through_situations
from tests.support.studies import copy_study, edit_toml

REPO = Path(__file__).resolve().parents[2]
DEMO_LIVE = REPO / "data" / "demo-live"


@pytest.fixture
def live_study(tmp_path, monkeypatch) -> Path:
    db = tmp_path / "db"
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_LIVE))
    return db


def screen(at) -> str:
    """The key of the live step's screen as its page script has it: a new key opens the screen at its top."""
    [key] = [m.group(1) for h in at.get("html") for m in [re.search(SCREEN, h.proto.body)] if m]
    return key.removeprefix(token_of(at) + "/")


SCREEN = re.compile(r'const step = "([^"]*)";[^<]*__infactScreen')


def test_three_turn_chats_with_a_reload_then_rubric_and_vote(live_study):
    at = through_situations(open_app())
    assert any("Chatbot A" in s.value for s in at.subheader)
    assert screen(at) == "live/chat/A"
    at = say(at, "A", "hi! something scary please")
    at = say(at, "A", "seen it already, anything else?")
    assert screen(at) == "live/chat/A"  # the same screen: a message keeps the chat where it is
    token = token_of(at)
    assert [role for role, _ in chat_texts(at)] == ["user", "assistant", "user", "assistant"]
    # Reload: a new session with only the link; the same conversation comes back.
    at = open_app({"p": token})
    texts = chat_texts(at)
    assert len(texts) == 4 and "something scary" in texts[0][1]
    at.segmented_control(key=f"live-rate-{token}-A-2").set_value("Yes")
    at = run(at)
    at = say(at, "A", "great, thanks")
    at.button(key="live-satisfied-A").click()
    at = run(at)
    assert any("About chatbot A" in s.value for s in at.subheader) and screen(at) == "live/rubric/A"
    at.button(key="live-rubric-submit-A").click()
    at = run(at)
    assert any("Please answer statement" in e.value for e in at.error)  # nothing answered: refused
    for r in at.radio:
        if r.key.startswith("live-rubric-A-"):
            r.set_value("Agree")
    at.button(key="live-rubric-submit-A").click()
    at = run(at)
    assert any("Chatbot B" in s.value for s in at.subheader) and screen(at) == "live/chat/B"
    for text in ("a funny movie please", "something else funny", "ok"):
        at = say(at, "B", text)
    at.button(key="live-frustrated-B").click()
    at = run(at)
    for r in at.radio:
        if r.key.startswith("live-rubric-B-"):
            r.set_value("Disagree")
    at.button(key="live-rubric-submit-B").click()
    at = run(at)
    reopen = {
        e.label: " ".join(h.proto.body for h in e.get("html"))
        for e in at.expander
        if e.label.endswith("read the conversation again")
    }
    assert list(reopen) == ["Chatbot A: read the conversation again", "Chatbot B: read the conversation again"]
    assert "hi! something scary please" in reopen["Chatbot A: read the conversation again"]
    assert "a funny movie please" in reopen["Chatbot B: read the conversation again"]
    assert any("Step 5 of 5: Your vote" in h.proto.body for h in at.get("html")) and screen(at) == "live/vote/"
    at.radio(key="live-vote").set_value("A")
    at.text_area(key="live-vote-reason").input("A understood what I wanted")
    at.button(key="live-vote-submit").click()
    at = run(at)
    assert any(r.key.startswith("q-") for r in at.radio)  # on to the questionnaire
    db = live_study
    vote = live_records(db, "chat_vote")[0]
    systems = live_records(db, "chat_assignment")[0]["systems"]
    assert vote["winner"] == systems[0] and vote["justification"] == "A understood what I wanted"
    users = [r for r in live_records(db, "chat_message") if r["role"] == "user"]
    assert len(users) == 6
    ends = {r["slot"]: r["ended_by"] for r in live_records(db, "chat_end")}
    assert ends == {"A": "satisfied", "B": "frustrated"}
    assert live_records(db, "chat_turn_rating")[0]["value"] is True
    step = live_records(db, "live")[0]
    assert step["winner"] == systems[0] and step["systems"] == systems


def test_failing_system_calm_message_retry_and_skip(tmp_path, monkeypatch, error_server):
    db = stub_study(tmp_path, monkeypatch, error_server.url, error_server.url)
    at = through_situations(open_app())
    at = say(at, "A", "hello?")
    assert any("did not answer" in w.value for w in at.warning)
    assert not at.exception and not [e for e in at.error if "went wrong" in e.value]
    assert len(at.chat_input) == 0  # answer the waiting message first
    at.button(key="live-retry-A").click()
    at = run(at)
    assert any("did not answer" in w.value for w in at.warning)
    at.button(key="live-skip-A").click()
    at = run(at)
    assert any("Chatbot B" in s.value for s in at.subheader)  # no rubric about a chat that never was
    msgs = live_records(db, "chat_message")
    assert [(m["role"], (m.get("error") or {}).get("status")) for m in msgs] == [
        ("user", None),
        ("assistant", 500),
        ("assistant", 500),
    ]
    assert live_records(db, "chat_end")[0]["ended_by"] == "skipped"


def test_system_text_is_shown_as_written_never_run(tmp_path, monkeypatch):
    folder = copy_study(
        DEMO_LIVE,
        tmp_path / "study",  # the live demo, every system answering with markup
        {'callable = "infact.chat.demo_systems:': 'callable = "tests.support.chat_stubs:script_bot" # '},
    )
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    at = say(through_situations(open_app()), "A", "<b>hi</b>")
    (_, mine), (_, theirs) = chat_texts(at)
    assert "&lt;b&gt;hi&lt;/b&gt;" in mine
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; **not bold**\nsecond line" in theirs
    assert "<script>" not in theirs


@pytest.mark.slow  # 6.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_dashboard_of_a_live_study_shows_chats_and_offers_the_live_files(live_study):
    from infact.access.auth import hash_password
    from infact.participation.bots import run_bots
    from infact.study.loader import load_study

    run_bots(load_study(DEMO_LIVE), TinyDBStorage(live_study), 6, strategy="attentive", seed=2)
    at = open_app(secrets={"researcher": {"password_hash": hash_password("pw-live-dashboard")}})
    at.switch_page("pages/researcher.py")
    run(at)
    at.text_input(key="password").input("pw-live-dashboard")
    at.button(key="sign_in_submit").click()
    run(at)
    at.switch_page("pages/dashboard.py")
    run(at)
    at.segmented_control(key="section").set_value("Live chats")
    run(at)
    text = " ".join(m.value for m in at.markdown)
    assert "12 conversations." in text and "| GenreBot |" in text and "Arena votes: 6 ranked" in text
    at.segmented_control(key="section").set_value("Exports")
    run(at)
    labels = [d.proto.label for d in at.get("download_button")]
    assert any(label.startswith("transcripts.jsonl — live chats") for label in labels)
    assert any(label.startswith("pairwise.csv — ") for label in labels)


def test_a_study_of_live_chats_only_goes_from_consent_to_the_chat(tmp_path, monkeypatch):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "study.toml").write_text((DEMO_LIVE / "study.toml").read_text(encoding="utf-8"), encoding="utf-8")
    edit_toml(
        folder,
        {
            "situations_per_participant = 3": "situations_per_participant = 0",  # the live demo's
            "[attention_check]\nenabled = true": "[attention_check]\nenabled = false",
        },
    )  # file, no situations
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    at = give_consent(open_app())
    assert any("Chatbot A" in s.value for s in at.subheader)
    at = say(at, "A", "a scary movie please")
    assert [role for role, _ in chat_texts(at)] == ["user", "assistant"]


def progress_line(at) -> str:
    return next(
        m.group(1)
        for h in at.get("html")
        for m in [re.search(r'class="infact-progress-text"[^>]*>([^<]*)<', h.proto.body)]
        if m
    )


@pytest.mark.slow  # 2.2 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_timeout_says_so_and_skipping_both_silent_chatbots_asks_no_vote(tmp_path, monkeypatch):
    from simulations.chat_stub import serve

    with serve("normal", delay_s=5.0) as slow:
        db = stub_study(tmp_path, monkeypatch, slow.url, slow.url, timeout_s=0.3)
        at = through_situations(open_app())
        assert progress_line(at) == "Step 1 of 5: Chat with chatbot A"
        at = say(at, "A", "hello?")
        warnings = [w.value for w in at.warning]
        assert any("taking too long to answer" in w for w in warnings), warnings
        assert not any("did not answer" in w for w in warnings)
        assert len(at.chat_input) == 0 and chat_texts(at) == [("user", "hello?")]
        at.button(key="live-retry-A").click()
        at = run(at)
        assert any("taking too long" in w.value for w in at.warning)
        at.button(key="live-skip-A").click()
        at = run(at)
        assert progress_line(at) == "Step 3 of 5: Chat with chatbot B"  # no rubric about a chat that never was
        at = say(at, "B", "anyone there?")
        at.button(key="live-skip-B").click()
        at = run(at)
    assert progress_line(at) == "Step 5 of 5: Your vote"
    assert any("Neither chatbot answered" in i.value for i in at.info)
    assert not at.radio and not [e for e in at.expander if "read the conversation" in e.label]
    at.button(key="live-vote-submit").click()
    at = run(at)
    assert any(r.key.startswith("q-") for r in at.radio)  # on to the questionnaire
    [vote] = live_records(db, "chat_vote")
    assert vote["winner"] == "tie" and vote["choice"] is None and vote["forfeit"] and len(vote["skipped"]) == 2
    kinds = [(m.get("error") or {}).get("kind") for m in live_records(db, "chat_message") if m["role"] == "assistant"]
    assert kinds == ["timeout", "timeout", "timeout"]
