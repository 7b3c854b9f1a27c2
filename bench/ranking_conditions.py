"""Acceptance: how often does the condition × system test call equal conditions different (its false-positive rate)?

    python bench/ranking_conditions.py [--studies 400] [--participants 10,30] [--votes 12] [--taste 0.3]

Simulates `--studies` between-subjects studies per size with two conditions that are the same: four systems of
planted Davidson strengths (ties ν = 0.6), each participant's own taste added to them (normal, SD `--taste`: a
participant's votes are then not independent, which the participant-cluster covariance must allow for), `--votes`
balanced pairs per participant and `--participants` participants per condition. Each study is tested by
infact/results/ranking/conditions.py (`interaction_test`) and counted as a false positive when p < 0.05. Prints, per
size, `false_positive_rate=` with its 95% Wilson interval (target: 0.05 inside it, or the rate below 0.05) and
`untestable=` (studies where a system never won or lost in a condition), then `seconds=`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.ranking.conditions import interaction_test
from infact.results.tables import comparisons as pt
from infact.stats.binomial import wilson_interval
from simulations.votes import balanced_pairs, draw_outcomes

STRENGTHS = np.array([0.6, 0.2, -0.2, -0.6])
NU = 0.6
NAMES = ["S1", "S2", "S3", "S4"]


def one_condition(n_participants: int, votes: int, taste: float, rng: np.random.Generator) -> pd.DataFrame:
    """A condition's votes: each participant's strengths are the planted ones plus their own taste."""
    frames = []
    names = np.asarray(NAMES, dtype=object)
    for p in range(n_participants):
        theta = STRENGTHS + rng.normal(0.0, taste, len(STRENGTHS))
        a, b = balanced_pairs(len(theta), votes, rng)
        outcome = draw_outcomes(theta[a] - theta[b], NU, rng)
        winner = np.where(outcome == 0, names[a], np.where(outcome == 1, names[b], "tie"))
        frames.append(
            pd.DataFrame({"participant": f"p{p}", "system_a": names[a], "system_b": names[b], "winner": winner})
        )
    return pd.concat(frames, ignore_index=True)


def false_positives(studies: int, n_participants: int, votes: int, taste: float, seed: int) -> tuple[int, int, int]:
    """(p < 0.05, tested, untestable) over `studies` studies of two equal conditions."""
    rng = np.random.default_rng(seed)
    hits = tested = untestable = 0
    for _ in range(studies):
        designs = {c: pt.votes_design(one_condition(n_participants, votes, taste, rng)) for c in ("a", "b")}
        test = interaction_test(designs)["interaction_test"]
        if "p" not in test:
            untestable += 1
            continue
        tested += 1
        hits += test["p"] < 0.05
    return hits, tested, untestable


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=400)
    ap.add_argument("--participants", default="10,30", help="participants per condition, comma-separated sizes")
    ap.add_argument("--votes", type=int, default=12, help="votes per participant")
    ap.add_argument("--taste", type=float, default=0.3, help="SD of a participant's own strengths around the planted")
    args = ap.parse_args()
    t0 = time.perf_counter()
    for size in (int(s) for s in args.participants.split(",")):
        hits, tested, untestable = false_positives(args.studies, size, args.votes, args.taste, seed=size)
        lo, hi = wilson_interval(np.array([hits]), np.array([tested]))
        print(
            f"participants_per_condition={size} votes_per_participant={args.votes} taste_sd={args.taste} "
            f"studies={tested} false_positive_rate={hits / tested:.3f} ci95=[{lo[0]:.3f}, {hi[0]:.3f}] "
            f"untestable={untestable}"
        )
    print(f"seconds={time.perf_counter() - t0:.1f}")


if __name__ == "__main__":
    main()
