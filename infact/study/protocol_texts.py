"""Default participant texts that fit the study's protocol.

The field defaults in config.py and protocol_config.py are worded for INFACT's rating protocol
("rate how meaningful each … response is", "the chatbot would be useful"). A comparison study
that leaves a text out gets the wording of its own protocol here instead: a pairwise study
compares responses of several chatbots, an ACUTE-style study whole conversations, a best–worst
study picks the best and the worst. `fill_defaults` works on the raw study.toml tables before
validation, so a text the researcher wrote is never replaced and the defaults are validated
like any other value.
"""

from __future__ import annotations

from typing import Any

CAREFUL = ("careful", "I am answering carefully and select the last option here.", "Strongly agree")

# (id, text, expected): the rating protocol's list in config.py, reworded for several chatbots.
QUESTIONNAIRES: dict[str, list[tuple[str, str, str | None]]] = {
    "pairwise": [
        ("natural", "The conversations felt natural.", None),
        ("realistic", "The conversations looked realistic.", None),
        ("human_like", "The conversations could have happened between two humans.", None),
        ("useful", "The better response was usually one that would help the user.", None),
        ("would_use", "I would use the best of these chatbots in the future.", None),
        CAREFUL,
    ],
    "pairwise_dialog": [
        ("natural", "The conversations felt natural.", None),
        ("realistic", "The conversations looked realistic.", None),
        ("human_like", "The conversations could have happened between two humans.", None),
        ("useful", "The better chatbot of each pair would be useful to someone looking for a movie.", None),
        ("would_use", "I would use the best of these chatbots in the future.", None),
        CAREFUL,
    ],
    "best_worst": [
        ("natural", "The conversations felt natural.", None),
        ("realistic", "The conversations looked realistic.", None),
        ("human_like", "The conversations could have happened between two humans.", None),
        ("useful", "The best response was usually one that would help the user.", None),
        ("would_use", "I would use the best of these chatbots in the future.", None),
        CAREFUL,
    ],
}

SITUATION_HELP = {
    "pairwise": "Read the conversation, then choose the better of the two next chatbot responses.",
    "pairwise_dialog": "Read both conversations, then choose the better chatbot for each question.",
    "best_worst": "Read the conversation, then pick the best and the worst of the next chatbot responses.",
}

QUESTION = {
    "pairwise": "Which response is more **{criterion}**?",
    "pairwise_dialog": "Which chatbot is more **{criterion}**: the one in conversation A or in conversation B?",
    "best_worst": "Which response is the most **{criterion}**, and which the least?",
}

QUESTIONNAIRE_INTRO = {
    "pairwise": "Almost done! Please tell us what you thought of the chatbots' responses overall.",
    "pairwise_dialog": "Almost done! Please tell us what you thought of the chatbots overall.",
    "best_worst": "Almost done! Please tell us what you thought of the chatbots' responses overall.",
}


def attention_text(kind: str, criteria: list[str]) -> str:
    """The instructed response: which answer to give, to which question(s) of the page."""
    noun = "conversation" if kind == "pairwise_dialog" else "response"
    choice = "the best one" if kind == "best_worst" else "the better one"
    if len(criteria) > 1:
        names = ", ".join(f'"{c}"' for c in criteria[:-1]) + f' and "{criteria[-1]}"'
        where = f"for each of the {len(criteria)} questions on this page ({names}), "
    else:
        where = ""
    extra = " Any pick for the worst one is fine." if kind == "best_worst" else ""
    return f"I am reading this carefully: {where}please choose THIS {noun} as {choice}.{extra}"


def fill_defaults(data: Any) -> Any:
    """study.toml's tables with the protocol's own texts wherever the researcher gave none."""
    if not isinstance(data, dict):
        return data
    protocol = data.get("protocol")
    kind = protocol.get("kind", "rating") if isinstance(protocol, dict) else getattr(protocol, "kind", "rating")
    if kind not in QUESTIONNAIRES or not isinstance(protocol, dict):
        return data  # rating (the field defaults' own protocol), or an already built section
    data = {**data, "protocol": dict(protocol)}
    protocol = data["protocol"]
    raw_criteria = data.get("criteria")
    criteria = ([c.get("id") for c in raw_criteria if isinstance(c, dict)] if isinstance(raw_criteria, list)
                else ["meaningful"])
    protocol.setdefault("question", QUESTION[kind])
    protocol.setdefault("attention_text", attention_text(kind, [str(c) for c in criteria if c]))
    texts = data.get("texts")
    if isinstance(texts, dict):
        data["texts"] = texts = dict(texts)
        texts.setdefault("situation_help", SITUATION_HELP[kind])
        texts.setdefault("questionnaire_intro", QUESTIONNAIRE_INTRO[kind])
    questionnaire = data.get("questionnaire", {})
    if isinstance(questionnaire, dict) and "items" not in questionnaire:
        data["questionnaire"] = {**questionnaire, "items": [
            {"id": i, "text": t, **({"expected": e} if e else {})} for i, t, e in QUESTIONNAIRES[kind]]}
    return data
