"""Benchmark: `analyze` with fragility on CRS-Arena-sized data (185 votes, 9 systems, 72 ties), and on a large study.

    python bench/fragility.py [--repeat 3]

`analyze_seconds` times `python -m infact analyze pairwise.csv --json` in-process (reading the
CSV, the Davidson fit, 2,000 participant-bootstrap replicates, win rates, sign tests and the
fragility of the top and of all 8 adjacent orders, by votes and by participants). Target ≤ 5 s.
`ratio_vs_ranking_only` divides by the same analysis without fragility in the same run.
`large_*` does the same on 20,000 votes among 12 systems from 1,000 participants.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.analysis import best_of
from infact.cli.main import main as cli
from infact.results.ranking import analysis, fragility
from simulations.votes import simulate_votes

# Nine close systems (CRS Arena's were within ~100 Elo) and ν giving ~39% ties (72 of 185).
CRS_ARENA_THETA = np.array([0.55, 0.45, 0.3, 0.2, 0.05, -0.1, -0.25, -0.5, -0.7])


def crs_arena_like(seed: int = 0):
    """185 votes with exactly 72 ties: the first seed whose draw has 72."""
    for s in range(seed, seed + 500):
        v = simulate_votes(CRS_ARENA_THETA, 1.25, 185, 140, seed=s)
        if (v["winner"] == "tie").sum() == 72:
            return v
    raise RuntimeError("no seed gave 72 ties")


def run_cli(path: Path) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli(["analyze", str(path), "--json"]) == 0


def measure(label: str, votes, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairwise.csv"
        votes.to_csv(path, index=False)
        seconds = best_of(lambda: run_cli(path), repeat)
        cpu = time.process_time()
        run_cli(path)
        cpu = time.process_time() - cpu  # CPU time: less inflated than wall time on a shared, loaded machine
    plain = best_of(lambda: analysis.analyze_votes(votes, prepared=True), repeat)  # no fragility (no lines)
    res = analysis.analyze_votes(votes)
    f = res["fragility"]
    t = f["top"]
    print(
        f"{label}votes={len(votes)} systems={votes['system_a'].nunique() + 0} "
        f"ties={int((votes['winner'] == 'tie').sum())} participants={votes['participant'].nunique()}"
    )
    print(f"{label}analyze_seconds={seconds:.3f} (target <= 5) analyze_cpu_seconds={cpu:.3f}")
    print(f"{label}ranking_only_seconds={plain:.3f} ratio_vs_ranking_only={seconds / plain:.2f}")
    print(
        f"{label}top_votes={t['n_votes']} top_participants={t['n_participants']} fragile={t['fragile']} "
        f"search={t['method']['votes']['search']}/{t['method']['participants']['search']}"
    )
    print(
        f"{label}adjacent_votes={[a['n_votes'] for a in f['adjacent']]} "
        f"exact={sum(a['method']['votes']['search'] == 'exact' for a in f['adjacent'])}/{len(f['adjacent'])}"
    )
    print(f"{label}words={fragility.in_words(f)!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import os

    print(f"load_average={os.getloadavg()[0]:.1f} (2 cores; figures scale with it)")
    measure("", crs_arena_like(), args.repeat)
    theta = np.linspace(1.0, -1.0, 12)
    measure("large_", simulate_votes(theta, 0.5, 20_000, 1_000, seed=1), 1)


if __name__ == "__main__":
    main()
