"""Benchmark: latency of saving one answer as the store grows, vs a naive single TinyDB file.

    python bench/storage.py [--samples 50] [--ours-samples 200] [--per-participant 20]

Two stores are pre-filled with 100 and with 20,000 realistic records: the record
shapes a bot participant stores through the real Flow on the demo study (arrival,
shown, consent, assignment, situation records with dialog context and 3 rated
responses, ...), ~20 per participant, so 20,000 records are 1,000 participants.

- ours: `infact.storage.TinyDBStorage` (one small TinyDB file per participant,
  atomic fsynced rewrite, thread + file lock). Pre-filled by writing the shard
  files directly (the format TinyDB reads), then timed `append()` of the next
  record of existing participants (a participant mid-study saves an answer).
- naive: `TinyDB(path)` with its default JSONStorage, every record in one file,
  pre-filled with the same records, then timed `insert()` of the same records.
  Each insert reads and rewrites the whole file, so it is slow: ~50 samples.

Prints, one per line: p95_ms_100=, p95_ms_20k= (ours), naive_p95_ms_100=,
naive_p95_ms_20k=, ratio_vs_naive= (naive 20k / ours 20k; target >= 10) and
growth_20k_vs_100= (ours 20k / ours 100; target <= 2); then informational lines
(median_ms_*, samples). Everything runs in a fresh temp dir that is removed.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tinydb import TinyDB

import infact.kinds  # noqa: F401  (registers the built-in kinds)
from infact.participation.bots import run_bots
from infact.storage import MemoryStorage, TinyDBStorage
from infact.study.loader import load_study

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "data" / "demo"


def template_participant() -> list[dict]:
    """The records one attentive bot stores for the demo study, in order (~29)."""
    store = MemoryStorage()
    run_bots(load_study(DEMO), store, 1, strategy="attentive", seed=1)
    return store.records()


def participant_records(template: list[dict], token: str) -> list[dict]:
    """The template re-keyed for another participant token."""
    old = template[0]["participant"]
    out = []
    for rec in template:
        r = copy.deepcopy(rec)
        r["participant"] = token
        r["key"] = r["key"].replace(f"/{old}/", f"/{token}/")
        out.append(r)
    return out


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def build_dataset(template: list[dict], n_records: int, per: int, n_samples: int):
    """(prefill records grouped per participant, the records to time: the next one of `n_samples` participants)."""
    n_participants = max(1, n_records // per)
    prefill: dict[str, list[dict]] = {}
    upcoming: list[dict] = []
    for i in range(n_participants):
        token = f"bench{i:06d}"
        recs = participant_records(template, token)
        prefill[token] = recs[:per]
        if len(upcoming) < n_samples:
            upcoming.append(recs[per % len(recs)])
    # more samples than participants (the 100-record case): brand-new participants' arrivals
    i = n_participants
    while len(upcoming) < n_samples:
        upcoming.append(participant_records(template, f"bench{i:06d}")[0])
        i += 1
    return prefill, upcoming


def prefill_ours(path: Path, prefill: dict[str, list[dict]]) -> TinyDBStorage:
    store = TinyDBStorage(path)
    for token, recs in prefill.items():
        table = {str(n): r for n, r in enumerate(recs, start=1)}
        (store.shards / f"{token}.json").write_text(
            json.dumps({"_default": table}, separators=(",", ":")), encoding="utf-8"
        )
    return TinyDBStorage(path)  # a fresh instance: nothing cached, as after a server start


def prefill_naive(path: Path, prefill: dict[str, list[dict]]) -> TinyDB:
    flat = [r for recs in prefill.values() for r in recs]
    table = {str(n): r for n, r in enumerate(flat, start=1)}
    path.write_text(json.dumps({"_default": table}), encoding="utf-8")
    return TinyDB(path)


def time_calls(fn, items: list[dict]) -> list[float]:
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000)
    return out


def measure(tmp: Path, template: list[dict], n_records: int, per: int, ours_samples: int, naive_samples: int) -> dict:
    prefill, upcoming = build_dataset(template, n_records, per, max(ours_samples, naive_samples))
    stored = sum(len(v) for v in prefill.values())
    ours = prefill_ours(tmp / f"ours-{n_records}", prefill)
    assert len(ours.records()) == stored
    ours_ms = time_calls(lambda r: ours.append(r) or None, upcoming[:ours_samples])
    assert len(ours.records()) == stored + ours_samples, "an append was lost"

    naive = prefill_naive(tmp / f"naive-{n_records}.json", prefill)
    naive_ms = time_calls(naive.insert, upcoming[:naive_samples])
    assert len(naive) == stored + naive_samples
    naive.close()
    return {"stored": stored, "ours": ours_ms, "naive": naive_ms}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=50, help="naive inserts timed per size (slow at 20k)")
    ap.add_argument("--ours-samples", type=int, default=200, help="TinyDBStorage appends timed per size")
    ap.add_argument("--per-participant", type=int, default=20, help="records per participant shard in the pre-fill")
    args = ap.parse_args()

    template = template_participant()
    with tempfile.TemporaryDirectory(prefix="infact-bench-storage-") as tmp:
        small = measure(Path(tmp), template, 100, args.per_participant, args.ours_samples, args.samples)
        large = measure(Path(tmp), template, 20_000, args.per_participant, args.ours_samples, args.samples)

    ours_100, ours_20k = p95(small["ours"]), p95(large["ours"])
    naive_100, naive_20k = p95(small["naive"]), p95(large["naive"])
    print(f"p95_ms_100={ours_100:.2f}")
    print(f"p95_ms_20k={ours_20k:.2f}")
    print(f"naive_p95_ms_100={naive_100:.2f}")
    print(f"naive_p95_ms_20k={naive_20k:.2f}")
    print(f"ratio_vs_naive={naive_20k / ours_20k:.1f}")
    print(f"growth_20k_vs_100={ours_20k / ours_100:.2f}")
    print(f"median_ms_100={statistics.median(small['ours']):.2f}")
    print(f"median_ms_20k={statistics.median(large['ours']):.2f}")
    print(f"naive_median_ms_20k={statistics.median(large['naive']):.2f}")
    print(
        f"records_prefilled={small['stored']},{large['stored']} per_participant={args.per_participant} "
        f"samples_ours={args.ours_samples} samples_naive={args.samples}"
    )


if __name__ == "__main__":
    main()
