"""A live conversation as stored: one record per message, read back into a `Conversation`.

Records (all with the usual key/study/participant/kind/at fields, docs/data-model.md):

- `chat_message` role "user":      one per participant message, key `…/chat/CONV/TURN/user`
- `chat_message` role "assistant": one per attempt at answering it, key `…/chat/CONV/TURN/aN`;
                                   `error` is null for a usable answer, else {kind, detail}
- `chat_turn_rating`:              the optional quick rating of one answer
- `chat_end`:                      how the chat ended (`satisfied`, `frustrated`, `max_turns`, `skipped`)
- `chat_rubric`:                   the end-of-chat rubric answers

Because every message is its own record, stored the moment it is sent or received,
a reload (or another server process) rebuilds exactly the same conversation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from infact.chat.contract import Message

CHAT_KINDS = ("chat_message", "chat_turn_rating", "chat_end", "chat_rubric")
ENDINGS = ("satisfied", "frustrated", "max_turns", "skipped")


def conversation_id(token: str, slot: str) -> str:
    """Unique in a study (the token is); the slot ("A"/"B") says which chat of the participant it was."""
    return f"{token}-{slot}"


@dataclass(frozen=True)
class Turn:
    role: str
    text: str
    turn: int
    items: tuple[str, ...] = ()
    latency_ms: float | None = None
    error: dict | None = None
    identity_leak: tuple[str, ...] = ()
    at: str | None = None
    typing: dict | None = None  # a participant message: how it was typed (infact/text/typed.py), when the page said

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict:
        return {
            "role": self.role,
            "text": self.text,
            "items": list(self.items),
            "latency_ms": self.latency_ms,
            "error": self.error,
            "turn": self.turn,
            "at": self.at,
            **({"identity_leak": list(self.identity_leak)} if self.identity_leak else {}),
            **({"typing": self.typing} if self.role == "user" else {}),
        }


@dataclass
class Conversation:
    conversation_id: str
    system: str
    slot: str
    turns: list[Turn] = field(default_factory=list)  # every message and every answer attempt, in order
    turn_ratings: dict[int, bool] = field(default_factory=dict)
    ended: dict | None = None
    rubric: dict | None = None

    @property
    def user_turns(self) -> int:
        return sum(1 for t in self.turns if t.role == "user")

    @property
    def awaiting_reply(self) -> bool:
        """The last participant message has no usable answer yet (failed, or a reload mid-call)."""
        for t in reversed(self.turns):
            if t.role == "user":
                return True
            if t.ok:
                return False
        return False

    @property
    def last_error(self) -> dict | None:
        last = self.turns[-1] if self.turns else None
        return last.error if last is not None and last.role == "assistant" else None

    def attempts(self, turn: int) -> int:
        return sum(1 for t in self.turns if t.role == "assistant" and t.turn == turn)

    def messages(self) -> list[Message]:
        """What the system is sent: participant messages and usable answers only."""
        return [Message(t.role, t.text) for t in self.turns if t.role == "user" or t.ok]

    @property
    def answered(self) -> bool:
        """The system gave at least one usable answer."""
        return any(t.role == "assistant" and t.ok for t in self.turns)

    @property
    def never_answered(self) -> bool:
        """Skipped before any usable answer: there is no chat to judge (no rubric is asked)."""
        return self.ended is not None and self.ended.get("ended_by") == "skipped" and not self.answered

    @property
    def leaks(self) -> list[str]:
        out: list[str] = []
        for t in self.turns:
            out.extend(w for w in t.identity_leak if w not in out)
        return out

    @property
    def flags(self) -> list[str]:
        flags = []
        if self.leaks:
            flags.append("identity_leak")
        if any(t.error for t in self.turns):
            flags.append("system_error")
        return flags


def read_conversation(records: list[dict], conv_id: str, system: str, slot: str) -> Conversation:
    """Rebuild one conversation from a participant's records (any order, any extra records)."""
    conv = Conversation(conv_id, system, slot)
    mine = [r for r in records if r.get("kind") in CHAT_KINDS and r.get("conversation_id") == conv_id]
    messages = sorted(
        (r for r in mine if r["kind"] == "chat_message"),
        key=lambda r: (r["turn"], r["role"] != "user", r.get("attempt", 0)),
    )
    for r in messages:
        conv.turns.append(
            Turn(
                r["role"],
                r.get("text") or "",
                r["turn"],
                tuple(r.get("items") or ()),
                r.get("latency_ms"),
                r.get("error"),
                tuple(r.get("identity_leak") or ()),
                r.get("at"),
                r.get("typing"),
            )
        )
    for r in mine:
        if r["kind"] == "chat_turn_rating":
            conv.turn_ratings[r["turn"]] = bool(r["value"])
        elif r["kind"] == "chat_end":
            conv.ended = r
        elif r["kind"] == "chat_rubric":
            conv.rubric = r
    return conv


# One loop for every kind of player of a live step (the scripted bot, the LLM participant): each supplies
# `run` (the live run) and `chat(slot)`, `rubric(slot)`, `vote()`.
def play_live(player):
    """Play until the live step is done (or a step cannot progress); returns the last phase."""
    for _ in range(200):  # a bound, not an expectation: each loop stores something
        phase = player.run.phase()
        if phase.name == "done":
            return phase
        if phase.name == "chat":
            player.chat(phase.slot)
        elif phase.name == "rubric":
            player.rubric(phase.slot)
        else:
            player.vote()
    return player.run.phase()
