"""An LLM on either side of a live chat, through the OpenAI-compatible connector (infact/llm, docs/llm.md).

**The system under test** (`[live.systems.NAME] endpoint = "…"`, `LLMSystem`): the conversation so far
is sent as chat messages — the optional `system_prompt` first (never shown to participants), then the
participant's messages as `user` and the system's usable answers as `assistant` — and the completion's
text is the reply. Failures are the connector's typed `SystemFailure`s named after the system, so the
live page, the transcripts and the identity-leak flags treat it as any HTTP system. The call's record
(model, parameters, latency, tokens, prompt hash; never the key) is kept with the answer as `extra.llm`.

**A simulated participant** (`bots --strategy llm`, `LLMChattingBot`, in the style of UserSimCRS and
iEvaLM): the LLM is given a persona (a researcher's text: who they are, what they like, what they have
seen) and plays the *user* of each live chat: it writes the next message, and ends the chat by answering
`[SATISFIED]` (it found something it would watch) or `[FRUSTRATED]` (it gives up). Then it answers each
rubric item with one scale label and votes A, B or tie. Answers that are not one label are re-asked
once; after that the bot takes the middle of the scale (rubric: the item ids are stored as the rubric's
`fallback`) or a tie (vote: said in its reason), and counts them (`fallbacks`). A simulator's data is
marked as simulated anyway (infact/participation/bots.py) and left out of human results unless asked for.
When the simulator's own call fails the bot stops (`SimulatorFailed`): its chat is not stored as ended
by a frustrated participant, and nothing is answered for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from infact.chat.contract import Reply, parse_reply
from infact.chat.conversation import Conversation, play_live
from infact.errors import SimulatorFailed, SystemFailure, SystemTimeout
from infact.llm.client import LLMClient
from infact.study.endpoints import Sampling


def chat_messages(request: dict, system_prompt: str | None) -> list[dict]:
    head = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return head + [{"role": m["role"], "content": m["text"]} for m in request["messages"]]


class LLMSystem:
    def __init__(
        self,
        name: str,
        llm: LLMClient,
        *,
        system_prompt: str | None = None,
        sampling: Sampling | None = None,
        timeout_s: float | None = None,
    ):
        self.name, self.llm, self.system_prompt = name, llm, system_prompt
        self.sampling, self.timeout_s = sampling or Sampling(), timeout_s

    def reply(self, request: dict) -> Reply:
        """The answer within `timeout_s` from now (slot waits, retries and a slow body included), as any
        live system's. The call streams, so at the deadline its stream is closed and the server stops;
        the participant is told at the deadline even while a silent server holds the last read."""
        messages = chat_messages(request, self.system_prompt)
        if self.timeout_s is None:
            done = self.llm.complete(messages, self.sampling, stream=True)
        else:
            done = _within(
                self.name,
                self.timeout_s,
                lambda: self.llm.complete(messages, self.sampling, deadline_s=self.timeout_s, stream=True),
            )
        return parse_reply(self.name, {"text": done.text, "llm": done.record.to_dict()}, done.record.latency_ms or 0.0)


def _within(name: str, seconds: float, work: Callable[[], Any]) -> Any:
    """`work()`'s result, or SystemTimeout at `seconds` (the work, which has the same deadline, ends on its own)."""
    done, box = threading.Event(), {}

    def run() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # raised again in the caller's thread
            box["error"] = exc
        done.set()

    threading.Thread(target=run, daemon=True, name=f"infact-llm-{name}").start()
    if not done.wait(seconds + 0.05):  # the work's own deadline error, when it comes on time, says more
        raise SystemTimeout(name, f"no whole answer within timeout_s = {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


SATISFIED, FRUSTRATED = "[SATISFIED]", "[FRUSTRATED]"


class LiveRun(Protocol):
    """What the simulated participant uses of infact.chat.arena.LiveRun (which imports this module's client)."""

    live: Any

    def phase(self) -> Any: ...
    def session(self, slot: str) -> Any: ...
    def conversation(self, slot: str) -> Conversation: ...
    def can_end(self, conv: Conversation) -> bool: ...
    def submit_rubric(
        self, slot: str, answers: dict, seconds: float | None = None, fallback: list[str] | None = None
    ) -> list[str]: ...
    def submit_vote(self, choice: str, reason: str = "") -> list[str]: ...


def persona_prompt(persona: str, task: str) -> str:
    return (
        f"You are taking part in a study as this person:\n\n{persona.strip()}\n\nYour task:\n{task.strip()}\n\n"
        "You are chatting with a chatbot. Write only your next message to it, in your own words, one or two "
        f"short sentences. When it has recommended something you would really watch, answer only {SATISFIED}. "
        f"If it keeps failing you and you want to give up, answer only {FRUSTRATED}."
    )


def _label(answer: str, labels: list[str]) -> str | None:
    cleaned = answer.strip().strip("\"'*`. ").casefold()
    return next((label for label in labels if cleaned == label.casefold()), None)


class LLMChattingBot:
    def __init__(self, run: LiveRun, llm: LLMClient, persona: str, *, spend: Callable[[float], None] = lambda s: None):
        self.run, self.llm, self.persona, self.spend = run, llm, persona, spend
        self.system = persona_prompt(persona, run.live.task)
        self.fallbacks = 0  # answers that were not one label even when re-asked

    def play(self):
        return play_live(self)

    def _as_user(self, conv: Conversation) -> list[dict]:
        """The chat from the simulated user's side: the chatbot's messages are its `user` turns."""
        flipped = [{"role": "assistant" if m.role == "user" else "user", "content": m.text} for m in conv.messages()]
        opening = [{"role": "user", "content": "(The chat starts. Write your first message.)"}]
        return [{"role": "system", "content": self.system}, *(flipped if flipped else opening)]

    def _ask(self, messages: list[dict]) -> str:
        try:
            return self.llm.complete(messages).text
        except SystemFailure as failure:
            raise SimulatorFailed(failure) from None

    def chat(self, slot: str) -> None:
        session = self.run.session(slot)
        for _ in range(self.run.live.max_turns * 3):
            conv = self.run.conversation(slot)
            if conv.ended is not None:
                return
            if conv.awaiting_reply:
                if not session.retry().ok:
                    session.skip()
                    return
                continue
            text = self._ask(self._as_user(conv))  # SimulatorFailed when it fails: the chat stays as it is
            ending = SATISFIED if SATISFIED in text else FRUSTRATED if FRUSTRATED in text else None
            if ending and self.run.can_end(conv):
                session.end("satisfied" if ending == SATISFIED else "frustrated")
                return
            self.spend(10)
            outcome = session.send(text.replace(SATISFIED, "").replace(FRUSTRATED, "").strip() or "ok")
            if not outcome.ok and outcome.failure is None:
                return

    def _choose(self, question: str, labels: list[str]) -> str | None:
        """The label answered, or None when it was not one label even when re-asked (take `fallback`)."""
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": f"{question}\nAnswer with exactly one of: {', '.join(labels)}."},
        ]
        for _ in range(2):
            answer = self._ask(messages)
            label = _label(answer, labels)
            if label is not None:
                return label
            messages += [
                {"role": "assistant", "content": answer},
                {"role": "user", "content": f"Answer with one of these only: {', '.join(labels)}."},
            ]
        self.fallbacks += 1
        return None

    def _transcript(self, slot: str) -> str:
        return "\n".join(
            f"{'You' if m.role == 'user' else 'Chatbot'}: {m.text}" for m in self.run.conversation(slot).messages()
        )

    def rubric(self, slot: str) -> None:
        scale = self.run.live.rubric_scale
        chosen = {
            item.id: self._choose(
                f"Your chat with chatbot {slot}:\n{self._transcript(slot)}\n\nHow much do you agree: {item.question}",
                scale,
            )
            for item in self.run.live.rubric
        }
        fallback = [k for k, v in chosen.items() if v is None]  # the middle of the scale, stored as such
        answers = {k: scale[len(scale) // 2] if v is None else v for k, v in chosen.items()}
        self.spend(20)
        self.run.submit_rubric(slot, answers, seconds=None, fallback=fallback)

    def vote(self) -> None:
        labels = ["A", "B"] + ["tie"] * self.run.live.allow_tie + ["both_bad"] * self.run.live.allow_both_bad
        chats = "\n\n".join(f"Chat with chatbot {s}:\n{self._transcript(s)}" for s in ("A", "B"))
        choice = self._choose(f"{chats}\n\nWhich chatbot helped you better?", labels)
        reason = "Simulated participant (LLM)."
        if choice is None:
            choice = "tie" if "tie" in labels else "A"
            reason += f" Its answer was not A, B or tie: {choice} was taken (fallback)."
        while len(reason) < self.run.live.vote_reason_min_chars:
            reason += " " + reason
        self.run.submit_vote(choice, reason)  # "A", "B" or "tie", as the vote page sends
