"""A live chat as one safe HTML block: the page draws the whole conversation in one element.

Used by the chat itself and by the vote, where each conversation can be opened again.
Every text is escaped (a system's answer is data, never Markdown or HTML), its control characters
dropped from what is drawn (`displayable`: an LLM's stray ESC or NUL, a U+202E that would reverse the
rest of the chat; the stored answer keeps them) and quoted item names are highlighted as in situations
(`highlight_items`). Failed answer attempts are
stored but not drawn: the page's warning says what happened.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import NamedTuple

from infact.text.catalogue import N_, _
from infact.text.display import highlight_items
from infact.text.neutral import displayable

TYPING = N_("The chatbot is typing…")
_BUBBLE = "padding:.45rem .7rem;border-radius:.7rem;line-height:1.45;white-space:pre-wrap;overflow-wrap:anywhere;"
STYLE = {
    "chat": "display:flex;flex-direction:column;gap:.45rem;margin:.25rem 0 .5rem 0",
    "user": _BUBBLE + "align-self:flex-end;max-width:85%;background:#e8f0fe",
    "bot": _BUBBLE + "align-self:flex-start;max-width:85%;background:#f1f3f4",
    "typing": _BUBBLE + "align-self:flex-start;background:#f1f3f4;color:#4a4f57;font-style:italic",
    "role": "display:block;font-weight:700;font-size:.8rem;letter-spacing:.03em;color:#4a4f57;white-space:normal",
}
# The typing line pulses (a waiting state a person notices), unless they asked for less motion.
_PULSE = (
    "<style>@keyframes infact-pulse{50%{opacity:.45}}.infact-typing{animation:infact-pulse 1.4s ease-in-out "
    "infinite}@media (prefers-reduced-motion: reduce){.infact-typing{animation:none}}</style>"
)


class ChatLine(NamedTuple):
    role: str  # "user" | "assistant"
    text: str
    items: tuple[str, ...] = ()


def lines_of(turns: Iterable) -> list[ChatLine]:
    """The turns a participant sees: their messages and the usable answers (infact.chat.conversation.Turn)."""
    return [ChatLine(t.role, t.text, tuple(t.items)) for t in turns if t.role == "user" or t.ok]


def _line(line: ChatLine, slot: str) -> str:
    who, style = (_("You"), "user") if line.role == "user" else (_("Chatbot {slot}").format(slot=slot), "bot")
    return (
        f'<div class="infact-chat-turn infact-chat-{style}" style="{STYLE[style]}">'
        f'<span class="infact-role" style="{STYLE["role"]}">{html.escape(who)}</span>'
        f'<span class="infact-text">{highlight_items(displayable(line.text), [displayable(i) for i in line.items])}'
        "</span></div>"
    )


def chat_html(
    lines: Iterable[ChatLine], slot: str, *, pending: str | None = None, typing: bool = False, empty: str = ""
) -> str:
    """The conversation with chatbot `slot`; `pending` is the participant's message being sent
    (shown at once, before it is stored), `typing` the waiting state under it."""
    body = "".join(_line(line, slot) for line in lines)
    if pending:
        body += _line(ChatLine("user", pending), slot)
    if typing:
        body += (
            f'{_PULSE}<div class="infact-chat-turn infact-typing" role="status" aria-live="polite" '
            f'style="{STYLE["typing"]}">{html.escape(_(TYPING))}</div>'
        )
    if not body and empty:
        body = f'<p class="infact-chat-empty" style="color:#4a4f57;margin:0">{html.escape(empty)}</p>'
    label = html.escape(_("Conversation with chatbot {slot}").format(slot=slot), quote=True)
    return f'<div class="infact-chat" role="log" aria-label="{label}" style="{STYLE["chat"]}">{body}</div>'


def vote_note(conversations: Iterable) -> str | None:
    """What the vote page says about skipped chatbots (infact.chat.conversation.Conversation),
    plainly: one that never answered is not offered as if it had chatted."""
    convs = list(conversations)
    never = [c.slot for c in convs if c.never_answered]
    if len(never) == len(convs) and never:
        return _("Neither chatbot answered, and you skipped both, so there is nothing to compare. Please continue.")
    if never:
        other = next(c.slot for c in convs if not c.never_answered)
        return _(
            "Chatbot {slot} never answered, and you skipped it, so there is nothing to compare and no vote "
            "to give. Your chat with chatbot {other} is saved. Please continue."
        ).format(slot=never[0], other=other)
    later = [c.slot for c in convs if (c.ended or {}).get("ended_by") == "skipped"]
    if later:
        if len(later) == 1:
            return _(
                "You skipped chatbot {slot} after it stopped answering: judge by the answers given before."
            ).format(slot=later[0])
        return _("You skipped both chatbots after they stopped answering: judge by the answers given before.")
    return None
