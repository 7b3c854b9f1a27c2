"""Simulation: what unequal pair sampling does to the intervals, with and without inverse-frequency reweighting.

    python bench/sampling_balance.py [--studies 100] [--n-boot 300]

Six systems; 1,200 votes from 80 participants. Two worlds:

- `bt`: every participant follows one Davidson–Bradley–Terry model (the model is right);
- `mixed`: 70% of participants follow one order and 30% a partly reversed one, so no single
  Bradley–Terry model is true and the fitted strengths depend on which pairs were asked.

Two schedules: `balanced` (every pair equally often) and `skewed` (pairs with the top system S1
drawn 6 times as often, as in the "Leaderboard Illusion" audit's favoured providers). The target
in every case is the Davidson fit to the population's expected votes on a *balanced* schedule.
For the plain fit and the reweighted fit (`--reweight`) the script prints the share of the
95% participant-bootstrap intervals of the six strengths that cover the target
(`coverage_*`), their mean width and the mean absolute error of the top system's strength.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.ranking import balance
from infact.stats import bradley_terry as bt
from simulations.votes import davidson_probs, draw_outcomes

THETA = np.array([0.8, 0.5, 0.2, 0.0, -0.5, -1.0])
REVERSED = np.array([-0.4, 0.6, 0.8, 0.0, -0.2, -0.8])  # the minority's tastes
NU, N_VOTES, N_PEOPLE, MINORITY = 0.5, 1200, 80, 0.3
PAIRS = np.array(np.triu_indices(len(THETA), 1)).T
NAMES = [f"S{i + 1}" for i in range(len(THETA))]


def pair_weights(schedule: str) -> np.ndarray:
    w = np.ones(len(PAIRS))
    if schedule == "skewed":
        w[(PAIRS == 0).any(axis=1)] = 6.0
    return w / w.sum()


def target(world: str) -> np.ndarray:
    """Davidson strengths fitted to the expected outcome shares of a balanced schedule."""
    probs = davidson_probs(THETA[PAIRS[:, 0]] - THETA[PAIRS[:, 1]], NU)
    if world == "mixed":
        alt = davidson_probs(REVERSED[PAIRS[:, 0]] - REVERSED[PAIRS[:, 1]], NU)
        probs = (1 - MINORITY) * probs + MINORITY * alt
    n = len(PAIRS)
    design = bt.design(PAIRS[:, 0], PAIRS[:, 1], np.zeros(n), np.zeros(n), NAMES, ["population"])
    design = replace(design, cluster_counts=sp.csr_matrix((probs * 10_000).reshape(1, -1)), with_ties=True)
    return bt.fit(design)[0][: len(THETA)]


def study(world: str, schedule: str, seed: int) -> bt.Design:
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(PAIRS), N_VOTES, p=pair_weights(schedule))
    a, b = PAIRS[pick, 0], PAIRS[pick, 1]
    person = rng.integers(0, N_PEOPLE, N_VOTES)
    minority = rng.random(N_PEOPLE) < (MINORITY if world == "mixed" else 0.0)
    theta = np.where(minority[person][:, None], REVERSED[None], THETA[None])
    outcome = draw_outcomes(theta[np.arange(N_VOTES), a] - theta[np.arange(N_VOTES), b], NU, rng)
    return bt.design(a, b, outcome, person, NAMES, [f"p{i}" for i in range(N_PEOPLE)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=100)
    ap.add_argument("--n-boot", type=int, default=300)
    args = ap.parse_args()
    for world in ("bt", "mixed"):
        truth = target(world)
        for schedule in ("balanced", "skewed"):
            for fit_name in ("plain", "reweighted"):
                cover, width, err = [], [], []
                for s in range(args.studies):
                    d = study(world, schedule, seed=s)
                    if fit_name == "reweighted":
                        d = balance.reweighted_design(d)
                    res = bt.rank_systems(d, n_boot=args.n_boot, seed=s)
                    rows = {r["system"]: r for r in res["ranking"]}
                    lo = np.array([rows[n]["ci95"][0] for n in NAMES])
                    hi = np.array([rows[n]["ci95"][1] for n in NAMES])
                    cover.append((lo <= truth) & (truth <= hi))
                    width.append(hi - lo)
                    err.append(abs(rows["S1"]["strength"] - truth[0]))
                tag = f"{world}_{schedule}_{fit_name}"
                print(
                    f"coverage_{tag}={np.mean(cover):.3f} mean_width_{tag}={np.mean(width):.3f} "
                    f"top_abs_error_{tag}={np.mean(err):.3f}"
                )
    print(f"studies={args.studies} n_boot={args.n_boot} votes={N_VOTES} participants={N_PEOPLE}")


if __name__ == "__main__":
    main()
