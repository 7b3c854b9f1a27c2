"""Acceptance: adaptive pair scheduling settles the ranking with >= 25% fewer votes than balanced.

    python bench/ranking_adaptive.py [--studies 10] [--target 0.6] [--batch 30]

For each simulated study (six planted strengths with Davidson ties, as in the coverage
benchmark) votes arrive in batches whose pairs come from `pair_schedule.choose_pairs`; after
every batch the participant-cluster bootstrap (200 replicates) gives the 95% interval of each
difference between adjacent ranks. Prints the votes each schedule needed until the widest of
those intervals is <= --target, per study and in total, and `ratio=` adaptive / balanced
(target <= 0.75).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.ranking_sim import sequential_study  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=10)
    ap.add_argument("--target", type=float, default=0.6)
    ap.add_argument("--batch", type=int, default=30)
    args = ap.parse_args()
    t0 = time.perf_counter()
    totals = {"balanced": 0, "adaptive": 0}
    for seed in range(args.studies):
        got = {mode: sequential_study(mode, args.target, seed, batch=args.batch, width="bootstrap") for mode in totals}
        for mode, n in got.items():
            totals[mode] += n
        print(f"study={seed} balanced_votes={got['balanced']} adaptive_votes={got['adaptive']} "
              f"ratio={got['adaptive'] / got['balanced']:.3f}", flush=True)
    print(f"total balanced_votes={totals['balanced']} adaptive_votes={totals['adaptive']} "
          f"ratio={totals['adaptive'] / totals['balanced']:.3f} (target <= 0.75)")
    print(f"seconds={time.perf_counter() - t0:.1f}")


if __name__ == "__main__":
    main()
