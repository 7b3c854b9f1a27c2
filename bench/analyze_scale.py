"""Benchmark: the whole `infact analyze pairwise.csv --json` at arena scale, as process CPU and peak memory.

    python bench/analyze_scale.py [--votes 100000] [--systems 20] [--participants 2000] [--large]

Writes simulated votes (Davidson ties, ν = 0.5, evenly spaced strengths, balanced pairs) to a temporary
pairwise.csv and runs `python -m infact analyze FILE --json` in a child process (fit, 2,000 participant-
bootstrap replicates, win rates, sign tests, balance, fragility of the top and of every adjacent order by
votes and by participants). CPU is the child's user + system time (`resource.getrusage(RUSAGE_CHILDREN)`),
which other processes' load inflates far less than wall time; `peak_rss_mb` its largest resident size.

The baseline is measured in the same run the same way: a child that reads the same CSV with pandas and
writes it back as JSON (`baseline_cpu_s`: what any Python tool spends to touch the data);
`ratio_vs_baseline` = analyze CPU / baseline CPU. `--integrity-off` also runs the same `analyze` with the
vote-integrity checks replaced by nothing (`no_integrity_cpu_s`, `integrity_added`: issue 27's ≤ 20%).
Targets: `cpu_s <= 5` at 100k votes × 20 systems × 2,000 participants; with `--large` also 1,000,000 votes ×
50 systems × 20,000 participants, `large_cpu_s <= 60` and `large_peak_rss_mb <= 4096` (a few minutes of wall
time on a loaded machine).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from simulations.votes import simulate_votes  # noqa: E402

BASELINE = "import sys, pandas as pd; pd.read_csv(sys.argv[1]).to_json(sys.argv[2])"
# The same `analyze` with the vote-integrity checks replaced by nothing: what they add (issue 27: ≤ 20%)
NO_INTEGRITY = (
    "import runpy, sys; from infact.results.ranking import integrity; "
    "integrity.integrity = lambda *a, **k: {}; sys.argv = ['infact', 'analyze', sys.argv[1], '--json']; "
    "runpy.run_module('infact', run_name='__main__')"
)


def child(argv: list[str]) -> dict:
    """Run a child process; its CPU seconds (user + system), peak RSS (MB) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} … failed:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "rss_mb": after.ru_maxrss / 1024, "wall": wall, "out": proc.stdout}


def measure(label: str, votes: int, systems: int, participants: int, seed: int, integrity_off: bool = False) -> None:
    df = simulate_votes(
        np.linspace(1.0, -1.0, systems) * (1.5 if systems > 20 else 1.0), 0.5, votes, participants, seed
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairwise.csv"
        df.to_csv(path, index=False)
        base = child([sys.executable, "-c", BASELINE, str(path), str(Path(tmp) / "copy.json")])
        run = child([sys.executable, "-m", "infact", "analyze", str(path), "--json"])
        off = child([sys.executable, "-c", NO_INTEGRITY, str(path)]) if integrity_off else None
    res = json.loads(run["out"])
    top = res["fragility"]["top"]
    adjacent = res["fragility"]["adjacent"]
    print(f"{label}votes={votes} systems={systems} participants={participants} ties={res['n_ties']}")
    print(f"{label}cpu_s={run['cpu']:.2f} wall_s={run['wall']:.1f} peak_rss_mb={run['rss_mb']:.0f}")
    print(f"{label}baseline_cpu_s={base['cpu']:.2f} ratio_vs_baseline={run['cpu'] / base['cpu']:.1f}")
    checks = res["integrity"]
    print(
        f"{label}integrity_flagged={checks['n_flagged']} anomaly_skipped={checks['anomaly_skipped'] is not None} "
        f"refitted={checks['without_flagged'] is not None}"
    )
    if off is not None:
        print(f"{label}no_integrity_cpu_s={off['cpu']:.2f} integrity_added={run['cpu'] / off['cpu'] - 1:.1%}")
    print(
        f"{label}top_votes={top['n_votes']} top_participants={top['n_participants']} "
        f"search={top['method']['votes']['search']}/{top['method']['participants']['search']} "
        f"ruled_out_up_to={top['method']['votes']['ruled_out_up_to']}/{top['method']['participants']['ruled_out_up_to']}"
    )
    print(f"{label}adjacent_votes_total={sum(a['n_votes'] or 0 for a in adjacent)} questions={len(adjacent) + 1}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--votes", type=int, default=100_000)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--participants", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--large", action="store_true", help="also 1M votes × 50 systems × 20,000 participants")
    ap.add_argument(
        "--integrity-off",
        action="store_true",
        help="also run the same analyze with the vote-integrity checks replaced by nothing (what they add)",
    )
    args = ap.parse_args()
    print(f"load_average={os.getloadavg()[0]:.1f} (2 cores)")
    measure("", args.votes, args.systems, args.participants, args.seed, args.integrity_off)
    if args.large:
        measure("large_", 1_000_000, 50, 20_000, args.seed + 1)


if __name__ == "__main__":
    main()
