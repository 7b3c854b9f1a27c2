"""The storage protocol, run against every backend (memory, TinyDB, PostgreSQL)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from infact.storage import StorageError, TinyDBStorage, open_storage

REPO = Path(__file__).resolve().parents[2]


def rec(participant: str, what: str, **extra) -> dict:
    return {"key": f"s/{participant}/{what}", "study": "s", "participant": participant, "kind": "situation", **extra}


def test_append_then_read_back(storage):
    assert storage.append(rec("p1", "step/situation-1", ratings={"meaningful": 4}))
    got = storage.records(participant="p1")
    assert [r["key"] for r in got] == ["s/p1/step/situation-1"]
    assert got[0]["ratings"] == {"meaningful": 4}


def test_same_key_is_stored_once(storage):
    assert storage.append(rec("p1", "step/consent", kind="consent")) is True
    assert storage.append(rec("p1", "step/consent", kind="consent", answers={"late": 1})) is False
    got = storage.records()
    assert len(got) == 1 and "answers" not in got[0]


def test_filters(storage):
    storage.append(rec("p1", "a", kind="consent"))
    storage.append(rec("p2", "a", kind="consent"))
    storage.append(rec("p2", "b", kind="situation"))
    storage.append({**rec("p3", "a"), "study": "other", "key": "other/p3/a"})
    assert len(storage.records(study="s")) == 3
    assert len(storage.records(participant="p2")) == 2
    assert [r["participant"] for r in storage.records(study="s", kind="consent")] == ["p1", "p2"]


def test_returned_records_are_copies(storage):
    storage.append(rec("p1", "a", ratings={"m": 1}))
    storage.records()[0]["ratings"]["m"] = 5
    assert storage.records()[0]["ratings"]["m"] == 1


def test_changes_returns_only_new_records(storage):
    storage.append(rec("p1", "a"))
    first, cursor = storage.changes()
    assert [r["key"] for r in first] == ["s/p1/a"]
    none, cursor = storage.changes(cursor)
    assert none == []
    storage.append(rec("p2", "a"))
    storage.append(rec("p1", "b"))
    more, cursor = storage.changes(cursor)
    assert sorted(r["key"] for r in more) == ["s/p1/b", "s/p2/a"]


@pytest.mark.parametrize(
    "bad",
    [
        {"study": "s", "participant": "p", "kind": "x"},
        {"key": "k", "study": "s", "participant": "../etc/passwd", "kind": "x"},
        {"key": "k", "study": "s", "participant": "p", "kind": "x", "v": float("nan")},
    ],
)
def test_malformed_records_are_refused(storage, bad):
    with pytest.raises(StorageError):
        storage.append(bad)
    assert storage.records() == []


@pytest.mark.slow
def test_sixteen_threads_lose_nothing(storage):
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        try:
            for i in range(200):
                storage.append(rec(f"t{t}", f"step/{i}", i=i))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    got = storage.records()
    assert len(got) == 16 * 200
    assert len({r["key"] for r in got}) == 16 * 200


@pytest.mark.slow
def test_sixteen_threads_on_one_participant_tinydb(tmp_path):
    """The hardest case for a file store: every thread rewrites the same shard."""
    store = TinyDBStorage(tmp_path / "db")

    def worker(t: int) -> None:
        for i in range(50):
            store.append(rec("same", f"{t}/{i}"))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    shard = tmp_path / "db" / "shards" / "same.json"
    assert len(json.loads(shard.read_text())["_default"]) == 800
    assert len(TinyDBStorage(tmp_path / "db").records()) == 800


WRITER = r"""
import sys
from infact.storage import open_storage
store = open_storage(sys.argv[1])
name, n, tag = sys.argv[2], int(sys.argv[3]), sys.argv[4]
for i in range(n):
    store.append({"key": f"s/{name}/{tag}-{i}", "study": "s", "participant": name, "kind": "x", "i": i,
                  "pad": "x" * 2000})
    print(i, flush=True)  # acknowledged: append returned
"""


def _spawn_writer(target: str, name: str, n: int, tag: str = "w") -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, target, name, str(n), tag], cwd=REPO, stdout=subprocess.PIPE, text=True
    )


@pytest.mark.slow
def test_two_processes_share_one_store(tmp_path):
    target = str(tmp_path / "db")
    # Two processes write the same participant's shard and one of their own each.
    procs = [
        _spawn_writer(target, "shared", 150, "a"),
        _spawn_writer(target, "shared", 150, "b"),
        _spawn_writer(target, "own-a", 100, "a"),
        _spawn_writer(target, "own-b", 100, "b"),
    ]
    for p in procs:
        p.communicate(timeout=120)
        assert p.returncode == 0
    store = TinyDBStorage(target)
    assert len(store.records(participant="shared")) == 300
    assert len(store.records(participant="own-a")) == 100
    assert len(store.records(participant="own-b")) == 100


@pytest.mark.slow  # 1.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_sigkill_mid_write_keeps_every_acknowledged_record(tmp_path):
    target = str(tmp_path / "db")
    for attempt in range(3):  # kill at different moments
        proc = _spawn_writer(target, f"victim{attempt}", 100000)
        acked = -1
        deadline = time.monotonic() + 30
        while acked < 40 + attempt * 17 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            acked = int(line)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        store = TinyDBStorage(target)  # a new process' view: the file must load
        got = store.records(participant=f"victim{attempt}")
        indexes = {r["i"] for r in got}
        assert acked >= 40
        assert set(range(acked + 1)) <= indexes, "an acknowledged record was lost"
        shard = Path(target) / "shards" / f"victim{attempt}.json"
        json.loads(shard.read_text())  # valid JSON, not truncated


def test_tinydb_store_refuses_a_file_path(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(StorageError):
        TinyDBStorage(f)


def test_open_storage_dispatch(tmp_path):
    assert type(open_storage("memory://")).__name__ == "MemoryStorage"
    assert type(open_storage(tmp_path / "d")).__name__ == "TinyDBStorage"
    assert type(open_storage(f"tinydb://{tmp_path}/e")).__name__ == "TinyDBStorage"


def test_purge_deletes_one_participant_only(storage):
    storage.append(rec("p1", "a"))
    storage.append(rec("p1", "b"))
    storage.append(rec("p2", "a"))
    assert storage.purge("p1") == 2
    assert [r["participant"] for r in storage.records()] == ["p2"]
    assert storage.append(rec("p1", "a"))  # the key can be used again after deletion
    assert storage.purge("nobody") == 0


def arrival(participant: str, platform_id, study: str = "s", **extra) -> dict:
    return {
        "key": f"{study}/{participant}/arrival",
        "study": study,
        "participant": participant,
        "kind": "arrival",
        "platform_id": platform_id,
        **extra,
    }


def test_arrival_by_platform_id(storage):
    storage.append(arrival("p1", "5f0aBC"))
    storage.append(arrival("p2", "other"))
    storage.append(arrival("p3", "5F0ABC"))  # the same ID again: the first arrival wins
    storage.append(arrival("p4", "5f0abc", study="s2"))
    storage.append(arrival("p5", "prev", preview=True))
    storage.append(arrival("p6", None))
    assert storage.arrival_by_platform_id("s", "5f0abc")["participant"] == "p1"  # letter case ignored
    assert storage.arrival_by_platform_id("s2", "5F0ABC")["participant"] == "p4"
    assert storage.arrival_by_platform_id("s", "prev") is None  # a preview never resumes anyone
    assert storage.arrival_by_platform_id("s", "nobody") is None
    assert storage.arrival_by_platform_id("s", "") is None


def test_platform_id_survives_withdrawal_with_deletion(storage):
    storage.append(arrival("p1", "W1"))
    storage.append(rec("p1", "step/situation-1"))
    storage.purge("p1")
    assert storage.arrival_by_platform_id("s", "w1") is None
    storage.append(arrival("p1", "W1", tombstone=True))  # what Flow.withdraw stores
    assert storage.arrival_by_platform_id("s", "W1")["tombstone"] is True


def test_changes_after_purge_report_the_new_records_once(storage):
    storage.append(rec("p1", "a"))
    storage.append(rec("p1", "b"))
    storage.append(rec("p2", "a"))
    _, cursor = storage.changes()
    storage.purge("p1")
    storage.append(rec("p1", "tombstone"))
    new, cursor = storage.changes(cursor)
    assert [r["key"] for r in new] == ["s/p1/tombstone"]
    storage.append(rec("p2", "b"))
    new, cursor = storage.changes(cursor)
    assert [r["key"] for r in new] == ["s/p2/b"]


def test_a_fresh_store_has_no_problems(storage):
    storage.append(rec("p1", "a"))
    assert storage.problems() == []
