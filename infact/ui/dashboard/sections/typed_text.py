"""Typed text (issue 41, item 3): how much of the participants' typed text was pasted, per system in live chats,
and who is flagged `pasted_text` or `typed_too_fast` for a person to review (never an automatic rejection)."""

from __future__ import annotations

import html

import streamlit as st

from infact.results.quality import typed as typed_checks
from infact.ui.dashboard.registry import section


def _offered(cfg) -> bool:
    protocols = [cfg.protocol, *(getattr(b, "protocol", None) for b in getattr(cfg, "blocks", []) or [])]
    asks = any(getattr(p, "justification", "off") != "off" for p in protocols if p is not None)
    return cfg.live.enabled or asks or cfg.questionnaire.comment.enabled


@section("Typed text", offered=_offered, after="Participants")
def show_typed_text(view) -> None:
    typed = typed_checks.typed_table(view.records())
    st.caption(
        "Counted by the participant's page while they typed: paste and drop events, the characters they brought, "
        "keystrokes and typing time (never what was typed key by key). The flags below are for you to read the "
        "answers: they never exclude a participant or count towards a rejection (docs/quality.md, 'Typed text')."
    )
    if view.cfg.live.enabled:
        st.markdown("**Pasted share of the participants' messages, per system (live chats)**")
        per = typed_checks.pasted_share_by_system(typed)
        if len(per):
            st.html(_share_table(per))
        else:
            st.caption("No live chat message with typing counts yet.")
    flagged = _flagged(view.overview())
    st.markdown("**Flagged for review**")
    if flagged:
        st.html(_flag_list(flagged))
    else:
        st.caption("No participant is flagged `pasted_text` or `typed_too_fast`.")


def _share_table(per) -> str:
    """A small HTML table (text in the page, so it reads on a phone and can be found)."""
    head = "".join(f"<th>{h}</th>" for h in ("System", "Messages", "With a paste", "Characters", "Pasted share"))
    rows = "".join(
        f"<tr><td>{html.escape(str(r.system))}</td><td>{r.messages}</td><td>{r.pasted_messages}</td>"
        f"<td>{r.chars:,}</td><td>{r.pasted_share:.0%}</td></tr>"
        for r in per.itertuples()
    )
    style = (
        "<style>.infact-typed-share{border-collapse:collapse}.infact-typed-share th,.infact-typed-share td"
        "{padding:.3rem .9rem .3rem 0;border-bottom:1px solid rgba(49,51,63,.15);text-align:left}"
        ".infact-typed-share td+td,.infact-typed-share th+th{text-align:right}</style>"
    )
    return f'{style}<table class="infact-typed-share"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _flagged(overview) -> list[tuple[str, list[str]]]:
    out = []
    for row in overview.itertuples():
        names = list(row.flags) if isinstance(row.flags, list | tuple) else []
        reasons = list(row.reasons) if isinstance(row.reasons, list | tuple) else []
        mine = [f"{n}: {r}" for n, r in zip(names, reasons) if n in typed_checks.REVIEW_ONLY]
        if mine:
            out.append((str(row.participant), mine))
    return out


def _flag_list(flagged: list[tuple[str, list[str]]]) -> str:
    items = "".join(
        f"<li><code>{html.escape(pid)}</code><ul>{''.join(f'<li>{html.escape(x)}</li>' for x in reasons)}</ul></li>"
        for pid, reasons in flagged
    )
    return f'<ul class="infact-typed-flags">{items}</ul>'
