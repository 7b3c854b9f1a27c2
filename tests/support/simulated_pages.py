"""Stub simulated participants with a planted preference: they answer the pages of infact/llm/simulated.py.

`planted_page_rule(study, quality, mode)` reads a page prompt as the stub receives it — the responses
lettered in the order shown, then `[KEY] question` / `Answer with one of: …` — and answers one line per
key: `follow` rates each response at its system's planted quality and prefers the better one (as the
attentive bots do), `reverse` the opposite, `garbage` never answers with a label. A response no system
wrote is the attention check's instruction: it is followed (the label it quotes, or that response). The
onboarding's gold pairs are answered right.
"""

from __future__ import annotations

import re

_QUESTION = re.compile(r"^\[(\S+)\] (.*)\n(?:Answer with one of: (.*)|Answer in one or two short sentences\.)$", re.M)
_RESPONSE = re.compile(
    r"^(Response|Conversation) ([A-Z]):\n(.*?)(?=\n\n(?:Response|Conversation) [A-Z]:\n|\n\nQuestions:\n)", re.M | re.S
)
_QUOTED = re.compile(r'"([^"]+)"')


def last_user(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def is_page(request: dict) -> bool:
    return "\nQuestions:\n" in last_user(request) or last_user(request).startswith("These answers are missing")


def questions(prompt: str) -> list[tuple[str, str, list[str]]]:
    return [(k, text, labels.split(" | ") if labels else []) for k, text, labels in _QUESTION.findall(prompt)]


def shown(request: dict) -> dict[str, str]:
    """letter → the text of the response (or conversation) shown, from the page (the first user message)."""
    page = [m for m in request["messages"] if m["role"] == "user"][0]["content"]
    return {letter: text for _, letter, text in _RESPONSE.findall(page)}


def planted_page_rule(study=None, quality: dict[str, float] | None = None, mode: str = "follow"):
    """Without a study: no preference (every response scored as unknown: the quoted label, or the first)."""
    every = [*study.situations, *([study.attention_situation] if study.attention_situation else [])] if study else []
    author = {text: system for s in every for system, text in s.responses.items()}
    quality = quality or {}
    gold = {}  # the onboarding's gold pairs (keys "1", "2", …) are answered right: the plant is about the systems
    if study is not None and study.config.protocol.onboarding:
        from infact.study.gold_pairs import read_gold_pairs

        pairs = read_gold_pairs(study.folder, study.config.protocol.onboarding)
        gold = {str(i): p["answer"] for i, p in enumerate(pairs, start=1)}
    sign = -1.0 if mode == "reverse" else 1.0

    def score(text: str) -> float | None:
        system = author.get(text.strip())
        return None if system is None else sign * quality[system]

    def answer(key: str, question: str, labels: list[str], texts: dict[str, str]) -> str:
        if mode == "garbage":
            return "Hard to say, honestly."
        if not labels:
            return "Response A answered what the user asked."
        told = [q for q in _QUOTED.findall(question) if q in labels]
        if told:  # an instructed questionnaire item
            return told[0]
        if "last option" in question:
            return labels[-1]
        head, _, _ = key.partition("/")
        if key in gold:
            return gold[key]
        if head in texts and "/" in key:  # a rating: "A/criterion"
            s = score(texts[head])
            if s is None:  # the instruction: the label it quotes
                return next((q for q in _QUOTED.findall(texts[head]) if q in labels), labels[0])
            q = s if sign > 0 else len(labels) + 1 + s
            return labels[min(len(labels), max(1, round(q))) - 1]
        letters = [x for x in labels if x in texts]
        if not letters:
            return labels[len(labels) // 2]
        scored = {x: score(texts[x]) for x in letters}
        if any(v is None for v in scored.values()):  # the check: choose the instruction
            instructed = next(x for x, v in scored.items() if v is None)
            return instructed if head != "worst" else next(x for x in letters if x != instructed)
        return (min if head == "worst" else max)(letters, key=lambda x: scored[x])

    def rule(request: dict) -> str:
        texts = shown(request)
        return "\n".join(
            f"{key}: {answer(key, text, labels, texts)}" for key, text, labels in questions(last_user(request))
        )

    return rule
