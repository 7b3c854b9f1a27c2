"""Dashboard data at scale: first numbers, a live refresh, and how both grow with the store.

    python bench/dashboard.py [--participants 2000] [--small 20] [--rounds 20]
    python bench/dashboard.py --backend postgresql [--db URL]   # default URL: $INFACT_TEST_PG_URL

A copy of the demo study with 19 situations per participant (3 systems, so 57
ratings each: 2,000 participants, a tenth unfinished, ≈100,000 ratings) is filled with copies of a
realistic crowd of bot participants (infact.participation.bots, mixed strategies, a
tenth of them still in progress). TinyDB: written straight into the store's shard files
and the summary files `append` keeps beside them (set-up only; appending 100k records
one by one would take minutes); PostgreSQL: batched inserts into a table of its own,
dropped at the end. Then, from a store object that has read nothing, as the dashboard
does it (infact.results.quality.funnel, infact.stores.feed.RecordFeed, infact.results.dashboard.data):

- first_numbers_s: the funnel's stage figures (visited … withdrawn), what the page shows
  first, from the participant summaries (infact.stores.summary: TinyDB's summary files,
  PostgreSQL's light query); all_records_read_s: until every record is read and the same
  figures come from the records (checked equal); all_figures_s adds the quality
  assessment (included/excluded, the participant overview), shown right after;
- refresh_ms: 10 new records are appended through the store (not timed), then one
  live refresh is timed: poll the store for changes, update the tables, recompute
  figures and overview. Median of --rounds rounds;
- growth_100k_vs_1k: refresh_ms with the full store / refresh_ms with --small
  participants (~1,000 ratings), measured in the same run.

Targets (issue 11): first_numbers_s <= 1, refresh_ms <= 200, growth_100k_vs_1k <= 3.
The same three as CPU time of this process (`*_cpu_*`) are printed too: on a machine
shared with other work, wall time includes waiting for a core (`load_average=`).
first_numbers_vs_all_records is the ratio of the first figures to reading every record,
measured in the same run. Informational: ratings=, records=, first_numbers_1k_s=,
refresh_1k_ms=, results_s= (the full tables behind the charts, statistics and exports;
rebuilt at most every 30 s on the page, never on the 5-second refresh).
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
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import infact.kinds  # noqa: E402, F401  (registers the built-in kinds)
from infact.participation.bots import run_bots  # noqa: E402
from infact.results.dashboard.data import DashboardData  # noqa: E402
from infact.results.quality import funnel  # noqa: E402
from infact.storage import MemoryStorage, TinyDBStorage  # noqa: E402
from infact.stores.feed import RecordFeed  # noqa: E402
from infact.stores.sql.store import SQLStorage  # noqa: E402
from infact.stores.tinydb.summaries import SummaryFiles, signature  # noqa: E402
from infact.study.loader import load_study  # noqa: E402

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PER_PARTICIPANT = 19


def make_study(folder: Path):
    shutil.copytree(REPO / "data" / "demo", folder)
    toml = folder / "study.toml"
    text = re.sub(
        r"(?m)^situations_per_participant = \d+",
        f"situations_per_participant = {PER_PARTICIPANT}",
        toml.read_text(encoding="utf-8"),
    )
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


def crowd_records(crowd: list[list[dict]], n: int, rng: random.Random) -> tuple[list[list[dict]], int]:
    """n participants' record lists cloned from the crowd (a tenth still in progress), and their ratings."""
    people, ratings = [], 0
    for i in range(n):
        recs = crowd[i % len(crowd)]
        cut = rng.randint(3, len(recs) - 2) if i % 10 == 9 else None  # a tenth still in progress
        mine = clone(recs, f"p{i:06d}x{rng.randrange(16**6):06x}", timedelta(seconds=20 * i), cut)
        ratings += sum(
            len(r["responses"]) * len(r["responses"][0]["ratings"]) for r in mine if r["kind"] == "situation"
        )
        people.append(mine)
    return people, ratings


def fill_tinydb(path: Path, people: list[list[dict]]):
    """Write the participants' shard files directly (TinyDB's on-disk format) and their summary
    files, as TinyDBStorage.append leaves them (appending 100k records one by one takes minutes)."""
    shards = path / "shards"
    shards.mkdir(parents=True)
    summaries = SummaryFiles(path / "summaries")
    for mine in people:
        token = mine[0]["participant"]
        table = {str(k): r for k, r in enumerate(mine, start=1)}
        shard = shards / f"{token}.json"
        shard.write_text(json.dumps({"_default": table}), encoding="utf-8")
        summaries.write(token, signature(shard.stat()), mine)
    return TinyDBStorage(path)


def fill_sql(url: str, people: list[list[dict]], table: str):
    store = SQLStorage(url, table=table)
    store.append_many([r for mine in people for r in mine], batch=2000)
    return store


def first_numbers(study, store) -> tuple[float, float, float, float, RecordFeed]:
    """From a store object that has read nothing: wall and CPU seconds to the funnel's stage
    figures as the page shows them first (from the participant summaries); seconds until every
    record is read (the same figures from the records, checked equal); and until the overview
    with every quality decision is ready."""
    t0, c0 = time.perf_counter(), time.process_time()
    progress, visits = funnel.from_store(store, study.id)
    first = funnel.stage_counts(progress, START, visits)
    first_s, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    data = DashboardData(study)
    feed = RecordFeed(store, data)
    feed.poll()
    assert data.stage_counts(START) == first, (data.stage_counts(START), first)
    read_s = time.perf_counter() - t0
    data.counts(START)
    data.overview(START)
    return first_s, first_cpu, read_s, time.perf_counter() - t0, feed


def refresh_ms(feed: RecordFeed, crowd: list[list[dict]], rounds: int, rng: random.Random) -> tuple[float, float]:
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


def open_store(args, tmp: Path, people: list[list[dict]], name: str):
    """A store holding `people`, opened afresh (as a newly started server would)."""
    if args.backend == "tinydb":
        return fill_tinydb(tmp / name, people)
    url = args.db or os.environ.get("INFACT_TEST_PG_URL")
    if not url:
        raise SystemExit(
            "--backend postgresql needs --db URL (or INFACT_TEST_PG_URL: "
            'eval "$(bash scripts/pg_test_server.sh start)")'
        )
    table = f"bench_dashboard_{name}_{os.getpid()}"
    fill_sql(url, people, table).close()
    return SQLStorage(url, table=table, drop_on_close=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--participants", type=int, default=2000, help="participants in the large store (default 2000)")
    ap.add_argument(
        "--small", type=int, default=20, help="participants in the small store (default 20, ~1,000 ratings)"
    )
    ap.add_argument("--rounds", type=int, default=20, help="timed refreshes per store (default 20)")
    ap.add_argument(
        "--backend", choices=["tinydb", "postgresql"], default="tinydb", help="store to measure (default tinydb)"
    )
    ap.add_argument(
        "--db",
        help="PostgreSQL URL for --backend postgresql (default: $INFACT_TEST_PG_URL); "
        "the benchmark writes its own tables and drops them",
    )
    args = ap.parse_args()
    rng = random.Random(5)
    with tempfile.TemporaryDirectory(prefix="infact-bench-dashboard-") as tmp:
        tmp = Path(tmp)
        study = make_study(tmp / "study")
        crowd = templates(study)
        small_people, small_ratings = crowd_records(crowd, args.small, rng)
        large_people, large_ratings = crowd_records(crowd, args.participants, rng)
        small, large = open_store(args, tmp, small_people, "small"), open_store(args, tmp, large_people, "large")
        try:
            first_small, _, _, _, feed_small = first_numbers(study, small)
            first_large, first_large_cpu, read_large, ready_large, feed_large = first_numbers(study, large)
            refresh_small, refresh_small_cpu = refresh_ms(feed_small, crowd, args.rounds, rng)
            refresh_large, refresh_large_cpu = refresh_ms(feed_large, crowd, args.rounds, rng)
            t0 = time.perf_counter()
            feed_large.consumer.study_results(force=True)[0].tables  # noqa: B018  (built here, timed)
            results_s = time.perf_counter() - t0
            records = len(feed_large.consumer.records())
        finally:
            small.close()
            large.close()
    print(f"backend={args.backend}")
    print(f"first_numbers_s={first_large:.3f}")
    print(f"refresh_ms={refresh_large:.1f}")
    print(f"growth_100k_vs_1k={refresh_large / refresh_small:.2f}")
    print(f"participants={args.participants}")
    print(f"ratings={large_ratings}")
    print(f"records={records}")
    print(f"small_ratings={small_ratings}")
    print(f"first_numbers_cpu_s={first_large_cpu:.3f}")
    print(f"refresh_cpu_ms={refresh_large_cpu:.1f}")
    print(f"growth_cpu_100k_vs_1k={refresh_large_cpu / refresh_small_cpu:.2f}")
    print(f"all_records_read_s={read_large:.3f}")
    print(f"first_numbers_vs_all_records={first_large / read_large:.3f}")
    print(f"all_figures_s={ready_large:.3f}")
    print(f"first_numbers_1k_s={first_small:.3f}")
    print(f"refresh_1k_ms={refresh_small:.1f}")
    print(f"load_average={os.getloadavg()[0]:.1f}")
    print(f"results_s={results_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
