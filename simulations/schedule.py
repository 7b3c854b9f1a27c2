"""Simulated studies that schedule their pairs as the app does, for the adaptive-scheduling acceptance.

A participant is the unit the app assigns and the bootstrap resamples: at consent they get
`per_participant` pairs from one `pair_schedule.choose_pairs` call (as
infact/participation/protocols.py does), with the pairs of the `in_flight` participants still
working passed as `pending`; their votes arrive when they finish. Outcomes follow the Davidson
model with planted strengths (simulations/votes.py). Both schedules see the same
seeds, arrivals, vote draws per participant and width definition.
"""

from __future__ import annotations

import random
from collections import deque

import numpy as np
import pandas as pd

from infact.results.tables import comparisons as pt
from infact.scheduling import pairs as pair_schedule
from infact.stats import bradley_terry as ranking
from infact.stats import sandwich as ranking_robust
from simulations.votes import PLANTED, PLANTED_NU, draw_outcomes

# Only a check whose model (Fisher) width is within this factor of the target runs the
# bootstrap: far from the target the answer is known, and the bootstrap is the slow part.
BOOTSTRAP_GATE = 1.2


def adjacent_widths(d: ranking.Design, n_boot: int = 0, seed: int = 0) -> dict[str, float]:
    """Widest 95% interval of the differences between adjacent ranks, by definition:
    `model` (Fisher information at the estimate), `robust` (the participant-cluster sandwich,
    the closed form of what the bootstrap estimates) and, when n_boot > 0, `bootstrap` (the
    participant-cluster percentile interval `analyze` reports, `n_boot` replicates)."""
    x = ranking.quick_fit(d)
    k = len(d.systems)
    contrasts = pair_schedule.adjacent_contrasts(x[:k])
    out = {
        name: 2 * 1.96 * float(np.sqrt(np.einsum("ak,kl,al->a", contrasts, cov, contrasts).max()))
        for name, cov in zip(("model", "robust"), ranking_robust.covariances(d, x))
    }
    if n_boot:
        diffs = ranking.bootstrap(d, n_boot, seed, x)[:, :k] @ contrasts.T
        lo, hi = np.percentile(diffs, [2.5, 97.5], axis=0)
        out["bootstrap"] = float((hi - lo).max())
    return out


def sequential_study(
    mode: str,
    target_width: float,
    seed: int = 0,
    *,
    strengths=PLANTED,
    nu: float = PLANTED_NU,
    per_participant: int = 9,
    in_flight: int = 3,
    check_every: int = 3,
    max_votes: int = 8000,
    width: str = "model",
    n_boot: int = 1000,
) -> int:
    """Votes a study needs until the 95% interval of every difference between adjacent ranks
    (what decides whether the ranking is settled) is at most `target_width` wide.

    Checked after every `check_every` finished participants. `width`: `model`, `robust` or
    `bootstrap` (`adjacent_widths`). Returns `max_votes` if not reached.
    """
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    theta = np.asarray(strengths, dtype=float)
    names = [f"S{i + 1}" for i in range(len(theta))]
    idx = {s: i for i, s in enumerate(names)}
    votes: list[tuple[str, str, str]] = []
    who: list[str] = []
    working: deque[tuple[str, list[tuple[str, str]]]] = deque()
    arrived = finished = 0
    while len(votes) < max_votes:
        pending = [p for _, pairs in working for p in pairs]
        pairs = pair_schedule.choose_pairs(
            names, [(*v, p) for v, p in zip(votes, who)], per_participant, mode=mode, rng=rng, pending=pending
        )
        rng.shuffle(pairs)
        working.append((f"p{arrived:05d}", pairs))
        arrived += 1
        if len(working) <= in_flight:
            continue
        pid, done = working.popleft()
        for left, right in done:
            o = draw_outcomes(np.array([theta[idx[left]] - theta[idx[right]]]), nu, nrng)[0]
            votes.append((left, right, left if o == 0 else right if o == 1 else "tie"))
            who.append(pid)
        finished += 1
        if finished % check_every:
            continue
        d = pt.votes_design(
            pd.DataFrame(
                {
                    "participant": who,
                    "system_a": [v[0] for v in votes],
                    "system_b": [v[1] for v in votes],
                    "winner": [v[2] for v in votes],
                }
            )
        )
        widths = adjacent_widths(d)
        if width == "bootstrap":
            if widths["model"] > BOOTSTRAP_GATE * target_width:
                continue
            widths = adjacent_widths(d, n_boot, seed)
        if widths[width] <= target_width:
            return len(votes)
    return max_votes
