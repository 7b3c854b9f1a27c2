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


def highlight_items(text: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _QUOTED.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        out.append(f'<mark class="infact-item">&quot;{html.escape(m.group(1))}&quot;</mark>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def turn_html(role: str, text: str) -> str:
    label = ROLE_LABELS.get(role, html.escape(role.upper()))
    return (f'<div class="infact-turn infact-{html.escape(role)}"><span class="infact-role">{label}:</span> '
            f'<span class="infact-text">{highlight_items(text)}</span></div>')


def dialog_html(turns: Iterable[tuple[str, str]], placeholder: bool = True, intro: str | None = None) -> str:
    body = f'<p class="infact-intro">{html.escape(intro)}</p>' if intro else ""
    body += "".join(turn_html(role, text) for role, text in turns)
    if placeholder:
        body += '<div class="infact-turn infact-bot infact-next"><span class="infact-role">CHAT-BOT:</span> <span class="infact-text">…?</span></div>'
    return f'<div class="infact-dialog">{body}</div>'


def response_html(letter: str, text: str) -> str:
    return (f'<div class="infact-response"><span class="infact-letter">Response {html.escape(letter)}</span>'
            f'<div class="infact-text">{highlight_items(text)}</div></div>')


CSS = """
<style>
.infact-intro{color:#5f6368;font-size:.9rem;margin:0 0 .5rem 0}
.infact-dialog{border:1px solid #d0d4dc;border-radius:.6rem;padding:.8rem 1rem;background:#fafbfc;margin-bottom:.5rem}
.infact-turn{margin:.35rem 0;padding:.4rem .6rem;border-radius:.5rem;line-height:1.45}
.infact-user{background:#e8f0fe;margin-right:15%}
.infact-bot{background:#f1f3f4;margin-left:15%}
.infact-next{border:2px dashed #9aa0a6;background:#fff}
.infact-role{font-weight:700;font-size:.8rem;letter-spacing:.03em}
.infact-user .infact-role{color:#1a56c4}
.infact-bot .infact-role{color:#5f6368}
mark.infact-item{background:#fff2b3;padding:0 .15em;border-radius:.2em;font-weight:600}
.infact-response{font-size:1.05rem;margin-bottom:.2rem}
.infact-letter{font-weight:700;color:#5f6368;font-size:.85rem;display:block}
</style>
"""
