"""Honest pairwise votes for the vote-integrity tests (tests/results/ranking, tests/results/dashboard)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def honest(n: int = 240, seed: int = 1) -> pd.DataFrame:
    """A beats B beats C, each pair on its own situation, every vote read for 20 s."""
    rng = np.random.default_rng(seed)
    strength = {"A": 1.0, "B": 0.0, "C": -1.0}
    pairs = [("A", "B"), ("A", "C"), ("B", "C")]
    rows = []
    for i in range(n):
        a, b = pairs[i % 3]
        p = 1 / (1 + np.exp(strength[b] - strength[a]))
        rows.append(
            {
                "participant": f"p{i % 20}",
                "situation_id": f"s{i}",
                "criterion": "",
                "system_a": a,
                "system_b": b,
                "shown_left": a,
                "winner": a if rng.random() < p else b,
                "seconds": 20.0,
                "step_index": i // 20,
            }
        )
    return pd.DataFrame(rows)
