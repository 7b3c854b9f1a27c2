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


def simulate_votes(
    strengths, nu: float, n_votes: int, n_participants: int, seed: int = 0, names: list[str] | None = None
) -> pd.DataFrame:
    """A pairwise.csv-shaped table of balanced votes from `n_participants` (votes dealt round-robin)."""
    rng = np.random.default_rng(seed)
    theta = np.asarray(strengths, dtype=float)
    names = names or [f"S{i + 1}" for i in range(len(theta))]
    a, b = balanced_pairs(len(theta), n_votes, rng)
    outcome = draw_outcomes(theta[a] - theta[b], nu, rng)
    names_arr = np.asarray(names, dtype=object)
    winner = np.where(outcome == 0, names_arr[a], np.where(outcome == 1, names_arr[b], "tie"))
    return pd.DataFrame(
        {
            "participant": [f"p{k:04d}" for k in rng.permutation(np.arange(n_votes) % n_participants)],
            "situation_id": [f"s{k % 50:02d}" for k in range(n_votes)],
            "criterion": "meaningful",
            "system_a": names_arr[a],
            "system_b": names_arr[b],
            "shown_left": np.where(rng.random(n_votes) < 0.5, names_arr[a], names_arr[b]),
            "winner": winner,
            "seconds": 10.0,
            "justification": "",
        }
    )


PLANTED = np.array([1.2, 0.7, 0.3, 0.0, -0.6, -1.6])  # six systems, spaced unevenly; centred below
PLANTED = PLANTED - PLANTED.mean()
PLANTED_NU = 0.6


def simulate_style_votes(
    strengths, nu: float, length_effect: float, n_votes: int, n_participants: int, long_system: int, seed: int = 0
) -> pd.DataFrame:
    """Votes whose raters also prefer longer responses: d = θ_a − θ_b + γ (ℓ_a − ℓ_b)/(ℓ_a + ℓ_b).

    System `long_system` writes about three times longer responses than the others; item
    counts are drawn independently of everything (they should get a coefficient near 0).
    """
    df = simulate_votes(strengths, 0.0, n_votes, n_participants, seed)  # pairs and participants only
    rng = np.random.default_rng(seed + 1)
    names = [f"S{i + 1}" for i in range(len(strengths))]
    idx = {s: i for i, s in enumerate(names)}
    a, b = df["system_a"].map(idx).to_numpy(), df["system_b"].map(idx).to_numpy()
    mean_len = np.where(np.arange(len(strengths)) == long_system, 60.0, 20.0)
    la, lb = (rng.poisson(mean_len[s]) + 1 for s in (a, b))
    theta = np.asarray(strengths, dtype=float)
    outcome = draw_outcomes(theta[a] - theta[b] + length_effect * (la - lb) / (la + lb), nu, rng)
    names_arr = np.asarray(names, dtype=object)
    return df.assign(
        winner=np.where(outcome == 0, names_arr[a], np.where(outcome == 1, names_arr[b], "tie")),
        length_a=la,
        length_b=lb,
        items_a=rng.integers(0, 3, len(df)),
        items_b=rng.integers(0, 3, len(df)),
    )


def judge_world(
    n_situations: int = 60,
    means=(2.0, 2.6, 3.0, 3.4, 4.0),
    sd_item: float = 0.6,
    raters_per_situation: int = 5,
    sd_noise: float = 0.7,
    seed: int = 0,
) -> dict:
    """Humans rating items (situation × system) of known quality, and the items' lengths.

    quality = mean[system] + N(0, sd_item); each rater's rating = round(quality + N(0, sd_noise))
    clipped to 1..5; length (words) is independent of quality, so humans show no length taste.
    Returns {"ratings", "truth" (situation_id, system, quality), "features" (…, length, items)}.
    """
    rng = np.random.default_rng(seed)
    systems = [f"sys{i}" for i in range(len(means))]
    s, y = (a.ravel() for a in np.meshgrid(np.arange(n_situations), np.arange(len(means)), indexing="ij"))
    quality = np.asarray(means, dtype=float)[y] + rng.normal(0, sd_item, s.size)
    truth = pd.DataFrame(
        {"situation_id": [f"s{i:03d}" for i in s], "system": np.asarray(systems)[y], "quality": quality}
    )
    rows = []
    for r in range(raters_per_situation):
        # a different crowd for every situation, like a balanced assignment
        rating = np.clip(np.rint(quality + rng.normal(0, sd_noise, s.size)), 1, 5).astype(int)
        rows.append(truth.assign(participant=[f"p{i:03d}-{r}" for i in s], rating=rating))
    ratings = pd.concat(rows, ignore_index=True)[["participant", "situation_id", "system", "rating"]]
    features = truth[["situation_id", "system"]].assign(
        length=rng.integers(5, 80, s.size), items=rng.integers(0, 3, s.size)
    )
    return {"ratings": ratings, "truth": truth, "features": features}


def pairwise_judge(truth: pd.DataFrame, prefer, seed: int = 0) -> pd.DataFrame:
    """A pairwise judge file judging every pair of every situation in both orders.

    prefer(situation_rows_a, situation_rows_b) → True when the judge picks the first-shown (a)."""
    rows = []
    for sid, g in truth.groupby("situation_id"):
        items = list(g.itertuples(index=False))
        for x in items:
            for y in items:
                if x.system != y.system:
                    rows.append(
                        {
                            "situation_id": sid,
                            "system_a": x.system,
                            "system_b": y.system,
                            "winner": x.system if prefer(x, y) else y.system,
                        }
                    )
    return pd.DataFrame(rows)
