"""Benchmark: Davidson–Bradley–Terry ranking + 1,000 cluster-bootstrap replicates on 100,000 votes among 20 systems.

    python bench/ranking.py [--votes 100000] [--systems 20] [--participants 2000] [--n-boot 1000] [--repeat 3]

Times `ranking.rank_systems` (design from the vote codes, the point fit, 1,000 participant
bootstrap replicates and the table) and, in the same run, a single fit of the same votes
(`single_fit_seconds`). `seconds` is the best of `--repeat` runs; `ratio` = seconds / single
fit, i.e. what 1,000 replicates cost in single fits (a refit loop would be ~1,000). Target:
seconds <= 2. FastChat's Elo/BT bootstrap took ~15 minutes before its rewrite, ~10 s after.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.analysis import best_of
from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as ranking
from simulations.votes import simulate_votes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--votes", type=int, default=100_000)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--participants", type=int, default=2000)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    theta = np.linspace(-1.5, 1.5, args.systems)
    names = [f"S{i:02d}" for i in range(args.systems)]
    votes = simulate_votes(theta, 0.5, args.votes, args.participants, seed=0, names=names)
    t = time.perf_counter()
    d = pt.votes_design(votes)
    table_seconds = time.perf_counter() - t
    single = best_of(lambda: ranking.fit(d), args.repeat)
    seconds = best_of(lambda: ranking.rank_systems(d, n_boot=args.n_boot, seed=0), args.repeat)
    res = ranking.rank_systems(d, n_boot=args.n_boot, seed=0)
    est = np.array([{r["system"]: r["strength"] for r in res["ranking"]}[n] for n in names])
    print(f"votes={args.votes} systems={args.systems} participants={args.participants} n_boot={args.n_boot}")
    print(f"seconds={seconds:.3f} (target <= 2; ranking + {args.n_boot} bootstrap replicates)")
    print(f"single_fit_seconds={single:.4f} ratio={seconds / single:.1f} (vs {args.n_boot} refits in a loop)")
    print(f"votes_table_to_design_seconds={table_seconds:.3f}")
    print(
        f"max_abs_error_vs_truth={np.abs(est - (theta - theta.mean())).max():.3f} "
        f"tie_parameter={res['tie_parameter']:.3f} (true 0.5)"
    )


if __name__ == "__main__":
    main()
