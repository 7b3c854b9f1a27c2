"""Ratings drawn from a known model, for the analysis tests and benchmarks (as ranking_sim.py is
for votes). Every simulation is seeded, so a test or benchmark that uses one is repeatable.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def simulate_ratings(
    n_participants: int = 60,
    n_situations: int = 10,
    means=(2.0, 3.0, 3.5),
    *,
    sd_participant: float = 0.4,
    sd_situation: float = 0.3,
    sd_noise: float = 0.6,
    position_effect=None,
    scale_points: int = 5,
    seed: int = 0,
) -> pd.DataFrame:
    """Fully crossed ratings with planted system means, used to validate and benchmark.

    rating = round(mean[system] + u_participant + u_situation + position_effect[pos] + noise),
    clipped to 1..scale_points; systems appear in a random order per situation.
    """
    rng = np.random.default_rng(seed)
    k = len(means)
    p, s, y = (
        a.ravel() for a in np.meshgrid(np.arange(n_participants), np.arange(n_situations), np.arange(k), indexing="ij")
    )
    pos = rng.permuted(np.tile(np.arange(k), (n_participants * n_situations, 1)), axis=1).ravel()
    latent = (
        np.asarray(means, dtype=float)[y]
        + rng.normal(0, sd_participant, n_participants)[p]
        + rng.normal(0, sd_situation, n_situations)[s]
        + rng.normal(0, sd_noise, p.size)
    )
    if position_effect is not None:
        latent += np.asarray(position_effect, dtype=float)[pos]
    return pd.DataFrame(
        {
            "participant": np.char.add("p", p.astype(str)),
            "situation_id": np.char.add("s", s.astype(str)),
            "system": np.char.add("sys", y.astype(str)),
            "rating": np.clip(np.rint(latent), 1, scale_points).astype(int),
            "position": pos + 1,
        }
    )
