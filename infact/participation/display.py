"""Dataset text → safe HTML with item names highlighted.

Dialog text comes from datasets and system outputs: it is never trusted. Every
piece is HTML-escaped first; the only markup in the result is our own (turn
wrappers and <mark> around quoted item names), so a response containing
`<script>` or `<img onerror=…>` is shown as text, never run.
"""

from __future__ import annotations

import html
import re
from typing import Iterable

# A quoted item name: "The Matrix (1999)", "Police Academy  (1984)", "Braveheart".
_QUOTED = re.compile(r'"([^"\n]{1,150})"')

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


def highlight_items(text: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _QUOTED.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        out.append(f'<mark class="infact-item" style="{STYLE["item"]}">&quot;{html.escape(m.group(1))}&quot;</mark>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def turn_html(role: str, text: str, *, next_turn: bool = False) -> str:
    role = role if role in ROLE_LABELS else "bot"
    label = ROLE_LABELS[role]
    box = STYLE["next"] if next_turn else STYLE[role]
    cls = f"infact-turn infact-{role}" + (" infact-next" if next_turn else "")
    body = "…?" if next_turn else highlight_items(text)
    return (f'<div class="{cls}" style="{box}"><span class="infact-role" style="{STYLE["role_" + role]}">{label}:</span> '
            f'<span class="infact-text">{body}</span></div>')


def dialog_html(turns: Iterable[tuple[str, str]], placeholder: bool = True, intro: str | None = None) -> str:
    body = f'<p class="infact-intro" style="{STYLE["intro"]}">{html.escape(intro)}</p>' if intro else ""
    body += "".join(turn_html(role, text) for role, text in turns)
    if placeholder:
        body += turn_html("bot", "", next_turn=True)
    return f'<div class="infact-dialog" style="{STYLE["dialog"]}">{body}</div>'


def response_html(letter: str, text: str) -> str:
    return (f'<div class="infact-response" style="{STYLE["response"]}"><span class="infact-letter" style="{STYLE["letter"]}">Response {html.escape(letter)}</span>'
            f'<div class="infact-text">{highlight_items(text)}</div></div>')


# Injected as the first element of every participant page. The page layout (stylesheet,
# title, …, form, divider, withdraw box) is kept the same on every step on purpose: with
# other layouts, ten concurrent browsers in tests/e2e/test_concurrent_e2e.py lost the
# clicks on a just-rendered situation form in about half the runs.
CSS = "<style>.infact-dialog mark{color:inherit}</style>"
