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

What a *researcher* reads of participants' text (the dashboard's tables, the INFACT workbook) is different: there
the controls are evidence, so `visible_controls` shows each one as its code point (`[U+202E]`) instead of
dropping it, and the text around it keeps its own order. The workbook also needs it: XLSX cannot hold most C0
controls at all.
"""

from __future__ import annotations

import re

# Embeddings and overrides (LRE RLE PDF LRO RLO) and isolates (LRI RLI FSI PDI).
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_DROP = re.compile(f"[{BIDI_CONTROLS}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def displayable(text: str) -> str:
    """`text` without bidirectional controls and C0/C1 control characters (tab and newlines kept)."""
    return _DROP.sub("", text) if text else text


# Participant text a researcher reads (the dashboard's tables, the workbook): every invisible character that can
# reorder, hide or join text is *shown*, as its code point, rather than dropped — a researcher sees that a comment
# held a right-to-left override or a zero-width space, and the text around it reads in its own order. Bidi
# embeddings, overrides, isolates and marks (U+061C, U+200E/F), zero-width and joiner characters (U+200B–U+200D,
# U+2060–U+2064, U+FEFF), the deprecated format controls (U+206A–U+206F), the line and paragraph separators
# (U+2028/9), soft hyphen, Mongolian vowel separator, interlinear annotations, tag characters, C0 and C1
# controls (tab and newlines stay: layout), lone surrogates and the non-characters U+FFFE/U+FFFF (which an XLSX
# workbook cannot hold).
_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff\U000e0001\U000e0020-\U000e007f]"
)


def code_point(char: str) -> str:
    """The visible stand-in of a hidden character: its code point in brackets, e.g. `[U+202E]`."""
    return f"[U+{ord(char):04X}]"


def visible_controls(text):
    """`text` with every hidden control shown as its code point (`code_point`); anything not text is returned as
    it is. The stored text is never changed: this is for what a researcher reads."""
    if not isinstance(text, str) or not text:
        return text
    return _HIDDEN.sub(lambda m: code_point(m.group()), text)


def visible_frame(frame):
    """A table as the dashboard shows it: every text cell through `visible_controls` (column names too)."""
    columns = [c for c in frame.columns if frame[c].dtype.kind in "OSU" or frame[c].dtype == "string"]
    out = frame.copy()
    for c in columns:
        out[c] = frame[c].map(visible_controls)
    return out.rename(columns=lambda c: visible_controls(c) if isinstance(c, str) else c)
