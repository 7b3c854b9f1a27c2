"""Balanced assignment across app processes: three processes assigning at once on one
PostgreSQL store, 20 bot participants each, 5 at a time (issue 19, point 15).

Each consent plans its situations under the store-wide lock (a PostgreSQL advisory lock,
`SQLStorage.lock`) after reading every record stored since its process last looked
(`SituationLoad.current` → `changes()`), so a process always sees the other processes'
assignments. What that guarantees is the *load* (ratings + situations reserved by
participants still within their lease) within 1. Ratings alone follow it once every
reservation is answered or has expired: participants who abandon keep theirs until the
lease ends (the probe's max − min = 3 was those, one process shows it as well), and the
next participants fill those situations first.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from infact.participation import assignment
from infact.stores.sql.store import SQLStorage
from infact.study.loader import load_study

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"  # 38 regular situations, 9 per participant
START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)  # in the past: a bot's clock never runs ahead of the wall clock

CHILD = """
import sys, time
from datetime import datetime
from pathlib import Path
import infact.kinds  # the built-in kinds, as every entry point registers them
from infact.participation.bots import run_bots
from infact.stores.sql.store import SQLStorage
from infact.study.loader import load_study
url, schema, seed, n, strategy, start, go = sys.argv[1:8]
study = load_study(sys.argv[8])
store = SQLStorage(url, schema=schema)
while not Path(go).exists():  # every process starts assigning at the same moment
    time.sleep(0.005)
results = run_bots(study, store, int(n), strategy=strategy or None, seed=int(seed), concurrency=5,
                   start=datetime.fromisoformat(start))
store.close()
print(sum(r.completed for r in results), sum(r.outcome is None for r in results))
"""


def three_processes(
    pg_url: str, schema: str, tmp_path: Path, *, n: int, strategy: str, start: datetime, seed: int
) -> list[str]:
    go = tmp_path / f"go-{seed}"
    children = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD,
                pg_url,
                schema,
                str(seed + k),
                str(n),
                strategy,
                start.isoformat(),
                str(go),
                str(DEMO),
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(3)
    ]
    time.sleep(1.0)
    go.touch()
    outputs = []
    for child in children:
        out, err = child.communicate(timeout=600)
        assert child.returncode == 0, err[-3000:]
        outputs.append(out.strip())
    return outputs


def spread(counts) -> int:
    return max(counts) - min(counts)


def ratings(store: SQLStorage) -> Counter:
    return Counter(r["situation_id"] for r in store.records(kind="situation") if not r.get("attention_check"))


@pytest.fixture
def store(pg_url, schema):
    s = SQLStorage(pg_url, schema=schema, drop_on_close=True)
    yield s
    s.close()


@pytest.mark.slow
@pytest.mark.postgres
def test_three_processes_of_attentive_participants_keep_ratings_within_one(store, pg_url, schema, tmp_path):
    study = load_study(DEMO)
    assert three_processes(pg_url, schema, tmp_path, n=20, strategy="attentive", start=START, seed=1) == ["20 0"] * 3
    counts = ratings(store)
    assert set(counts) == {s.situation_id for s in study.situations} and sum(counts.values()) == 60 * 9
    assert spread(counts.values()) <= 1, sorted(counts.values())


@pytest.mark.slow
@pytest.mark.postgres
def test_three_processes_of_mixed_participants_keep_the_load_within_one(store, pg_url, schema, tmp_path):
    study = load_study(DEMO)
    # The probe's run: the realistic mix, abandoners included (seeds with some in each process).
    outputs = three_processes(pg_url, schema, tmp_path, n=20, strategy="", start=START, seed=10)
    abandoned = sum(int(o.split()[1]) for o in outputs)
    assert abandoned >= 1, outputs
    recs = store.records()
    end = max(datetime.fromisoformat(r["at"]) for r in recs if r.get("at"))
    load = [c["ratings"] + c["reserved"] for c in assignment.coverage(study, recs, end)]
    assert spread(load) <= 1, sorted(load)
    # After the abandoned leases end, the next participants (three processes again) fill what
    # they left first: the ratings themselves come back within 1.
    three_processes(pg_url, schema, tmp_path, n=3, strategy="attentive", start=START + timedelta(hours=3), seed=20)
    assert spread(ratings(store).values()) <= 1, sorted(ratings(store).values())
