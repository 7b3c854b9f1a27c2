"""A between-subjects study's condition choice at consent, with many participants stored.

Stores N participants of a two-condition study (arrival, assignment, most completed, some open, a few abandoned,
records only: no answers needed for the count), then times choosing one newcomer's condition the way a consent does
(`ConditionLoad.counts` after the change feed, infact/participation/conditions.py) against the baseline of counting
from every record (`condition_counts`), in the same run. Prints name=value lines.

    python bench/condition_choice.py [--participants 10000]
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import UTC, datetime, timedelta

from infact.participation.conditions import ConditionLoad, condition_counts
from infact.storage import MemoryStorage

STUDY = "bench-conditions"
NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)


def fill(storage: MemoryStorage, n: int) -> None:
    for i in range(n):
        token, at = f"p{i:06d}", NOW - timedelta(minutes=(n - i) % 600)
        base = {"study": STUDY, "participant": token, "preview": False, "condition": "ab"[i % 2]}
        storage.append({**base, "key": f"{STUDY}/{token}/arrival", "kind": "arrival", "at": at.isoformat()})
        lease = (at + timedelta(minutes=60)).isoformat()
        storage.append({**base, "key": f"{STUDY}/{token}/assignment", "kind": "assignment", "lease_until": lease})
        if i % 10:  # nine in ten completed
            storage.append({**base, "key": f"{STUDY}/{token}/complete", "kind": "complete", "outcome": "completed"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    storage = MemoryStorage()
    fill(storage, args.participants)
    load = ConditionLoad(storage, STUDY)
    load.counts(("a", "b"), 60, NOW)  # the process's first read (the server warms it once)
    kept, full = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        load.counts(("a", "b"), 60, NOW)
        kept.append(time.perf_counter() - t)
        t = time.perf_counter()
        condition_counts(storage.records(study=STUDY), STUDY, ("a", "b"), 60, NOW)
        full.append(time.perf_counter() - t)
    print(f"participants={args.participants}")
    print(f"consent_choice_ms={statistics.median(kept) * 1000:.2f}")
    print(f"baseline_from_all_records_ms={statistics.median(full) * 1000:.2f}")
    print(f"ratio_vs_baseline={statistics.median(kept) / statistics.median(full):.4f}")


if __name__ == "__main__":
    main()
