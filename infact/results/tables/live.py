"""Live chats in the exports: transcripts.jsonl, arena votes in pairwise.csv, the rubric in ratings.csv.

Called by infact.results.export for studies with `[live.systems]`; the records
given are already filtered like every other table (no previews; withdrawn
participants only on request).
"""

from __future__ import annotations

import json

import pandas as pd

from infact.chat.transcripts import pairwise_rows, rubric_rows, transcripts
from infact.participation.steps.pairwise import PAIRWISE

# The pairwise table's columns a live arena vote fills (no situation step, no source dialog, no study column).
PAIRWISE_COLUMNS = [c for c in PAIRWISE.names if c not in ("step_index", "dialog_id", "study", "condition")]
LIVE_VOTES = PAIRWISE.file  # the one file of every vote, a protocol's and the arena's


def add_live(t, records: list[dict], excluded: set[str]) -> None:
    """Fill the live parts of an export `Tables` (t.transcripts, t.votes; rubric rows into t.ratings). One
    pairwise.csv holds both kinds of vote: a protocol's votes, if any, come first."""
    t.live = True
    t.transcripts = transcripts(records)
    bots = {r["participant"] for r in records if r.get("bot")}  # `infact bots`: marked in every table
    columns = [c for c in PAIRWISE_COLUMNS if c not in ("excluded", "bot")]
    votes = pd.DataFrame(pairwise_rows(records), columns=columns)
    votes = votes.assign(excluded=votes["participant"].isin(excluded), bot=votes["participant"].isin(bots))
    protocol = t.by_kind.pop(PAIRWISE.name, None)
    t.votes = pd.concat([protocol, votes], ignore_index=True) if protocol is not None else votes
    rubric = pd.DataFrame(rubric_rows(records))
    if len(rubric):
        rubric = rubric.assign(excluded=rubric["participant"].isin(excluded), bot=rubric["participant"].isin(bots))
        rubric = rubric.reindex(columns=list(t.ratings.columns))  # `condition` is filled after (study_results)
        t.ratings = pd.concat([t.ratings, rubric], ignore_index=True) if len(t.ratings) else rubric


def transcripts_bytes(t) -> bytes:
    """transcripts.jsonl: one conversation per line."""
    return "".join(json.dumps(c, ensure_ascii=False, allow_nan=False) + "\n" for c in t.transcripts).encode("utf-8")
