"""Which display position a comparison's participant picked: the per-step rows the quality checks read.

pairwise.csv and best_worst.csv each say, per vote, which system won; the position and straight-lining
flags (infact/results/quality/flags.py) need *where it was shown*: pairwise "left" / "right" / "tie"
(or "both_bad"), best–worst "best N" (the N-th shown picked as best). One row per participant × step,
the same on every criterion or `MIXED`. These are the pairwise and best–worst kinds' `per_step` hooks
(infact/results/hookspecs.py, registered in builtin_kinds.py); `flags.comparison_choice` reads one
stored record by the same rules, so the live dashboard and the export agree.
"""

from __future__ import annotations

import pandas as pd

# What a kind's `per_step` gives, one row per participant × step (see flags.py for each column's use):
# `choice` is None for rated steps, else the position picked; `unit` is "situation" (rated), "comparison"
# (pairwise / best–worst) or "conversation" (annotated).
SITUATION_COLUMNS = ["participant", "step_index", "n_systems", "straight", "seconds", "choice", "unit"]
MIXED = "mixed"
SEP = "|"  # best_worst.csv's `systems`: the names shown, in display order


def pairwise_position(left: str, winner: str) -> str:
    return winner if winner in ("tie", "both_bad") else "left" if winner == left else "right"


def best_position(shown: list[str], best: str) -> str:
    return f"best {shown.index(best) + 1}" if best in shown else MIXED


def same_pick(picks: list[str]) -> str:
    return picks[0] if len(set(picks)) == 1 else MIXED


def pairwise_steps(votes: pd.DataFrame) -> pd.DataFrame | None:
    """pairwise.csv's steps: the side of each vote's winner (None for a table without steps)."""
    if "step_index" not in votes:
        return None
    picked = [pairwise_position(left, winner) for left, winner in zip(votes["shown_left"], votes["winner"])]
    return _compared_steps(votes, picked, 2)


def best_worst_steps(choices: pd.DataFrame) -> pd.DataFrame | None:
    """best_worst.csv's steps: the position of each choice's best (None for a table without steps)."""
    if "step_index" not in choices:
        return None
    shown = choices["systems"].astype(str).str.split(SEP)
    picked = [best_position(s, b) for s, b in zip(shown, choices["best"])]
    return _compared_steps(choices, picked, shown.map(len))


def _compared_steps(df: pd.DataFrame, picked: list[str], n_systems) -> pd.DataFrame:
    rows = pd.DataFrame(
        {
            "participant": df["participant"],
            "step_index": df["step_index"],
            "n_systems": n_systems,
            "seconds": df["seconds"] if "seconds" in df else None,
            "picked": picked,
        }
    )
    keys = ["participant", "step_index"]
    per = rows.groupby(keys, sort=False).agg(
        n_systems=("n_systems", "first"), seconds=("seconds", "first"), choice=("picked", lambda v: same_pick(list(v)))
    )
    return per.reset_index().assign(straight=False, unit="comparison")
