"""Live chats in the exports: transcripts.jsonl, arena votes in pairwise.csv, the rubric in ratings.csv.

Called by infact.results.tables.export for studies with `[live.systems]`; the records
given are already filtered like every other table (no previews; withdrawn
participants only on request).
"""

from __future__ import annotations

import json

import pandas as pd

from infact.chat.transcripts import pairwise_rows, rubric_rows, transcripts

PAIRWISE_COLUMNS = [
    "participant",
    "situation_id",
    "criterion",
    "system_a",
    "system_b",
    "shown_left",
    "winner",
    "seconds",
    "justification",
    "length_a",
    "length_b",
    "items_a",
    "items_b",
    "identity_leak",
    "system_skipped",
    "conversation_a",
    "conversation_b",
    "excluded",
]


def add_live(t, records: list[dict], excluded: set[str]) -> None:
    """Fill the live parts of an export `Tables` (t.transcripts, t.votes; rubric rows into t.ratings)."""
    t.live = True
    t.transcripts = transcripts(records)
    votes = pd.DataFrame(pairwise_rows(records), columns=PAIRWISE_COLUMNS[:-1])
    t.votes = votes.assign(excluded=votes["participant"].isin(excluded))
    rubric = pd.DataFrame(rubric_rows(records))
    if len(rubric):
        rubric = rubric.assign(excluded=rubric["participant"].isin(excluded))
        rubric = rubric[list(t.ratings.columns)]
        t.ratings = pd.concat([t.ratings, rubric], ignore_index=True) if len(t.ratings) else rubric


def live_bytes(t) -> dict[str, bytes]:
    text = "".join(json.dumps(c, ensure_ascii=False, allow_nan=False) + "\n" for c in t.transcripts)
    return {"transcripts.jsonl": text.encode("utf-8"), "pairwise.csv": t.votes.to_csv(index=False).encode("utf-8")}
