"""Cost of the vote-integrity checks (issue 27: ≤ 20% added to `analyze`), on CRS-Arena-sized data and 100k votes.

    python bench/vote_integrity.py [--n-boot 200] [--sizes 185,100000]

Votes from simulations/votes.py (six planted systems, every vote on its own situation, 10 s each).
Per size: `analyze` with the time and anomaly checks off is the baseline; then the per-vote checks alone
(`flag_votes`), `analyze` with every check (the anomaly score included) on the clean table, and on the
same table with 2% planted repeats and fast votes (flagged, then refitted without them); and the leaderboard
ledger alone (one grouping of the votes, with versions and times as a study's votes carry them; `analyze` computes
it on every ranking, so the baseline includes it and its share of the baseline is what it adds). Printed as ratios
to the baseline of the same run.
100k votes skip the fragility search (`prepared=True`) to stay within minutes: the baseline is then
smaller, so the ratio is an upper bound of the share the checks add.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.ranking.analysis import analyze_votes
from infact.results.ranking.integrity import flag_votes
from infact.results.ranking.ledger import ledger
from infact.results.tables.comparisons import prepare_pairwise
from simulations.votes import PLANTED, PLANTED_NU, simulate_votes


def timed(f, *args, **kw):
    t = time.perf_counter()
    out = f(*args, **kw)
    return time.perf_counter() - t, out


def cpu(f) -> float:
    t = time.process_time()
    f()
    return time.process_time() - t


def one(n: int, n_boot: int) -> str:
    votes = simulate_votes(PLANTED, PLANTED_NU, n, max(20, n // 50), seed=1)
    votes["situation_id"] = [f"s{k}" for k in range(n)]
    # as a study's votes carry them: when each was given, and each system's version (one changes half-way)
    votes["answered_at"] = pd.date_range("2026-01-01", periods=n, freq="s", tz="UTC").strftime("%Y-%m-%dT%H:%M:%S")
    for side in ("a", "b"):
        half = np.arange(n) >= n // 2
        votes[f"version_{side}"] = "responses-" + votes[f"system_{side}"].astype(str) + np.where(half, "-2", "-1")
    rng = np.random.default_rng(2)
    k = max(2, n // 100)
    again = votes.iloc[rng.choice(n, k, replace=False)]  # the same participant, pair and situation again
    fast = votes.iloc[rng.choice(n, k, replace=False)].assign(seconds=1.0)
    fast = fast.assign(situation_id=fast["situation_id"] + "-fast")
    dirty = prepare_pairwise(pd.concat([votes, again, fast], ignore_index=True))
    clean = prepare_pairwise(votes)
    opts = dict(n_boot=n_boot, prepared=n > 10_000)
    off = dict(min_seconds=None, anomaly_quantile=None)  # the baseline: only the (cheap) repeat check runs
    base, _ = timed(analyze_votes, clean, **opts, **off)
    checks, flags = timed(flag_votes, dirty)
    default, res = timed(analyze_votes, clean, **opts)
    chance = res["integrity"]["n_flagged"]  # honest participants flagged by chance (about 1% at 0.99)
    flagged, _ = timed(analyze_votes, dirty, **opts)
    systems = sorted(set(clean["system_a"]) | set(clean["system_b"]))
    book = cpu(lambda: ledger(clean, systems=systems[:-1], design="balanced"))  # one system "removed"
    # analyze with and without the ledger in CPU seconds, warm and alternated (best of 2): the wall time of
    # one call on a shared machine is mostly waiting for a core
    with_it, bare = [], []
    for _ in range(2):
        with_it.append(cpu(lambda: analyze_votes(clean, **opts, **off)))
        with patch("infact.results.ranking.ledger.ledger", lambda *a, **k: None):
            bare.append(cpu(lambda: analyze_votes(clean, **opts, **off)))
    base_cpu, bare_cpu = min(with_it), min(bare)
    return (
        f"{n} | {base:.2f} | {checks / base:.3f} | {default / base:.2f} ({chance} flagged by chance) | "
        f"{flagged / base:.2f} | {len(flags)} | {book * 1000:.1f} ms CPU = {book / base_cpu:.3f} | "
        f"{base_cpu:.2f} / {bare_cpu:.2f} s CPU = {base_cpu / bare_cpu:.3f}"
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n-boot", type=int, default=200)
    p.add_argument("--sizes", default="185,100000")
    args = p.parse_args()
    print(
        "votes | analyze, checks off (s) | vote checks alone / it | analyze, all checks, clean table / it | "
        "analyze, 2% planted (refit) / it | planted votes flagged | ledger alone (in the baseline) / it, CPU | "
        "baseline / analyze without the ledger, CPU"
    )
    for n in (int(x) for x in args.sizes.split(",")):
        print(one(n, args.n_boot), flush=True)


if __name__ == "__main__":
    main()
