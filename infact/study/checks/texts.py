"""Warnings for participant texts that speak of another protocol's task.

A text the researcher wrote stays when `[protocol] kind` changes (a text left out follows the protocol:
protocol_config.fill_defaults). So a pairwise study whose instructions still say "rate each response on the
scale" would ask participants for a task the page does not offer; `text_warnings` names such a text, the
words that give it away, and the fix. Cues are phrases, not single words ("better" or "rate" alone would
flag good texts), and only the protocols a study does not use are looked for.
"""

from __future__ import annotations

import re

from infact.errors import Problem

# The task of each family of protocols, in the words a text uses for it.
CUES: dict[str, tuple[str, ...]] = {
    "rating": (
        r"\brat(?:e|ing)\s+(?:each|every|all|the|how|them|it|its)\b",
        r"\bon\s+(?:a|the|this)\s+(?:\d+[- ]?point\s+|\w+\s+)?scale\b",
        r"\brating\s+scale\b",
        r"\bgive\s+(?:\w+\s+){0,3}a\s+rating\b",
    ),
    "pairwise": (
        r"\btwo\s+(?:possible\s+|candidate\s+)?(?:next\s+)?(?:chatbot\s+)?(?:responses|answers|replies)\b",
        r"\bwhich\s+of\s+the\s+two\b",
        r"\bchoose\s+the\s+better\b",
        r"\bthe\s+better\s+(?:one|response)\b",
        r"\bside\s+by\s+side\b",
    ),
    "best_worst": (r"\bbest\s+and\s+(?:the\s+)?worst\b",),
}
TASK = {
    "rating": "rating each response on a scale",
    "pairwise": "choosing the better of two",
    "best_worst": "picking the best and the worst",
}
# The families a protocol's own texts may speak of (a conversation study rates turns on scales).
OWN = {
    "rating": {"rating"},
    "pairwise": {"pairwise"},
    "pairwise_dialog": {"pairwise"},
    "best_worst": {"best_worst"},
    "conversation": {"rating"},
}
NAME = {
    "rating": "rating",
    "pairwise": "pairwise",
    "pairwise_dialog": "pairwise (ACUTE-style)",
    "best_worst": "best–worst",
    "conversation": "conversation",
}
CHECKED = ("welcome", "instructions", "situation_help", "questionnaire_intro")


def text_warnings(config, file: str = "study.toml", text: str = "") -> list[Problem]:
    """A Problem per text the researcher wrote that speaks of a task none of the study's protocols has."""
    blocks = config.blocks
    allowed = set().union(*(OWN[b] for b in blocks))
    kind = config.protocol.kind
    found = []
    for key in CHECKED:
        if key not in config.texts.model_fields_set:
            continue  # the protocol's own wording
        value = re.sub(r"[*_`]", "", getattr(config.texts, key))  # **each** reads as each
        for family, cues in CUES.items():
            if family in allowed:
                continue
            hit = next((m for cue in cues if (m := re.search(cue, value, re.IGNORECASE))), None)
            if hit is None:
                continue
            words = " ".join(hit.group(0).split())
            found.append(
                Problem(
                    file,
                    f'texts.{key} speaks of {TASK[family]} ("{words}"), but this study is {NAME[kind]}: '
                    f"rewrite it, or delete texts.{key} to use the {NAME[kind]} wording",
                    _line(text, key),
                    f"texts.{key}",
                )
            )
    return found


def _line(text: str, key: str) -> int | None:
    from infact.study.toml_config import line_of

    return line_of(text, ("texts", key)) if text else None
