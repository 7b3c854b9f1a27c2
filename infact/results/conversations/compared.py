"""annotations.csv as the quality checks and the simulated participants' comparison read it: the
annotations kind's `per_step` and `prepare` hooks (infact/results/hookspecs.py, registered in
infact/results/builtin_kinds.py).
"""

from __future__ import annotations

import pandas as pd

from infact.results.tables.picks import SITUATION_COLUMNS
from infact.values import bool_column, parse_bool


def annotated_steps(df: pd.DataFrame) -> pd.DataFrame:
    """One row per participant × annotated (non-gold) conversation of annotations.csv: one system, so no
    straight-lining across systems, but `straight` when every turn was given the same values; its seconds
    count for the speed checks."""
    d = df[~df["is_gold"].map(lambda v: parse_bool(v) is True)] if "is_gold" in df else df
    keys = ["participant", "step_index"]
    per = d.groupby(keys, sort=False)["seconds"].first().reset_index()
    turns = d[d["level"].astype(str) == "turn"] if "level" in d else d.iloc[0:0]
    if len(turns):
        by_aspect = turns.groupby(keys + ["aspect"], sort=False).agg(
            values=("value", "nunique"), turns=("turn", "nunique")
        )
        uniform = by_aspect.groupby(level=[0, 1]).agg(
            same=("values", lambda v: bool((v == 1).all())), turns=("turns", "min")
        )
        straight = uniform["same"] & (uniform["turns"] >= 2)
        per["straight"] = [bool(straight.get((p, i), False)) for p, i in zip(per["participant"], per["step_index"])]
    else:
        per["straight"] = False
    return per.assign(n_systems=1, choice=None, unit="conversation")[SITUATION_COLUMNS]


def as_ratings(notes: pd.DataFrame, include_flagged: bool, cfg) -> list[tuple[pd.DataFrame, int]]:
    """One ratings-shaped table per aspect of the study (`cfg.aspects`) with answers, with its scale's number
    of points: situation_id = conversation#turn (or #dialogue), the value shifted onto 1..k."""
    df = notes[~bool_column(notes["is_gold"])] if "is_gold" in notes.columns else notes
    if "excluded" in df.columns and not include_flagged:
        df = df[~bool_column(df["excluded"])]
    out = []
    for aspect in cfg.aspects:
        rows = df[df["aspect"].astype(str) == aspect.id]
        if not len(rows):
            continue
        turn = rows["turn"].map(lambda t: "dialogue" if pd.isna(t) else str(int(t)))
        prepared = pd.DataFrame(
            {
                "participant": rows["participant"].astype(str),
                "situation_id": rows["conversation_id"].astype(str) + "#" + turn,
                "system": rows["system"].astype(str),
                "criterion": aspect.id,
                "rating": pd.to_numeric(rows["value"]) + 1 - aspect.first,
            }
        )
        out.append((prepared, len(aspect.labels)))
    return out
