"""Cost of the vote-integrity checks (issue 27: ≤ 20% added to `analyze`), on CRS-Arena-sized data and 100k votes.

    python bench/vote_integrity.py [--n-boot 200] [--sizes 185,100000]

Votes from simulations/votes.py (six planted systems, every vote on its own situation, 10 s each).
Per size: `analyze` with the time and anomaly checks off is the baseline; then the per-vote checks alone
(`flag_votes`), `analyze` with every check (the anomaly score included) on the clean table, and on the
same table with 2% planted repeats and fast votes (flagged, then refitted without them). Printed as
ratios to the baseline of the same run.
100k votes skip the fragility search (`prepared=True`) to stay within minutes: the baseline is then
smaller, so the ratio is an upper bound of the share the checks add.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.ranking.analysis import analyze_votes
from infact.results.ranking.integrity import flag_votes
from infact.results.tables.comparisons import prepare_pairwise
from simulations.votes import PLANTED, PLANTED_NU, simulate_votes


def timed(f, *args, **kw):
    t = time.perf_counter()
    out = f(*args, **kw)
    return time.perf_counter() - t, out


def one(n: int, n_boot: int) -> str:
    votes = simulate_votes(PLANTED, PLANTED_NU, n, max(20, n // 50), seed=1)
    votes["situation_id"] = [f"s{k}" for k in range(n)]
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
    return (
        f"{n} | {base:.2f} | {checks / base:.3f} | {default / base:.2f} ({chance} flagged by chance) | "
        f"{flagged / base:.2f} | {len(flags)}"
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n-boot", type=int, default=200)
    p.add_argument("--sizes", default="185,100000")
    args = p.parse_args()
    print(
        "votes | analyze, checks off (s) | vote checks alone / it | analyze, all checks, clean table / it | "
        "analyze, 2% planted (refit) / it | planted votes flagged"
    )
    for n in (int(x) for x in args.sizes.split(",")):
        print(one(n, args.n_boot), flush=True)


if __name__ == "__main__":
    main()
