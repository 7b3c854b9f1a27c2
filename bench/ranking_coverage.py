"""Acceptance: do the 95% participant-bootstrap intervals cover the true strengths 93–97% of the time?

    python bench/ranking_coverage.py [--studies 200] [--votes 2000] [--participants 100] [--n-boot 1000]

Simulates `--studies` independent studies of six systems with planted Davidson strengths and
ties (simulations.votes.PLANTED, ν = PLANTED_NU), ranks each with the cluster bootstrap
and counts how often each system's ci95 contains its true (centred) strength. Prints
`coverage=` (target 0.93–0.97), the tie parameter's coverage, the share of studies whose
point order matches the truth's exactly, and `seconds=` per study.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.tables import comparisons as pt
from infact.stats import bradley_terry as ranking
from simulations.votes import PLANTED, PLANTED_NU, simulate_votes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--votes", type=int, default=2000)
    ap.add_argument("--participants", type=int, default=100)
    ap.add_argument("--n-boot", type=int, default=1000)
    args = ap.parse_args()
    names = [f"S{i + 1}" for i in range(len(PLANTED))]
    truth = dict(zip(names, PLANTED))
    covered = total = nu_covered = exact_order = 0
    widths = []
    t0 = time.perf_counter()
    for study in range(args.studies):
        votes = simulate_votes(PLANTED, PLANTED_NU, args.votes, args.participants, seed=1000 + study, names=names)
        res = ranking.rank_systems(pt.votes_design(votes), n_boot=args.n_boot, seed=study)
        for row in res["ranking"]:
            lo, hi = row["ci95"]
            covered += lo <= truth[row["system"]] <= hi
            total += 1
            widths.append(hi - lo)
        lo, hi = res["tie_parameter_ci95"]
        nu_covered += lo <= PLANTED_NU <= hi
        exact_order += [r["system"] for r in res["ranking"]] == names
    seconds = (time.perf_counter() - t0) / args.studies
    print(f"studies={args.studies} votes={args.votes} participants={args.participants} n_boot={args.n_boot}")
    print(f"coverage={covered / total:.3f} (target 0.93-0.97; {covered}/{total} intervals)")
    print(f"tie_parameter_coverage={nu_covered / args.studies:.3f}")
    print(f"mean_ci_width={np.mean(widths):.3f} exact_order_share={exact_order / args.studies:.3f}")
    print(f"seconds={seconds:.3f} per study")


if __name__ == "__main__":
    main()
