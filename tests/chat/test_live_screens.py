"""What the live step's screens say (issue 19, points 1–3), as plain Python: the stored failure's
words (a timeout says it is one), where the participant is ("Step 2 of 5"), the conversation as one
escaped HTML block with titles highlighted, and a vote after a chatbot that never answered."""

from __future__ import annotations

import time

import pytest

from infact.chat.arena import TIE, LiveRun, Phase
from infact.chat.client import HttpSystem, connect_all
from infact.chat.contract import SystemHTTPError, SystemTimeout, failure_message
from infact.chat.conversation import Conversation, Turn
from infact.chat.identity import LeakDetector
from infact.chat.progress import position, progress_text, stages
from infact.chat.session import ChatSession
from infact.participation.chat_display import TYPING, ChatLine, chat_html, lines_of, vote_note
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from simulations.chat_stub import serve
from tests.support.studies import make_study

DEMO = "infact.chat.demo_systems:"


def test_each_stored_failure_reads_as_what_happened():
    assert failure_message({"kind": "timeout", "detail": "no answer"}) == SystemTimeout.participant_message
    assert "taking too long" in failure_message({"kind": "timeout"})
    for kind in ("unreachable", "http_status", "bad_reply", "crashed", "something new"):
        assert failure_message({"kind": kind}).startswith("The chatbot did not answer this time.")
    assert failure_message(None) == SystemHTTPError.participant_message


def test_a_system_past_its_timeout_is_stored_as_a_timeout_on_time():
    """The stub would answer after 5 s; timeout_s is 0.4: the failure is typed and comes at once."""
    with serve("normal", delay_s=5.0) as stub:
        storage = MemoryStorage()
        session = ChatSession(
            storage,
            study_id="s",
            dataset_version=None,
            token="p1",
            slot="A",
            system="Slow",
            client=HttpSystem("Slow", stub.url, 0.4),
            detector=LeakDetector(["Slow"]),
            max_turns=3,
        )
        start = time.monotonic()
        outcome = session.send("hello?")  # waited for, the answer would come
        took = time.monotonic() - start
    assert not outcome.ok and isinstance(outcome.failure, SystemTimeout)
    assert took > 0.3, f"gave up after {took:.2f} s, before its timeout_s (0.4 s)"
    conv = session.load()
    assert conv.awaiting_reply and conv.last_error["kind"] == "timeout"
    assert "taking too long" in failure_message(conv.last_error)  # what a reload shows, too
    assert [t.text for t in conv.turns if t.role == "user"] == ["hello?"]


def test_a_system_that_trickles_its_answer_times_out_on_time():
    """Headers at once, then a byte every 0.2 s (about 10 s in all): every socket read is quick, so
    urllib's per-read timeout alone would wait for the whole answer; the whole call has 0.5 s."""
    with serve("trickle", trickle_s=0.2) as stub:
        client = HttpSystem("Trickle", stub.url, 0.5)
        with pytest.raises(SystemTimeout):  # read whole, the answer would have come
            client.reply(
                {"study_id": "s", "conversation_id": "c", "turn": 1, "messages": [{"role": "user", "text": "hi"}]}
            )
    with serve("trickle", trickle_s=0.0) as quick:  # the same path answers when the answer is whole in time
        reply = HttpSystem("Quick", quick.url, 5).reply(
            {"study_id": "s", "conversation_id": "c", "turn": 1, "messages": [{"role": "user", "text": "hi"}]}
        )
    assert reply.items == ("Up (2009)",)


def test_the_live_step_counts_its_screens():
    assert [(p.name, p.slot) for p in stages(True)] == [
        ("chat", "A"),
        ("rubric", "A"),
        ("chat", "B"),
        ("rubric", "B"),
        ("vote", None),
    ]
    assert position(Phase("chat", "A"), True) == (1, 5)
    assert position(Phase("rubric", "B"), True) == (4, 5)
    assert progress_text(Phase("chat", "B"), True) == "Step 3 of 5: Chat with chatbot B"
    assert progress_text(Phase("rubric", "A"), True) == "Step 2 of 5: Rate chatbot A"
    assert progress_text(Phase("vote"), True) == "Step 5 of 5: Your vote"
    assert progress_text(Phase("rubric", "A"), False) == "Step 2 of 2: Rate chatbot A"  # one chat, no vote
    assert position(Phase("done"), False) == (2, 2)


def test_the_conversation_is_one_escaped_block_with_titles_highlighted():
    turns = [
        Turn("user", '<b>hi</b> I loved "Heat (1995)"', 1),
        Turn("assistant", "", 1, error={"kind": "timeout"}),
        Turn("assistant", 'Try "Up (2009)" or "Alien"', 1, items=("Alien",)),
    ]
    lines = lines_of(turns)
    assert [line.role for line in lines] == ["user", "assistant"]  # the failed attempt is not drawn
    block = chat_html(lines, "B")
    assert block.count('class="infact-chat-turn') == 2 and "&lt;b&gt;hi&lt;/b&gt;" in block and "<b>" not in block
    assert block.count('<mark class="infact-item"') == 3  # two with a year, one the system listed
    assert "Chatbot B" in block and TYPING not in block
    waiting = chat_html(lines, "B", pending="and <a comedy>?", typing=True)
    assert waiting.count("infact-chat-user") == 2 and "and &lt;a comedy&gt;?" in waiting
    assert waiting.index("and &lt;a comedy&gt;?") < waiting.index(TYPING)  # the message, then the waiting state
    assert 'role="status"' in waiting
    assert "No messages." in chat_html([], "A", empty="No messages.")
    assert chat_html([ChatLine("user", "x")], "A", empty="No messages.").count("No messages.") == 0


def _conv(slot: str, *, answered: bool, skipped: bool) -> Conversation:
    turns = [Turn("user", "hi", 1)] + ([Turn("assistant", "hello", 1)] if answered else [])
    ended = {"ended_by": "skipped" if skipped else "satisfied"}
    return Conversation(f"p-{slot}", "S" + slot, slot, turns, ended=ended)


def test_the_vote_says_plainly_what_a_skip_did():
    both = [_conv("A", answered=True, skipped=False), _conv("B", answered=True, skipped=False)]
    assert vote_note(both) is None
    never_b = [_conv("A", answered=True, skipped=False), _conv("B", answered=False, skipped=True)]
    assert vote_note(never_b).startswith(
        "Chatbot B never answered, and you skipped it, so there is nothing to compare"
    ) and "chatbot A is saved" in vote_note(never_b)
    neither = [_conv("A", answered=False, skipped=True), _conv("B", answered=False, skipped=True)]
    assert vote_note(neither).startswith("Neither chatbot answered")
    later = [_conv("A", answered=True, skipped=True), _conv("B", answered=True, skipped=False)]
    assert vote_note(later).startswith("You skipped chatbot A after it stopped answering")


@pytest.fixture
def study(tmp_path):
    live = {
        "max_turns": 3,
        "vote_reason_min_chars": 5,
        "systems": {
            "Alpha": {"callable": DEMO + "genre_recommender"},
            "Beta": {"callable": DEMO + "popular_recommender"},
        },
    }
    return load_study(make_study(tmp_path, systems=("Alpha", "Beta"), live=live))


def _skip_unanswered(r: LiveRun, slot: str) -> None:
    r.session(slot)._append("chat_message", "1/user", role="user", turn=1, text="hello?")  # never answered
    r.session(slot).skip()


def test_a_chatbot_that_never_answered_forfeits_without_a_vote_being_asked(study):
    r = LiveRun(study, MemoryStorage(), connect_all(study.config.live.systems), "p1")
    r._append("chat_assignment", "assignment", systems=["Alpha", "Beta"])
    r.session("A").send("a funny movie")
    r.session("A").end("satisfied")
    r.submit_rubric("A", {item.id: "Agree" for item in study.config.live.rubric})
    _skip_unanswered(r, "B")
    assert r.phase() == Phase("vote") and r.unanswered() == ["B"]
    assert r.submit_vote("", "") == []  # no choice, no reason: none is asked
    vote = r.vote()
    assert (vote["choice"], vote["winner"], vote["forfeit"], vote["skipped"]) == (None, "Alpha", True, ["Beta"])
    assert vote["justification"] == "" and r.phase() == Phase("done")


def test_neither_answered_is_a_tie_forfeit_and_a_normal_vote_is_no_forfeit(study, tmp_path):
    r = LiveRun(study, MemoryStorage(), connect_all(study.config.live.systems), "p1")
    r._append("chat_assignment", "assignment", systems=["Alpha", "Beta"])
    _skip_unanswered(r, "A")
    _skip_unanswered(r, "B")
    assert r.phase() == Phase("vote")
    r.submit_vote("A", "ignored: nothing was compared")
    assert (r.vote()["winner"], r.vote()["choice"], r.vote()["skipped"]) == (TIE, None, ["Alpha", "Beta"])
    ok = LiveRun(study, MemoryStorage(), connect_all(study.config.live.systems), "p2")
    ok._append("chat_assignment", "assignment", systems=["Alpha", "Beta"])
    for slot in "AB":
        ok.session(slot).send("something scary")
        ok.session(slot).end("satisfied")
        ok.submit_rubric(slot, {item.id: "Agree" for item in study.config.live.rubric})
    assert ok.submit_vote("", "") != []  # both chatted: a choice is needed
    assert ok.submit_vote("B", "it was better") == []
    assert (ok.vote()["winner"], ok.vote()["forfeit"], ok.vote()["choice"]) == ("Beta", False, "B")
