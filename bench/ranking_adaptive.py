"""Acceptance: adaptive pair scheduling settles the ranking with >= 25% fewer votes than balanced.

    python bench/ranking_adaptive.py [--studies 20] [--first-seed 0] [--target 0.6] [--n-boot 1000]

Each simulated study (six planted strengths with Davidson ties, as in the coverage
benchmark) is run twice from the same seed, once per schedule, by
`simulations.schedule.sequential_study`: participants arrive one at a time and
get `--per-participant` pairs from one `pair_schedule.choose_pairs` call, with the pairs of
the `--in-flight` participants still working passed as pending, as the app assigns them.
After every 3 finished participants the participant-cluster bootstrap `analyze` reports
(`--n-boot` replicates, percentile intervals) gives the 95% interval of each difference
between adjacent ranks; a study needs the votes at which the widest of those is <= --target.

Prints per study the votes of each schedule, then `ratio=` total adaptive / total balanced
votes and `median_ratio=` the median of the per-study ratios (target <= 0.75 for both).
The figures depend only on the seeds: rerun with another --first-seed for an independent
set of studies.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simulations.schedule import sequential_study


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--target", type=float, default=0.6)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--per-participant", type=int, default=9, help="pairs per participant (10 situations, one a check)")
    ap.add_argument("--in-flight", type=int, default=3, help="participants working while the next one arrives")
    args = ap.parse_args()
    t0 = time.perf_counter()
    votes = {"balanced": [], "adaptive": []}
    opts = dict(width="bootstrap", n_boot=args.n_boot, per_participant=args.per_participant, in_flight=args.in_flight)
    for seed in range(args.first_seed, args.first_seed + args.studies):
        for mode in votes:
            votes[mode].append(sequential_study(mode, args.target, seed, **opts))
        b, a = votes["balanced"][-1], votes["adaptive"][-1]
        print(f"study={seed} balanced_votes={b} adaptive_votes={a} ratio={a / b:.3f}", flush=True)
    b, a = np.array(votes["balanced"]), np.array(votes["adaptive"])
    print(
        f"total balanced_votes={b.sum()} adaptive_votes={a.sum()} ratio={a.sum() / b.sum():.3f} "
        f"median_ratio={np.median(a / b):.3f} (target <= 0.75)"
    )
    print(f"seconds={time.perf_counter() - t0:.1f}")


if __name__ == "__main__":
    main()
