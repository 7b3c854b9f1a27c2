"""The judges' prompts live in infact/llm/prompts.py, where the simulated participants (infact/llm/simulated.py,
below the results layer) build theirs from the same pieces; this name is kept for the judges' callers."""

from infact.llm.prompts import (
    JSON_ASK,
    constraint,
    dialog_prompt,
    pairwise_prompt,
    parse_label,
    rating_prompt,
    reminder,
    system_message,
)

__all__ = [
    "JSON_ASK",
    "constraint",
    "dialog_prompt",
    "pairwise_prompt",
    "parse_label",
    "rating_prompt",
    "reminder",
    "system_message",
]
