"""Chatting with one system: send, try again, skip, end, rate — each stored at once.

`ChatSession` is plain Python used by the live step's page, the bots, the tests
and bench/live.py alike. The participant's message is written while the system is
being asked (so the write costs the participant no time) and the answer (or the
typed failure) is stored only once the message is, so nothing is lost if the
system hangs, the page reloads or the server restarts mid-call: the conversation
then shows the message as waiting, with "Try again".
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from infact.chat.client import SystemClient
from infact.chat.contract import SystemFailure, build_request
from infact.chat.conversation import ENDINGS, Conversation, Turn, conversation_id, read_conversation
from infact.chat.identity import LeakDetector
from infact.storage import Storage
from infact.text.catalogue import _

MAX_MESSAGE = 1000  # characters of one participant message
# Writes participant messages while their system is being asked (one shared pool: sessions are threads).
_WRITER = ThreadPoolExecutor(max_workers=16, thread_name_prefix="infact-chat-write")


def append_in_order(storage: Storage, records: list[dict]) -> list[bool]:
    """Each record after the one before; the TinyDB store writes chat records together in one sync."""
    together = getattr(storage, "append_in_order", None)
    return together(records) if together is not None else [storage.append(r) for r in records]


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Outcome:
    ok: bool
    message: str | None = None  # calm text for the participant when not ok
    failure: SystemFailure | None = None


class ChatSession:
    """One participant's conversation with one system (`slot` "A" or "B")."""

    def __init__(
        self,
        storage: Storage,
        *,
        study_id: str,
        dataset_version: str | None,
        token: str,
        slot: str,
        system: str,
        client: SystemClient,
        detector: LeakDetector,
        max_turns: int,
        preview: bool = False,
        clock: Callable[[], datetime] = utcnow,
        system_version: str | None = None,
        condition: str | None = None,
    ):
        self.storage, self.study_id, self.dataset_version = storage, study_id, dataset_version
        self.condition = condition  # a between-subjects study's: on every record, as on every other answer
        self.token, self.slot, self.system, self.client = token, slot, system, client
        self.detector, self.max_turns, self.preview, self.clock = detector, max_turns, preview, clock
        self.conversation_id = conversation_id(token, slot)
        self.system_version = system_version  # stamped on every record of the chat (the ledger's version)

    # -- records ---------------------------------------------------------------
    def _record(self, kind: str, suffix: str, **fields: Any) -> dict:
        return {
            "key": f"{self.study_id}/{self.token}/chat/{self.conversation_id}/{suffix}",
            "study": self.study_id,
            "dataset_version": self.dataset_version,
            "participant": self.token,
            "kind": kind,
            "at": iso(self.clock()),
            "preview": self.preview,
            **({"condition": self.condition} if self.condition is not None else {}),
            "conversation_id": self.conversation_id,
            "system": self.system,
            "slot": self.slot,
            **({"system_version": self.system_version} if self.system_version else {}),
            **fields,
        }

    def _append(self, kind: str, suffix: str, **fields: Any) -> bool:
        return self.storage.append(self._record(kind, suffix, **fields))

    def _end_record(self, conv: Conversation, ended_by: str) -> dict:
        if ended_by not in ENDINGS:
            raise ValueError(f"ended_by must be one of {ENDINGS}")
        satisfaction = {"satisfied": True, "frustrated": False}.get(ended_by)
        return self._record(
            "chat_end",
            "end",
            ended_by=ended_by,
            satisfaction=satisfaction,
            user_turns=conv.user_turns,
            flags=conv.flags,
            identity_leak=conv.leaks,
        )

    def load(self, records: list[dict] | None = None) -> Conversation:
        if records is None:
            records = self.storage.records(study=self.study_id, participant=self.token)
        return read_conversation(records, self.conversation_id, self.system, self.slot)

    # -- actions ----------------------------------------------------------------
    def send(self, text: str, typing: dict | None = None) -> Outcome:
        """Store the participant's message and ask the system. `typing`: how the message was typed (the page's
        counts, infact/text/typed.py), stored with it."""
        text = (text or "").strip()
        if not text:
            return Outcome(False, _("Please type a message first."))
        conv = self.load()
        if conv.ended is not None:
            return Outcome(False, _("This chat has ended."))
        if conv.awaiting_reply:
            return Outcome(False, _("The chatbot has not answered your last message yet: try again or skip."))
        if conv.user_turns >= self.max_turns:
            return Outcome(False, _("You have reached the last message of this chat."))
        turn = conv.user_turns + 1
        # The message is written while the system thinks: both start now, and the answer is
        # stored only after the message is (so their order on disk is the order they happened).
        stored = _WRITER.submit(
            self._append,
            "chat_message",
            f"{turn}/user",
            role="user",
            turn=turn,
            text=text[:MAX_MESSAGE],
            typing=typing,
        )
        conv.turns.append(Turn("user", text[:MAX_MESSAGE], turn))
        return self._answer(conv, turn, stored)

    def retry(self) -> Outcome:
        """Ask the system again for the last message that has no usable answer."""
        conv = self.load()
        if conv.ended is not None or not conv.awaiting_reply:
            return Outcome(True)
        return self._answer(conv, conv.user_turns)

    def _answer(self, conv: Conversation, turn: int, message: Future | None = None) -> Outcome:
        attempt = conv.attempts(turn) + 1
        request = build_request(self.study_id, self.conversation_id, turn, conv.messages())
        try:
            reply = self.client.reply(request)
        except SystemFailure as failure:
            if message is not None and not message.result():
                return Outcome(True)  # the same message twice (double click, rerun): the first one answers
            self._append(
                "chat_message",
                f"{turn}/a{attempt}",
                role="assistant",
                turn=turn,
                attempt=attempt,
                text="",
                items=[],
                latency_ms=None,
                error=failure.as_record(),
            )
            return Outcome(False, _(failure.participant_message), failure)
        if message is not None and not message.result():  # raises if the message could not be stored
            return Outcome(True)
        leaks = self.detector.find(reply.text)
        answer = self._record(
            "chat_message",
            f"{turn}/a{attempt}",
            role="assistant",
            turn=turn,
            attempt=attempt,
            text=reply.text,
            items=list(reply.items),
            latency_ms=reply.latency_ms,
            error=None,
            **({"identity_leak": leaks} if leaks else {}),
            **({"extra": reply.extra} if reply.extra else {}),
        )
        if turn < self.max_turns:
            self.storage.append(answer)
            return Outcome(True)
        # The last answer ends the chat: both stored in this order, in one sync where the store can.
        conv.turns.append(Turn("assistant", reply.text, turn, tuple(reply.items), reply.latency_ms, None, tuple(leaks)))
        append_in_order(self.storage, [answer, self._end_record(conv, "max_turns")])
        return Outcome(True)

    def end(self, ended_by: str) -> bool:
        """Store how the chat ended (once; later calls change nothing)."""
        if ended_by not in ENDINGS:
            raise ValueError(f"ended_by must be one of {ENDINGS}")
        return self.storage.append(self._end_record(self.load(), ended_by))

    def skip(self) -> bool:
        """Give up on this system after a failure: the chat ends as `skipped`, everything kept."""
        return self.end("skipped")

    def rate_turn(self, turn: int, helpful: bool) -> bool:
        return self._append("chat_turn_rating", f"{turn}/rating", turn=turn, value=bool(helpful))

    def submit_rubric(
        self,
        answers: dict[str, int],
        labels: dict[str, str],
        seconds: float | None = None,
        fallback: list[str] | None = None,
    ) -> bool:
        marked = {"fallback": list(fallback)} if fallback else {}  # a simulator's stand-in answers, named
        return self._append("chat_rubric", "rubric", answers=answers, labels=labels, seconds=seconds, **marked)
