"""Benchmark: every statistic except the mixed model on 100,000 ratings.

    python bench/analysis.py [--participants 2000] [--repeat 3]

Synthesises 2,000 participants x 10 situations x 5 systems (with display positions),
times `analyze(..., mixed_model=False)` with the default 2,000 bootstrap replicates and
compares it with a plain pandas groupby mean of the same frame, measured in the same run.
The first call includes importing scipy/statsmodels/krippendorff (`cold_seconds`);
`seconds` is the best of the following runs. Target: seconds <= 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.ratings.analysis import analyze
from simulations.ratings import simulate_ratings


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--participants", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    df = simulate_ratings(args.participants, 10, (2.5, 3.0, 3.2, 3.5, 4.0), seed=0)

    t = time.perf_counter()
    result = analyze(df, mixed_model=False)
    cold = time.perf_counter() - t
    seconds = best_of(lambda: analyze(df, mixed_model=False), args.repeat)
    baseline = best_of(lambda: df.groupby("system")["rating"].mean(), max(args.repeat, 5))

    print(f"ratings={len(df)}")
    print(f"participants={result['n_participants']}")
    print(f"bootstrap_replicates={result['bootstrap']['n_boot']}")
    print(f"cold_seconds={cold:.3f}")
    print(f"seconds={seconds:.3f}")
    print(f"baseline_seconds={baseline:.4f}")
    print(f"ratio_vs_baseline={seconds / baseline:.0f}")


if __name__ == "__main__":
    main()
