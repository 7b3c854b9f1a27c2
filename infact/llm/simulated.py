"""A simulated participant answering a study's pages (`bots --strategy llm`, docs/llm.md).

The LLM plays a persona (the researcher's text) who has read the study's instructions. For each
page it is sent, in one call, what a person sees on it — the dialog, the responses in the order
shown (or two whole conversations, or one to annotate turn by turn) — and the page's questions,
each with a key and the labels it may be answered with:

    [A/meaningful] Response A: How meaningful is this response …?
    Answer with one of: Meaningless | Somewhat meaningless | Somewhat meaningful | Meaningful

It answers one line per question, `KEY: label` (or, with `constrain = "json_schema"` / `"json_object"`,
a JSON object of key → label; `"grammar"` sends a GBNF grammar allowing exactly those lines). An
answer counts only if it *is* one label, as a judge's (infact/llm/prompts.py parse_label). The
questions not answered with a label are asked again once, alone; what is still not a label is a
*fallback*: the step kind stores a stand-in, the key is listed in the record's `fallback` and counted
(the `bots` command prints the count). A failed call (after the connector's retries) raises
`SimulatorFailed`: the bot stops, unfinished, and nothing is stored for that page.

Every answer carries its provenance (`take()`): endpoint, model, the first call's prompt hash, the last
call's finish_reason and every call's record (tokens, latency, the answer as given; never the key), as judges'
answers do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from infact.errors import SimulatorFailed, SystemFailure
from infact.llm.prompts import constraint, parse_label


@dataclass(frozen=True)
class Question:
    """One answer a page asks for: `labels` to choose from, or () for free text of at least `min_chars`."""

    key: str  # "A/meaningful", "best/meaningful", "3/relevance": unique on the page, no spaces
    text: str
    labels: tuple[str, ...] = ()
    min_chars: int = 1


def persona_system(persona: str, instructions: str) -> str:
    return (
        f"You are taking part in a study as this person:\n\n{persona.strip()}\n\n"
        "These are the instructions every participant of the study was given:\n\n"
        f"{(instructions or '').strip()}\n\n"
        "Read each page as this person would and answer its questions honestly, as this person."
    )


def _ask_text(questions: Sequence[Question], json_mode: bool) -> str:
    lines = []
    for q in questions:
        lines.append(f"[{q.key}] {q.text}")
        lines.append(
            f"Answer with one of: {' | '.join(q.labels)}" if q.labels else "Answer in one or two short sentences."
        )
    how = (
        'Answer with a JSON object {"KEY": "<answer>", …} holding one answer per question key, and nothing else.'
        if json_mode
        else "Answer each question on its own line as `KEY: answer` (the key without brackets), and nothing else."
    )
    return "Questions:\n" + "\n".join(lines) + "\n\n" + how


def page_constraint(mode: str | None, questions: Sequence[Question]) -> dict:
    """Request fields that hold the answer to the questions' labels (one label each), {} for free text."""
    if mode == "grammar":
        rules = [
            f"q{i} ::= {json.dumps(q.key + ': ')} "
            + ("(" + " | ".join(json.dumps(label) for label in q.labels) + ")" if q.labels else "[^\\n]+")
            for i, q in enumerate(questions)
        ]
        root = ' "\\n" '.join(f"q{i}" for i in range(len(questions)))
        return {"grammar": "\n".join([f"root ::= {root}", *rules])}
    if mode == "json_schema":
        props = {q.key: {"type": "string", **({"enum": list(q.labels)} if q.labels else {})} for q in questions}
        schema = {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}
        return {"response_format": {"type": "json_schema", "json_schema": {"name": "answers", "schema": schema}}}
    return constraint(mode, [])  # json_object, or nothing


def parse_answers(text: str, questions: Sequence[Question]) -> dict[str, str | None]:
    """key → its label (or free text), None where the answer is missing or not one label."""
    given: dict[str, str] = {}
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        given = {str(k): v for k, v in data.items() if isinstance(v, str)}
    else:
        for line in text.splitlines():
            m = re.match(r"^\s*[-*]*\s*\[?([^\]\s:]+)\]?\s*:\s*(.*?)\s*$", line)
            if m and m.group(1) not in given:
                given[m.group(1)] = m.group(2)
    out: dict[str, str | None] = {}
    for q in questions:
        value = given.get(q.key)
        if value is None:
            out[q.key] = None
        elif q.labels:
            out[q.key] = parse_label(value, list(q.labels))
        else:
            out[q.key] = value.strip() if len(value.strip()) >= q.min_chars else None
    return out


class SimulatedParticipant:
    def __init__(
        self,
        llm,
        persona: str,
        *,
        instructions: str = "",
        constrain: str | None = None,
        request: dict | None = None,
    ):
        self.llm, self.persona = llm, persona
        self.system = persona_system(persona, instructions)
        self.constrain, self.request = constrain, dict(request or {})
        self.fallbacks = 0  # answers that were not a label even when asked again (a stand-in was stored)
        self._calls: list[dict] = []
        self._fallback: list[str] = []

    def answer(self, page: str, questions: Sequence[Question]) -> dict[str, str | None]:
        """The page's answers by key; None for a fallback (already listed and counted). SimulatorFailed when
        a call fails."""
        json_mode = self.constrain in ("json_schema", "json_object")
        messages = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": f"{page.strip()}\n\n{_ask_text(questions, json_mode)}"},
        ]
        answers = self._call(messages, questions)
        missing = [q for q in questions if answers[q.key] is None]
        if missing:  # asked again, those alone
            messages += [
                {"role": "assistant", "content": self._last_text},
                {
                    "role": "user",
                    "content": "These answers are missing or are not one of their labels; answer them again.\n\n"
                    + _ask_text(missing, json_mode),
                },
            ]
            again = self._call(messages, missing)
            answers.update({k: v for k, v in again.items() if v is not None})
        for q in questions:
            if answers[q.key] is None:
                self.mark_fallback(q.key)
        return answers

    def mark_fallback(self, key: str) -> None:
        """`key` gets a stand-in answer (a step kind's own check, e.g. best = worst, calls this too)."""
        if key not in self._fallback:
            self._fallback.append(key)
            self.fallbacks += 1

    def _call(self, messages: list[dict], questions: Sequence[Question]) -> dict[str, str | None]:
        extra = {**page_constraint(self.constrain, questions), **self.request}
        try:
            done = self.llm.complete(messages, extra=extra or None)
        except SystemFailure as failure:
            raise SimulatorFailed(failure) from None
        self._calls.append({**done.record.to_dict(), "answer": done.text})
        self._last_text = done.text
        return parse_answers(done.text, questions)

    def take(self) -> dict:
        """The provenance of the answers given since the last take, as record fields ({} when none)."""
        if not self._calls:
            return {}
        calls, fallback = self._calls, self._fallback
        self._calls, self._fallback = [], []
        llm = {
            "endpoint": self.llm.name,
            "model": self.llm.endpoint.model,
            "prompt_hash": calls[0].get("prompt_hash"),
            "finish_reason": calls[-1].get("finish_reason"),
            "calls": calls,
        }
        return {"llm": llm, **({"fallback": fallback} if fallback else {})}
