"""Dashboard data at scale: first numbers, a live refresh, and how both grow with the store.

    python bench/dashboard.py [--participants 2000] [--small 20] [--rounds 20]

A copy of the demo study with 19 situations per participant (3 systems, so 57
ratings each: 2,000 participants, a tenth unfinished, ≈100,000 ratings) is filled with copies of a
realistic crowd of bot participants (infact.participation.bots, mixed strategies, a
tenth of them still in progress), written straight into a TinyDB store's shard files
(set-up only; appending 100k records one by one would take minutes). Then, as the
dashboard does it (infact.stores.live.LiveFeed + infact.results.dashboard_data):

- first_numbers_s: a fresh store object and a fresh DashboardData read every record
  and produce the funnel's stage figures (visited … withdrawn) — what the page shows
  first; all_figures_s adds the quality assessment (included/excluded, the participant
  overview), shown right after;
- refresh_ms: 10 new records are appended through the store (not timed), then one
  live refresh is timed: poll the store for changes, update the tables, recompute
  figures and overview. Median of --rounds rounds;
- growth_100k_vs_1k: refresh_ms with the full store / refresh_ms with --small
  participants (~1,000 ratings), measured in the same run.

Targets (issue 11): first_numbers_s <= 1, refresh_ms <= 200, growth_100k_vs_1k <= 3.
The same three as CPU time of this process (`*_cpu_*`) are printed too: on a machine
shared with other work, wall time includes waiting for a core (`load_average=`).
Informational: ratings=, records=, first_numbers_1k_s=, refresh_1k_ms=, results_s=
(the full tables behind the charts, statistics and exports; rebuilt at most every
30 s on the page, never on the 5-second refresh).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from infact.participation.bots import run_bots  # noqa: E402
from infact.results.dashboard_data import DashboardData  # noqa: E402
from infact.storage import MemoryStorage, TinyDBStorage  # noqa: E402
from infact.stores.live import LiveFeed  # noqa: E402
from infact.study.loader import load_study  # noqa: E402

START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
PER_PARTICIPANT = 19


def make_study(folder: Path):
    shutil.copytree(REPO / "data" / "demo", folder)
    toml = folder / "study.toml"
    text = re.sub(r"(?m)^situations_per_participant = \d+", f"situations_per_participant = {PER_PARTICIPANT}",
                  toml.read_text(encoding="utf-8"))
    toml.write_text(text, encoding="utf-8")
    return load_study(folder)


def templates(study, n: int = 24) -> list[list[dict]]:
    """Record lists of a mixed crowd of bots, one list per participant."""
    store = MemoryStorage()
    run_bots(study, store, n, seed=11, start=START)
    by: dict[str, list[dict]] = {}
    for rec in store.records():
        by.setdefault(rec["participant"], []).append(rec)
    return list(by.values())


def clone(recs: list[dict], token: str, shift: timedelta, cut: int | None = None) -> list[dict]:
    """One template participant's records under a new token, `shift` later; `cut` keeps the first records only."""
    old = recs[0]["participant"]
    out = []
    for rec in recs[:cut]:
        text = json.dumps(rec).replace(old, token)
        new = json.loads(text)
        for key in ("at", "shown_at", "answered_at", "started_at", "ended_at", "lease_until"):
            if isinstance(new.get(key), str):
                new[key] = (datetime.fromisoformat(new[key]) + shift).isoformat(timespec="milliseconds")
        out.append(new)
    return out


def fill(path: Path, crowd: list[list[dict]], n: int, rng: random.Random) -> int:
    """Write n participants' shard files directly (TinyDB's on-disk format); returns ratings."""
    shards = path / "shards"
    shards.mkdir(parents=True)
    ratings = 0
    for i in range(n):
        recs = crowd[i % len(crowd)]
        cut = rng.randint(3, len(recs) - 2) if i % 10 == 9 else None  # a tenth still in progress
        token = f"p{i:06d}x{rng.randrange(16**6):06x}"
        mine = clone(recs, token, timedelta(seconds=20 * i), cut)
        ratings += sum(len(r["responses"]) * len(r["responses"][0]["ratings"]) for r in mine if r["kind"] == "situation")
        table = {str(k): r for k, r in enumerate(mine, start=1)}
        (shards / f"{token}.json").write_text(json.dumps({"_default": table}), encoding="utf-8")
    return ratings


def first_numbers(study, path: Path) -> tuple[float, float, float, LiveFeed]:
    """Wall and CPU seconds from a cold store object to the first funnel figures (stages),
    and wall seconds until the overview with every quality decision is ready."""
    t0, c0 = time.perf_counter(), time.process_time()
    data = DashboardData(study)
    feed = LiveFeed(TinyDBStorage(path), data)
    feed.poll()
    data.stage_counts(START)
    first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    data.counts(START)
    data.overview(START)
    return first, first_cpu, time.perf_counter() - t0, feed


def refresh_ms(feed: LiveFeed, crowd: list[list[dict]], rounds: int, rng: random.Random) -> tuple[float, float]:
    """Median wall and CPU milliseconds of one live refresh after 10 new records."""
    times, cpu = [], []
    for r in range(rounds):
        recs = clone(crowd[r % len(crowd)], f"new{r:04d}x{rng.randrange(16**6):06x}", timedelta(hours=1))[:10]
        for rec in recs:
            feed.storage.append(rec)
        t0, c0 = time.perf_counter(), time.process_time()
        took = feed.poll()
        feed.consumer.counts(START)
        feed.consumer.overview(START)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        assert took == len(recs), (took, len(recs))
    return statistics.median(times), statistics.median(cpu)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--participants", type=int, default=2000, help="participants in the large store (default 2000)")
    ap.add_argument("--small", type=int, default=20, help="participants in the small store (default 20, ~1,000 ratings)")
    ap.add_argument("--rounds", type=int, default=20, help="timed refreshes per store (default 20)")
    args = ap.parse_args()
    rng = random.Random(5)
    with tempfile.TemporaryDirectory(prefix="infact-bench-dashboard-") as tmp:
        tmp = Path(tmp)
        study = make_study(tmp / "study")
        crowd = templates(study)
        small_ratings = fill(tmp / "small", crowd, args.small, rng)
        large_ratings = fill(tmp / "large", crowd, args.participants, rng)
        first_small, _, _, feed_small = first_numbers(study, tmp / "small")
        first_large, first_large_cpu, ready_large, feed_large = first_numbers(study, tmp / "large")
        refresh_small, refresh_small_cpu = refresh_ms(feed_small, crowd, args.rounds, rng)
        refresh_large, refresh_large_cpu = refresh_ms(feed_large, crowd, args.rounds, rng)
        t0 = time.perf_counter()
        feed_large.consumer.results(force=True)
        results_s = time.perf_counter() - t0
        print(f"first_numbers_s={first_large:.3f}")
        print(f"refresh_ms={refresh_large:.1f}")
        print(f"growth_100k_vs_1k={refresh_large / refresh_small:.2f}")
        print(f"participants={args.participants}")
        print(f"ratings={large_ratings}")
        print(f"records={len(feed_large.consumer.records())}")
        print(f"small_ratings={small_ratings}")
        print(f"first_numbers_cpu_s={first_large_cpu:.3f}")
        print(f"refresh_cpu_ms={refresh_large_cpu:.1f}")
        print(f"growth_cpu_100k_vs_1k={refresh_large_cpu / refresh_small_cpu:.2f}")
        print(f"all_figures_s={ready_large:.3f}")
        print(f"first_numbers_1k_s={first_small:.3f}")
        print(f"refresh_1k_ms={refresh_small:.1f}")
        print(f"load_average={os.getloadavg()[0]:.1f}")
        print(f"results_s={results_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
