"""Typed text (issue 41, item 3): flags for a person to review, never grounds for rejection on their own.

A participant's typed answers (live chat messages, justifications, the arena vote's reason) carry how they were
typed (`typing`, infact/text/typed.py). Two checks read them:

- `pasted_text`: at least `quality.pasted_share` of an answer's characters came by paste or drop;
- `typed_too_fast`: the characters that were not pasted arrived faster than `quality.max_typing_chars_per_second`
  (from the first to the last change of the field; text that appears in one change without a paste is
  infinitely fast).

Answers shorter than `quality.pasted_min_chars` are never flagged. Both are `REVIEW_ONLY`: they are listed with
their reasons, but they neither exclude a participant nor count towards a Prolific rejection; the participant's
Prolific action becomes `review` (infact/results/quality/exclusion.py, infact/prolific/review.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from infact.text.typed import FIELDS, pasted_share

REVIEW_ONLY = ("pasted_text", "typed_too_fast")
TYPED_COLUMNS = ["participant", "source", "system", *FIELDS]
COMPARISON_RECORDS = ("pairwise", "best_worst", "pairwise_dialog")
SOURCES = {
    "chat": "live chat message",
    "justification": "justification",
    "vote_reason": "reason for the vote",
    "comment": "questionnaire comment",
}


def typed_rows(record: Mapping) -> list[dict]:
    """The typed answers one stored record holds, with their counts (none when the page sent none)."""
    kind = record.get("kind")
    if kind == "chat_message" and record.get("role") == "user":
        source, system, m = "chat", record.get("system"), record.get("typing")
    elif kind == "chat_vote":
        source, system, m = "vote_reason", None, record.get("justification_typing")
    elif kind in COMPARISON_RECORDS:
        source, system, m = "justification", None, record.get("justification_typing")
    elif kind == "questionnaire":
        source, system, m = "comment", None, record.get("comment_typing")
    else:
        return []
    if not isinstance(m, Mapping) or record.get("preview"):
        return []
    return [{"participant": record["participant"], "source": source, "system": system, **{f: m.get(f) for f in FIELDS}}]


def typed_table(records: Iterable[Mapping]) -> pd.DataFrame:
    """One row per typed answer with counts (TYPED_COLUMNS)."""
    return pd.DataFrame([row for r in records for row in typed_rows(r)], columns=TYPED_COLUMNS)


def _judged(ev) -> pd.DataFrame:
    t = getattr(ev, "typed", None)
    if t is None or not len(t):
        return pd.DataFrame(columns=TYPED_COLUMNS)
    t = t[t["participant"].isin(ev.participants.index)]
    return t[pd.to_numeric(t["chars"], errors="coerce").fillna(0) >= ev.cfg.pasted_min_chars]


def _where(rows: pd.DataFrame) -> str:
    return ", ".join(sorted({SOURCES.get(s, str(s)) for s in rows["source"]}))


REVIEW = "review the text; not a reason to reject on its own"


def pasted_text(ev) -> dict[str, str]:
    t = _judged(ev)
    if t.empty:
        return {}
    share = t.apply(lambda r: pasted_share(r.to_dict()), axis=1)
    hit = t[share >= ev.cfg.pasted_share]
    out = {}
    for pid, rows in hit.groupby("participant", sort=False):
        of = int((t["participant"] == pid).sum())
        chars = pd.to_numeric(rows["chars"])
        pasted = int(pd.to_numeric(rows["pasted_chars"]).clip(upper=chars).sum())
        out[pid] = (
            f"pasted most of {len(rows)} of {of} typed answers ({_where(rows)}: {pasted:,} of {int(chars.sum()):,} "
            f"characters pasted; threshold {ev.cfg.pasted_share:.0%}): {REVIEW}"
        )
    return out


def typing_rate(m: Mapping) -> float:
    """Characters per second of the answer's characters that were not pasted (inf: they came in one change)."""
    own = max(0, int(m.get("chars") or 0) - int(m.get("pasted_chars") or 0))
    ms = m.get("typing_ms") or 0
    if own == 0:
        return 0.0
    return own / (ms / 1000) if ms > 0 else float("inf")


def typed_too_fast(ev) -> dict[str, str]:
    t = _judged(ev)
    if t.empty:
        return {}
    own = pd.to_numeric(t["chars"]) - pd.to_numeric(t["pasted_chars"]).clip(upper=pd.to_numeric(t["chars"]))
    rate = t.apply(lambda r: typing_rate(r.to_dict()), axis=1)
    hit = t[(own >= ev.cfg.pasted_min_chars) & (rate > ev.cfg.max_typing_chars_per_second)]
    out = {}
    for pid, rows in hit.groupby("participant", sort=False):
        fastest = rate[rows.index].max()
        speed = "in one go, without typing" if fastest == float("inf") else f"at up to {fastest:.0f} characters/s"
        out[pid] = (
            f"{len(rows)} typed answer(s) ({_where(rows)}) appeared {speed} (threshold "
            f"{ev.cfg.max_typing_chars_per_second:g}/s): {REVIEW}"
        )
    return out


def pasted_share_by_system(typed: pd.DataFrame) -> pd.DataFrame:
    """Live chats: per system, the participants' messages with counts, the characters pasted and their share."""
    cols = ["system", "messages", "pasted_messages", "chars", "pasted_chars", "pasted_share"]
    chat = typed[typed["source"] == "chat"] if len(typed) else typed
    if not len(chat):
        return pd.DataFrame(columns=cols)
    chars = pd.to_numeric(chat["chars"]).fillna(0)
    pasted = pd.concat([pd.to_numeric(chat["pasted_chars"]).fillna(0), chars], axis=1).min(axis=1)
    d = pd.DataFrame({"system": chat["system"], "chars": chars, "pasted_chars": pasted, "pasted": pasted > 0})
    per = d.groupby("system", sort=True).agg(
        messages=("chars", "size"),
        pasted_messages=("pasted", "sum"),
        chars=("chars", "sum"),
        pasted_chars=("pasted_chars", "sum"),
    )
    per["pasted_share"] = (per["pasted_chars"] / per["chars"].where(per["chars"] > 0)).fillna(0.0)
    out = per.reset_index()
    return out.astype({"messages": int, "pasted_messages": int, "chars": int, "pasted_chars": int})[cols]
