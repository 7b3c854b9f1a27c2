"""Simulation behind `min_votes`: how many decisive votes a system needs before its interval can be trusted.

    python bench/min_votes.py [--studies 150] [--n-boot 300]

Six established systems (the planted strengths of simulations/votes.py, ν = 0.6) get
1,500 balanced votes from 100 participants. A newcomer, with a true strength drawn uniformly
between the weakest and the strongest, then gets n *decisive* votes (plus ties at the model's
rate) against random established opponents, from random participants of the same pool. For each
n the table prints, over `--studies` studies: how often the newcomer's 95% participant-bootstrap
interval covers its true (centred) strength, the median interval width, and how often its rank
is off by two or more places. `min_votes` is the smallest n from which coverage stays at least
0.90 (nominal 0.95) for every larger n: below it, the interval `analyze` prints for the system
is not yet the interval it claims to be. Prints `min_votes=N` last.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as bt
from simulations.votes import PLANTED, PLANTED_NU, draw_outcomes, simulate_votes

GRID = (3, 5, 8, 10, 15, 20, 30, 40, 60)
COVERAGE_FLOOR = 0.90


def newcomer_study(n_decisive: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = simulate_votes(PLANTED, PLANTED_NU, 1500, 100, seed=seed)
    theta_new = rng.uniform(PLANTED.min(), PLANTED.max())
    rows, decisive = [], 0
    while decisive < n_decisive:
        opp = int(rng.integers(0, len(PLANTED)))
        out = draw_outcomes(np.array([theta_new - PLANTED[opp]]), PLANTED_NU, rng)[0]
        decisive += out < 2
        rows.append(
            {
                "participant": f"p{int(rng.integers(0, 100)):04d}",
                "situation_id": "s",
                "criterion": "c",
                "system_a": "NEW",
                "system_b": f"S{opp + 1}",
                "winner": "NEW" if out == 0 else (f"S{opp + 1}" if out == 1 else "tie"),
            }
        )
    votes = pd.concat([base, pd.DataFrame(rows)], ignore_index=True)
    truth = np.r_[theta_new, PLANTED]  # systems sort as NEW, S1..S6
    return votes, truth - truth.mean()


def one(n: int, seed: int, n_boot: int) -> tuple[bool, float, bool]:
    votes, truth = newcomer_study(n, seed)
    d = pt.votes_design(votes)
    res = bt.rank_systems(d, n_boot=n_boot, seed=seed)
    row = next(r for r in res["ranking"] if r["system"] == "NEW")
    lo, hi = row["ci95"]
    true_rank = 1 + int((truth > truth[0]).sum())
    return lo <= truth[0] <= hi, hi - lo, abs(row["rank"] - true_rank) >= 2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=150)
    ap.add_argument("--n-boot", type=int, default=300)
    args = ap.parse_args()
    coverage = {}
    print("decisive_votes coverage median_width rank_off_by_2")
    for n in GRID:
        got = [one(n, 1000 * n + s, args.n_boot) for s in range(args.studies)]
        cov, width, off = (np.mean([g[i] for g in got]) for i in range(3))
        coverage[n] = cov
        print(f"n={n} coverage={cov:.3f} median_width={np.median([g[1] for g in got]):.2f} rank_off_by_2={off:.3f}")
    ok = [n for n in GRID if all(coverage[m] >= COVERAGE_FLOOR for m in GRID if m >= n)]
    print(f"studies={args.studies} n_boot={args.n_boot} coverage_floor={COVERAGE_FLOOR}")
    print(f"min_votes={ok[0] if ok else 'above ' + str(GRID[-1])}")


if __name__ == "__main__":
    main()
