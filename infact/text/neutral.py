"""Text as it may be shown: invisible controls that change how the *rest* of a page reads are removed.

Dataset texts, system responses and LLM answers are never trusted. HTML escaping
(display.py) stops markup, but not Unicode controls: U+202E (RIGHT-TO-LEFT OVERRIDE)
reverses everything after it up to the end of the block — a highlighted title, the next
turn — and a C0 control (NUL, ESC, BEL…) shows as a box or nothing. `displayable` drops
them from what is *displayed*; the stored text, exports and analysis keep every character
(nothing stored is changed). Tab, newline and carriage return stay: they are layout.
Right-to-left scripts still read right to left: only the explicit embedding, override and
isolate controls go, the letters' own direction is untouched.

One helper for every displayed text (situations, responses, conversations, live chats).
"""

from __future__ import annotations

import re

# Embeddings and overrides (LRE RLE PDF LRO RLO) and isolates (LRI RLI FSI PDI).
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_DROP = re.compile(f"[{BIDI_CONTROLS}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def displayable(text: str) -> str:
    """`text` without bidirectional controls and C0/C1 control characters (tab and newlines kept)."""
    return _DROP.sub("", text) if text else text
