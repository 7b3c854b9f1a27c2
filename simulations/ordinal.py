"""Ordinal ratings from a known cumulative-logit model with crossed random intercepts (infact/stats/clmm.py's
model), for the ordinal model's R fixture (tests/fixtures/clmm/make_data.py) and its benchmark (bench/clmm.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def simulate_ordinal(
    systems: dict[str, float],
    n_participants: int,
    n_situations: int,
    per_participant: int | None,
    sd_participant: float,
    sd_situation: float,
    thresholds,
    seed: int,
) -> pd.DataFrame:
    """participant, situation_id, system, rating (1..K) with
    P(rating <= j) = logistic(θ_j − (β_system + b_participant + b_situation)).

    Each participant rates every system on `per_participant` situations drawn without replacement (2 to 8
    when None: an unbalanced design)."""
    rng = np.random.default_rng(seed)
    b_p = rng.normal(0, sd_participant, n_participants)
    b_s = rng.normal(0, sd_situation, n_situations)
    rows = []
    for p in range(n_participants):
        k = per_participant if per_participant else int(rng.integers(2, 9))
        for s in rng.choice(n_situations, size=k, replace=False):
            for name, beta in systems.items():
                latent = beta + b_p[p] + b_s[s] + rng.logistic()
                rows.append((f"p{p:03d}", f"s{s:03d}", name, 1 + int(np.searchsorted(thresholds, latent))))
    return pd.DataFrame(rows, columns=["participant", "situation_id", "system", "rating"])
