"""pairwise.csv and best_worst.csv from stored comparison answers — the one writer of both.

Columns first as issue 13 specifies (`pairwise_tables.PAIRWISE_COLUMNS`,
`BEST_WORST_COLUMNS`), then what analysis can use: style covariates (response length in
words and item count of both sides), the step and dialog, and `excluded`. Live arena mode
(infact/chat) writes the same leading columns, so `analyze` reads both alike.
"""

from __future__ import annotations

import pandas as pd

from infact.participation.steps.compare import BEST_WORST, LIVE_VOTE_COLUMNS, PAIRWISE
from infact.results.tables import records as tables
from infact.results.tables.comparisons import BEST_WORST_COLUMNS, PAIRWISE_COLUMNS
from infact.study.protocol_config import vote_table

# What the protocol's votes carry after the first columns (the live arena's own columns and the quality
# decision are added by the export).
PAIRWISE_EXTRA = [c for c in PAIRWISE.names[len(PAIRWISE_COLUMNS) :] if c not in (*LIVE_VOTE_COLUMNS, "excluded")]
BEST_WORST_EXTRA = [c for c in BEST_WORST.names[len(BEST_WORST_COLUMNS) :] if c != "excluded"]
FILES = {
    "pairwise.csv": "one row per vote (pairwise protocol: per criterion; live arena: per chat pair): winner a system, "
    "`tie` or `both_bad`, which was shown left, justification",
    "best_worst.csv": "best–worst protocol: one row per choice and criterion "
    "(shown systems joined with `|`, best, worst)",
}


def pairwise_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=PAIRWISE_COLUMNS + PAIRWISE_EXTRA)


def best_worst_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=BEST_WORST_COLUMNS + BEST_WORST_EXTRA)


def compare_tables(
    records: list[dict], kind: str, excluded: set[str], *, include_withdrawn: bool = False
) -> dict[str, pd.DataFrame]:
    """{"pairwise.csv": …} or {"best_worst.csv": …} for a study whose protocol is `kind`; {} for ratings."""
    table = vote_table(kind)  # pairwise_dialog votes go to pairwise.csv too (situation_id = dialog_id)
    if table is None:
        return {}
    frame = pairwise_frame if table == "pairwise" else best_worst_frame
    df = frame(tables.kind_rows(records, kind, include_withdrawn=include_withdrawn))
    df = df.sort_values(["participant", "step_index", "criterion"], kind="stable").reset_index(drop=True)
    return {f"{table}.csv": df.assign(excluded=df["participant"].isin(excluded))}
