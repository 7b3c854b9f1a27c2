"""Typed text (issue 41, item 3): what a participant's page measures while they type, and what it says to them.

A typed field (a live chat message, a comparison's justification, the arena vote's "Why?") is watched by a small
page script (infact/ui/typed_text.py): paste and drop events and how many characters they brought, keystrokes, and
the time from the first to the last change of the field. Never what was typed key by key. The counts are stored
with the answer they belong to as its `typing` field (`metrics`); the quality checks (infact/results/quality/
typed.py) flag paste-dominant and implausibly fast answers for a person to review, never for rejection.

Every sentence a participant reads about it is here, in one place, for the message catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping

from infact.text.catalogue import N_

# ---------------------------------------------------------------- what participants read

NO_AI_TOOLS = N_(
    "Please write in your own words. Do not use AI tools such as ChatGPT, and do not paste text from elsewhere."
)
PASTE_BLOCKED = N_("Pasting is turned off here: please type your answer.")

# ---------------------------------------------------------------- the stored metrics

FIELDS = ("chars", "pasted_chars", "paste_events", "blocked_pastes", "keystrokes", "typing_ms")
_CAP = 10_000_000  # no count of one answer comes near this; larger is a forged or broken report


def metrics(raw: object, text: str) -> dict | None:
    """The `typing` field stored with an answer: the page's counts for `text`, checked, or None when the page sent
    none (no script: AppTest, a bot, a browser that blocks it). `chars` is the stored text's length, not the
    page's. Counts that are not whole numbers in 0..10^7 make the report unusable: None, never a guess."""
    if not isinstance(raw, Mapping):
        return None
    out = {"chars": len(text or "")}
    for name in FIELDS[1:]:
        value = raw.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            return None
        if not 0 <= value <= _CAP:
            return None
        out[name] = int(value)
    return out


def pasted_share(m: Mapping) -> float:
    """The share of the answer's characters that came by paste or drop (0..1; pasting then deleting counts up to
    the whole answer)."""
    chars = m.get("chars") or 0
    return min(1.0, (m.get("pasted_chars") or 0) / chars) if chars else 0.0


# The columns a table row gives a typed answer's metrics (pairwise.csv: the justification), named by `prefix`.
COLUMN_HELP = {
    "chars": "characters of the stored text",
    "pasted_chars": "characters that came by paste or drop (can exceed chars: pasted, then deleted)",
    "paste_events": "paste and drop events",
    "blocked_pastes": "paste or drop attempts refused (`quality.block_paste`)",
    "keystrokes": "keys pressed in the field (shortcuts and modifier keys not counted)",
    "typing_ms": "milliseconds from the first to the last change of the field",
}


def columns(prefix: str, m: Mapping | None) -> dict:
    """{prefix_chars: …, prefix_pasted_chars: …}: the metrics as row cells, empty (None) when unknown."""
    return {f"{prefix}_{name}": (m or {}).get(name) for name in FIELDS}
