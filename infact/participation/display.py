"""Dataset text → safe HTML with item names highlighted.

Dialog text comes from datasets and system outputs: it is never trusted. Every
piece is HTML-escaped first; the only markup in the result is our own (turn
wrappers and <mark> around quoted item names), so a response containing
`<script>` or `<img onerror=…>` is shown as text, never run.

Only items are highlighted: a quoted title with a year ("Heat (1995)") or a quoted
name the importer listed in the situation's `meta.items`. Other quoted words (the
attention check's "Meaningless", a "cheeky" remark) stay plain text.
"""

from __future__ import annotations

import html
import re
from typing import Iterable

# Quoted text: "The Matrix (1999)", "Police Academy  (1984)", "Braveheart", "Meaningless".
_QUOTED = re.compile(r'"([^"\n]{1,150})"')
_YEAR_AT_END = re.compile(r"\(\s*(1[89]|20)\d\d\s*\)\s*$")

ROLE_LABELS = {"user": "USER", "bot": "CHAT-BOT"}


# Inline styles on our own markup.
STYLE = {
    "intro": "color:#5f6368;font-size:.9rem;margin:0 0 .5rem 0",
    "dialog": "border:1px solid #d0d4dc;border-radius:.6rem;padding:.8rem 1rem;background:#fafbfc;margin-bottom:.5rem",
    "user": "margin:.35rem 15% .35rem 0;padding:.4rem .6rem;border-radius:.5rem;line-height:1.45;background:#e8f0fe",
    "bot": "margin:.35rem 0 .35rem 15%;padding:.4rem .6rem;border-radius:.5rem;line-height:1.45;background:#f1f3f4",
    "next": "margin:.35rem 0 .35rem 15%;padding:.4rem .6rem;border-radius:.5rem;line-height:1.45;background:#fff;border:2px dashed #9aa0a6",
    "role_user": "font-weight:700;font-size:.8rem;letter-spacing:.03em;color:#1a56c4",
    "role_bot": "font-weight:700;font-size:.8rem;letter-spacing:.03em;color:#5f6368",
    "item": "background:#fff2b3;padding:0 .15em;border-radius:.2em;font-weight:600",
    "response": "font-size:1.05rem;margin-bottom:.2rem",
    "letter": "font-weight:700;color:#5f6368;font-size:.85rem;display:block",
}


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def is_item(quoted: str, items: Iterable[str] = ()) -> bool:
    """A quoted string is an item when it ends with a year or the importer listed it."""
    return bool(_YEAR_AT_END.search(quoted)) or _key(quoted) in {_key(i) for i in items}


def highlight_items(text: str, items: Iterable[str] = ()) -> str:
    items = tuple(items)
    out: list[str] = []
    pos = 0
    for m in _QUOTED.finditer(text):
        if not is_item(m.group(1), items):
            continue
        out.append(html.escape(text[pos:m.start()]))
        out.append(f'<mark class="infact-item" style="{STYLE["item"]}">&quot;{html.escape(m.group(1))}&quot;</mark>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def turn_html(role: str, text: str, *, next_turn: bool = False, items: Iterable[str] = ()) -> str:
    role = role if role in ROLE_LABELS else "bot"
    label = ROLE_LABELS[role]
    box = STYLE["next"] if next_turn else STYLE[role]
    cls = f"infact-turn infact-{role}" + (" infact-next" if next_turn else "")
    body = "…?" if next_turn else highlight_items(text, items)
    return (f'<div class="{cls}" style="{box}"><span class="infact-role" style="{STYLE["role_" + role]}">{label}:</span> '
            f'<span class="infact-text">{body}</span></div>')


def dialog_html(turns: Iterable[tuple[str, str]], placeholder: bool = True, intro: str | None = None,
                items: Iterable[str] = ()) -> str:
    items = tuple(items)
    body = f'<p class="infact-intro" style="{STYLE["intro"]}">{html.escape(intro)}</p>' if intro else ""
    body += "".join(turn_html(role, text, items=items) for role, text in turns)
    if placeholder:
        body += turn_html("bot", "", next_turn=True)
    return f'<div class="infact-dialog" style="{STYLE["dialog"]}">{body}</div>'


def response_html(letter: str, text: str, items: Iterable[str] = ()) -> str:
    return (f'<div class="infact-response" style="{STYLE["response"]}"><span class="infact-letter" style="{STYLE["letter"]}">Response {html.escape(letter)}</span>'
            f'<div class="infact-text">{highlight_items(text, items)}</div></div>')


# Injected as the first element of every participant page. The page layout (stylesheet,
# title, …, form, divider, withdraw box) is kept the same on every step on purpose: with
# other layouts, ten concurrent browsers in tests/e2e/test_concurrent_e2e.py lost the
# clicks on a just-rendered situation form in about half the runs.
CSS = "<style>.infact-dialog mark{color:inherit}</style>"
