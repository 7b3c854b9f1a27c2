"""What an LLM judge is asked, built from the study's own texts, and how its answer is read; the simulated
participants (infact/llm/simulated.py) read their pages in the same words (`responses_page`, `conversations_page`).

The system message holds the study's instructions (the judge reads what the participants
read); the user message holds one item — a dialog and a response (rating), two responses
(pairwise) or two whole conversations (dialog-level) — then the criterion's own question and
the labels it may answer with. An answer counts only if, once spaces, quotes, asterisks and a
final full stop are taken off, it *is* one label (case aside). Anything else is re-asked once,
then stored as unparseable: never guessed.
"""

from __future__ import annotations

import json
import re

from infact.study.config import StudyConfig
from infact.study.situations import Turn

_DECOR = re.compile(r"^[\s\"'*`_]+|[\s\"'*`_.]+$")


def system_message(config: StudyConfig, preamble: str | None) -> str:
    head = (preamble.strip() + "\n\n") if preamble else ""
    return (
        f"{head}You are an annotator in a study of chatbot responses. These are the instructions every "
        f"participant of the study was given:\n\n{config.texts.instructions.strip()}\n\n"
        "Answer every question with exactly one of the labels offered, and nothing else."
    )


def _dialog(turns: tuple[Turn, ...] | list[Turn] | list[dict]) -> str:
    """Turns (a situation's, or their stored dicts: a record's, a gold pair's) as `User:` / `Chatbot:` lines."""
    return "\n".join(f"{'User' if _get(t, 'role') == 'user' else 'Chatbot'}: {_get(t, 'text')}" for t in turns)


def _get(turn, name: str):
    return turn[name] if isinstance(turn, dict) else getattr(turn, name)


def dialog_text(turns) -> str:
    """The dialog as the prompts show it (simulated participants: infact/llm/simulated.py)."""
    return _dialog(turns)


def _labels(labels: list[str]) -> str:
    return "Answer with exactly one of these labels:\n" + "\n".join(f"- {label}" for label in labels)


def rating_prompt(context, response: str, question: str, labels: list[str]) -> str:
    return (
        f"The dialog so far:\n{_dialog(context)}\n\nA possible next chatbot response:\n{response}\n\n"
        f"{question}\n\n{_labels(labels)}"
    )


def responses_page(context, responses: list[tuple[str, str]]) -> str:
    """The dialog so far and the responses [(letter, text)] in the order shown (judges' pairs, and the pages a
    simulated participant reads)."""
    shown = "\n\n".join(f"Response {letter}:\n{text}" for letter, text in responses)
    return f"The dialog so far:\n{_dialog(context)}\n\n{shown}"


def conversations_page(conversations: list[tuple[str, list]]) -> str:
    """Whole conversations [(letter, turns)] side by side, in the order shown."""
    return "\n\n".join(f"Conversation {letter}:\n{_dialog(turns)}" for letter, turns in conversations)


def pairwise_prompt(context, first: str, second: str, question: str, labels: list[str]) -> str:
    return f"{responses_page(context, [('A', first), ('B', second)])}\n\n{question}\n\n{_labels(labels)}"


def dialog_prompt(first, second, question: str, labels: list[str]) -> str:
    return f"{conversations_page([('A', first), ('B', second)])}\n\n{question}\n\n{_labels(labels)}"


def reminder(labels: list[str]) -> str:
    return "That answer is not one of the labels. " + _labels(labels) + "\nReply with the label only."


JSON_ASK = 'Answer with a JSON object {"label": "<the label>"} and nothing else.'


def constraint(mode: str | None, labels: list[str]) -> dict:
    """Request fields that constrain the answer to `labels` (`[judges.NAME] constrain`), {} for free text."""
    if mode == "grammar":  # GBNF, llama.cpp's `grammar` field
        return {"grammar": "root ::= " + " | ".join(json.dumps(label) for label in labels)}
    if mode == "json_schema":
        schema = {
            "type": "object",
            "properties": {"label": {"type": "string", "enum": list(labels)}},
            "required": ["label"],
            "additionalProperties": False,
        }
        return {"response_format": {"type": "json_schema", "json_schema": {"name": "label", "schema": schema}}}
    if mode == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


def parse_label(answer: str, labels: list[str]) -> str | None:
    """The label the answer is (or a JSON object's "label" is), or None (no partial matches, no guessing)."""
    try:
        data = json.loads(answer or "")
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("label"), str):
        answer = data["label"]
    cleaned = _DECOR.sub("", answer or "").casefold()
    for label in labels:
        if cleaned == _DECOR.sub("", label).casefold():
            return label
    return None
