"""pairwise.csv and best_worst.csv from stored comparison answers — the one writer of both.

Columns as the kinds declare them (`PAIRWISE`, `BEST_WORST` in infact/participation/steps/pairwise.py, best_worst.py):
the first ones as issue 13 specifies, then what analysis can use (style covariates, the step and dialog),
the live arena's own columns (empty on a protocol's votes) and `excluded`, added by the export.
"""

from __future__ import annotations

import pandas as pd

from infact.participation.steps.best_worst import BEST_WORST
from infact.participation.steps.pairwise import PAIRWISE

SCHEMAS = {"pairwise": PAIRWISE, "best_worst": BEST_WORST}


def vote_frame(table: str, rows: list[dict]) -> pd.DataFrame:
    """pairwise.csv or best_worst.csv from the kinds' rows (pairwise_dialog votes go to pairwise.csv too,
    with situation_id = dialog_id), in the declared columns, sorted by participant and step."""
    names = [c for c in SCHEMAS[table].names if c not in ("excluded", "bot")]
    df = pd.DataFrame(rows, columns=names)
    return df.sort_values(["participant", "step_index", "criterion"], kind="stable").reset_index(drop=True)
