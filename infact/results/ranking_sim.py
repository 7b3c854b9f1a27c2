"""Votes drawn from a known Davidson model, for the acceptance tests and the benchmarks.

Every simulation is seeded, so a test or benchmark that uses one is repeatable.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def davidson_probs(d: np.ndarray, nu: float) -> np.ndarray:
    """(…, 3) probabilities [a wins, b wins, tie] for strength differences d = θ_a − θ_b (+ style)."""
    ea, eb = np.exp(d / 2), np.exp(-d / 2)
    den = ea + eb + nu
    return np.stack([ea / den, eb / den, np.full_like(d, nu) / den], axis=-1)


def draw_outcomes(d: np.ndarray, nu: float, rng: np.random.Generator) -> np.ndarray:
    """0 = a wins, 1 = b wins, 2 = tie, one per difference."""
    p = davidson_probs(np.asarray(d, dtype=float), nu)
    u = rng.random(len(d))
    return (u > p[:, 0]).astype(int) + (u > p[:, 0] + p[:, 1]).astype(int)


def balanced_pairs(n_systems: int, n_votes: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Every unordered pair equally often (± 1), sides shuffled."""
    i, j = np.triu_indices(n_systems, 1)
    reps = -(-n_votes // len(i))
    idx = rng.permutation(np.tile(np.arange(len(i)), reps))[:n_votes]
    flip = rng.random(n_votes) < 0.5
    return np.where(flip, j[idx], i[idx]), np.where(flip, i[idx], j[idx])


def simulate_votes(strengths, nu: float, n_votes: int, n_participants: int, seed: int = 0,
                   names: list[str] | None = None) -> pd.DataFrame:
    """A pairwise.csv-shaped table of balanced votes from `n_participants` (votes dealt round-robin)."""
    rng = np.random.default_rng(seed)
    theta = np.asarray(strengths, dtype=float)
    names = names or [f"S{i + 1}" for i in range(len(theta))]
    a, b = balanced_pairs(len(theta), n_votes, rng)
    outcome = draw_outcomes(theta[a] - theta[b], nu, rng)
    names_arr = np.asarray(names, dtype=object)
    winner = np.where(outcome == 0, names_arr[a], np.where(outcome == 1, names_arr[b], "tie"))
    return pd.DataFrame({
        "participant": [f"p{k:04d}" for k in rng.permutation(np.arange(n_votes) % n_participants)],
        "situation_id": [f"s{k % 50:02d}" for k in range(n_votes)],
        "criterion": "meaningful", "system_a": names_arr[a], "system_b": names_arr[b],
        "shown_left": np.where(rng.random(n_votes) < 0.5, names_arr[a], names_arr[b]),
        "winner": winner, "seconds": 10.0, "justification": "",
    })


PLANTED = np.array([1.2, 0.7, 0.3, 0.0, -0.6, -1.6])  # six systems, spaced unevenly; centred below
PLANTED = PLANTED - PLANTED.mean()
PLANTED_NU = 0.6
