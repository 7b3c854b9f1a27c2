"""The TinyDB store's files: damaged shards are set aside, killed writers leave no
temporary files behind, lock files stay few, and the change journal is only a hint."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from infact.stores.tinydb import store as tinydb_store
from infact.stores.tinydb.store import TinyDBStorage

REPO = Path(__file__).resolve().parents[2]


def rec(participant: str, what: str, **extra) -> dict:
    return {"key": f"s/{participant}/{what}", "study": "s", "participant": participant, "kind": "situation", **extra}


@pytest.mark.parametrize(
    "damage, says",
    [
        (b'{"_default": {"1": ', "not valid JSON"),
        (b"\xff\xfe not text", "not UTF-8"),
        (b"[1, 2, 3]", "shape"),
        (b'{"_default": {"1": [1]}}', "shape"),
        (b"[" * 100000, "nested too deeply"),
    ],
)
def test_a_damaged_shard_is_set_aside_and_the_rest_goes_on(tmp_path, damage, says):
    store = TinyDBStorage(tmp_path / "db")
    for p in ("p1", "p2", "p3"):
        store.append(rec(p, "a"))
    shard = tmp_path / "db" / "shards" / "p2.json"
    shard.write_bytes(damage)
    fresh = TinyDBStorage(tmp_path / "db")  # another process: nothing cached
    assert sorted(r["participant"] for r in fresh.records()) == ["p1", "p3"]
    assert not shard.exists()
    [problem] = fresh.problems()
    assert problem["file"] == "p2.json" and says in problem["reason"]
    assert Path(problem["moved_to"]).read_bytes() == damage  # set aside, never deleted
    assert fresh.append(rec("p2", "b"))  # the participant's later answers are stored again
    assert TinyDBStorage(tmp_path / "db").problems() == fresh.problems()  # every process sees it


def test_a_damaged_shard_does_not_stop_consent(tmp_path):
    from infact.participation.flow import Flow
    from infact.study.loader import load_study
    from tests.support.participants import submit_consent
    from tests.support.studies import FakeClock, make_study

    study = load_study(make_study(tmp_path, n_situations=10, per_participant=3))
    flow = Flow(study, TinyDBStorage(tmp_path / "db"), clock=FakeClock())
    first = flow.arrive({})
    submit_consent(flow, first)
    (tmp_path / "db" / "shards" / f"{first}.json").write_text("{broken")
    flow = Flow(study, TinyDBStorage(tmp_path / "db"), clock=FakeClock())  # a restarted server
    for _ in range(3):
        token = flow.arrive({})
        submit_consent(flow, token)
        assert flow.current(flow.state(token)).kind == "situation"
    assert [p["file"] for p in flow.storage.problems()] == [f"{first}.json"]


KILLED_WRITER = r"""
import sys
from infact.stores.tinydb.store import TinyDBStorage
store = TinyDBStorage(sys.argv[1])
name = sys.argv[2]
for i in range(10**6):
    store.append({"key": f"s/{name}/{i}", "study": "s", "participant": name, "kind": "x", "i": i,
                  "pad": "x" * 20000})
    print(i, flush=True)
"""

STUCK_WRITER = r"""
import os, sys, time
from infact.stores.tinydb.store import TinyDBStorage
store = TinyDBStorage(sys.argv[1])
def stuck(src, dst):  # the temp file is written and fsynced: die before the rename
    print("tmp", flush=True)
    time.sleep(600)
os.replace = stuck
store.append({"key": "s/stuck/1", "study": "s", "participant": "stuck", "kind": "x"})
"""


def _temp_files(db: Path) -> list[Path]:
    return list(db.rglob(".*.tmp"))


@pytest.mark.slow
def test_killed_writers_leave_no_temp_files_after_a_restart(tmp_path):
    db = tmp_path / "db"
    TinyDBStorage(db)
    # One writer killed for certain between writing its temp file and renaming it ...
    stuck = subprocess.Popen([sys.executable, "-c", STUCK_WRITER, str(db)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert stuck.stdout.readline().strip() == "tmp"
    os.kill(stuck.pid, signal.SIGKILL)
    stuck.wait()
    assert len(_temp_files(db)) == 1
    # ... and twenty rounds killed at whatever moment (issue 12: 5 orphans after 20 rounds).
    acked: dict[str, int] = {}
    for round_ in range(20):
        name = f"w{round_ % 4}"
        proc = subprocess.Popen(
            [sys.executable, "-c", KILLED_WRITER, str(db), name], cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 30
        last = -1
        while last < 3 + round_ % 5 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            last = int(line)
        time.sleep(0.001 * (round_ % 7))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        acked[name] = max(acked.get(name, -1), last)
    store = TinyDBStorage(db)  # start: clean up
    assert _temp_files(db) == []
    for name, last in acked.items():  # every acknowledged record is still there
        assert {r["i"] for r in store.records(participant=name)} >= set(range(last + 1))


def test_a_live_writers_temp_file_is_left_alone(tmp_path):
    db = tmp_path / "db"
    TinyDBStorage(db)
    stuck = subprocess.Popen([sys.executable, "-c", STUCK_WRITER, str(db)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert stuck.stdout.readline().strip() == "tmp"
        TinyDBStorage(db)  # the writer still holds its lock: its temp file is not an orphan
        assert len(_temp_files(db)) == 1
    finally:
        os.kill(stuck.pid, signal.SIGKILL)
        stuck.wait()
    TinyDBStorage(db)
    assert _temp_files(db) == []


@pytest.mark.slow
def test_lock_files_do_not_grow_with_participants(tmp_path):
    db = tmp_path / "db"
    (db / "locks").mkdir(parents=True)
    for i in range(5):  # what older versions left: one lock file per participant
        (db / "locks" / f"old{i}.lock").write_text("")
    store = TinyDBStorage(db)
    for i in range(500):
        store.append(rec(f"p{i}", "a", platform_id=f"id{i}", kind="arrival"))
    locks = list((db / "locks").iterdir())
    assert len(locks) <= 2 * tinydb_store.STRIPES
    assert not any(p.name.startswith("old") for p in locks)


def test_changes_reads_only_what_the_journal_names(tmp_path, monkeypatch):
    store = TinyDBStorage(tmp_path / "db")
    for i in range(50):
        store.append(rec(f"p{i}", "a"))
    _, cursor = store.changes()
    store.append(rec("p7", "b"))
    reads = []
    original = store._read_shard
    monkeypatch.setattr(store, "_read_shard", lambda name: reads.append(name) or original(name))
    monkeypatch.setattr(store, "_shard_names", lambda: pytest.fail("listed every shard"))
    new, cursor = store.changes(cursor)
    assert [r["key"] for r in new] == ["s/p7/b"] and reads == ["p7"]
    assert store.changes(cursor)[0] == []


def test_a_lost_journal_falls_back_to_reading_every_shard(tmp_path):
    store = TinyDBStorage(tmp_path / "db")
    store.append(rec("p1", "a"))
    _, cursor = store.changes()
    (tmp_path / "db" / "journal.log").unlink()
    store.append(rec("p2", "a"))
    new, cursor = store.changes(cursor)  # the journal is shorter than the cursor: scan
    assert [r["key"] for r in new] == ["s/p2/a"]


def test_a_journal_begun_again_in_the_same_file_is_still_seen_as_lost(tmp_path):
    """The file's inode is no identity (emptied in place here; a deleted file's inode is also reused): the
    journal's own id on its first line is, so the reader scans instead of reading on from a stale offset."""
    store = TinyDBStorage(tmp_path / "db")
    store.append(rec("p1", "a"))
    _, cursor = store.changes()
    journal = tmp_path / "db" / "journal.log"
    assert journal.read_text().startswith("# journal ")
    with open(journal, "r+b") as fh:  # same inode, no id: written by something else, or an older INFACT
        fh.truncate(0)
    written = [f"p{i}" for i in range(2, 10)]
    for p in written:
        store.append(rec(p, "a"))
    assert journal.stat().st_size > cursor.offset  # reading on from the old offset would skip records
    new, _ = store.changes(cursor)
    assert sorted(r["key"] for r in new) == [f"s/{p}/a" for p in written]


def test_platform_index_of_a_store_made_before_the_index(tmp_path):
    db = tmp_path / "db"
    store = TinyDBStorage(db)
    store.append(rec("p1", "arrival", kind="arrival", platform_id="OLD1"))
    for f in (db / "index" / "platform_id").iterdir():  # as an older version left it
        f.unlink()
    assert TinyDBStorage(db).arrival_by_platform_id("s", "old1")["participant"] == "p1"


def test_a_stale_index_entry_is_checked_against_the_arrival(tmp_path):
    db = tmp_path / "db"
    store = TinyDBStorage(db)
    store.append(rec("p1", "arrival", kind="arrival", platform_id="X"))
    store.purge("p1")  # e.g. a crash between index and arrival leaves an entry without arrival
    assert store.arrival_by_platform_id("s", "x") is None
    store.append(rec("p2", "arrival", kind="arrival", platform_id="X"))
    assert store.arrival_by_platform_id("s", "X")["participant"] == "p2"


def test_memory_holds_a_bounded_number_of_parsed_shards(tmp_path, monkeypatch):
    monkeypatch.setattr(tinydb_store, "CACHE_SHARDS", 10)
    store = TinyDBStorage(tmp_path / "db")
    for i in range(40):
        store.append(rec(f"p{i:02d}", "a"))
    fresh = TinyDBStorage(tmp_path / "db")
    assert len(fresh.records()) == 40 and len(fresh.changes()[0]) == 40
    assert len(fresh._cache) == 10  # the 10 read last, not all 40
    assert fresh.append(rec("p00", "b")) and len(fresh.records(participant="p00")) == 2


def test_an_append_writes_the_shard_without_reading_it_again(tmp_path, monkeypatch):
    """Issue 38: TinyDB.insert re-read and re-parsed the participant's whole file on every answer; the store
    already holds it (checked by the file's signature under its lock), so an append only writes."""
    from infact.stores.tinydb import files

    store = TinyDBStorage(tmp_path / "db")
    assert store.append(rec("p1", "a"))  # the first append parses nothing: the file does not exist yet
    reads = []
    monkeypatch.setattr(files.AtomicJSONStorage, "read", lambda self: reads.append(self.path.name) or {})
    for what in ("b", "c", "d"):
        assert store.append(rec("p1", what, seconds=1.5))
    assert reads == []
    assert not store.append(rec("p1", "c"))  # a key stored already is still refused
    monkeypatch.undo()
    assert [r["key"] for r in TinyDBStorage(tmp_path / "db").records(participant="p1")] == [
        "s/p1/a",
        "s/p1/b",
        "s/p1/c",
        "s/p1/d",
    ]


def test_a_shard_written_by_the_store_is_tinydbs_own_layout(tmp_path):
    """Stores keep their format: TinyDB itself (and older INFACT versions, which insert through it) read the file,
    and an append to a file TinyDB wrote keeps its records in order."""
    from tinydb import TinyDB

    from infact.stores.tinydb.files import AtomicJSONStorage

    path = tmp_path / "db" / "shards" / "p1.json"
    path.parent.mkdir(parents=True)
    old = TinyDB(path, storage=AtomicJSONStorage)  # as INFACT wrote shards before
    old.insert(rec("p1", "a", text="naïve “quotes” 😀"))
    old.close()
    store = TinyDBStorage(tmp_path / "db")
    assert store.append(rec("p1", "b", big=2**70, score=0.1))  # beyond 64 bits: the standard library's path
    assert store.append(rec("p1", "c"))
    db = TinyDB(path, storage=AtomicJSONStorage)
    assert [(d.doc_id, d["key"]) for d in db.all()] == [(1, "s/p1/a"), (2, "s/p1/b"), (3, "s/p1/c")]
    assert db.all()[0]["text"] == "naïve “quotes” 😀" and db.all()[1]["big"] == 2**70
    db.insert(rec("p1", "d"))  # TinyDB appends after ours
    db.close()
    assert [r["key"][-1] for r in TinyDBStorage(tmp_path / "db").records(participant="p1")] == list("abcd")


def test_shards_are_read_and_appended_through_tinydbs_own_api(tmp_path):
    """Issue 39: the store reads and writes a shard through TinyDB (its Table over a storage that replaces the file
    atomically), not by parsing TinyDB's layout itself: a file TinyDB's default JSONStorage wrote is read back, and
    what the store appends is on disk for TinyDB's default reader when `append` returns (no write cache)."""
    from tinydb import TinyDB

    from infact.stores.tinydb.files import read_shard

    path = tmp_path / "db" / "shards" / "p1.json"
    path.parent.mkdir(parents=True)
    with TinyDB(path) as plain:  # TinyDB's own JSONStorage, nothing of INFACT's
        plain.insert(rec("p1", "a", score=float("nan")))  # the standard library writes NaN, orjson cannot read it
        plain.insert(rec("p1", "b"))
    store = TinyDBStorage(tmp_path / "db")
    assert [r["key"] for r in store.records(participant="p1")] == ["s/p1/a", "s/p1/b"]
    assert store.append(rec("p1", "c"))
    with TinyDB(path) as plain:
        assert [(d.doc_id, d["key"]) for d in plain.all()] == [(1, "s/p1/a"), (2, "s/p1/b"), (3, "s/p1/c")]
    records, data = read_shard(path)
    assert [r["key"] for r in records] == ["s/p1/a", "s/p1/b", "s/p1/c"] and set(data) == {"_default"}
    assert read_shard(tmp_path / "db" / "shards" / "nobody.json") == ([], None)


def test_a_crash_mid_write_leaves_the_old_file(tmp_path, monkeypatch):
    """A write that dies after its temporary file is written but before the rename leaves the shard as it was,
    and what the store holds in memory is not the failed write's: the next append stores old + new only."""
    from infact import fileio

    store = TinyDBStorage(tmp_path / "db")
    assert store.append(rec("p1", "a")) and store.append(rec("p1", "b"))
    path = tmp_path / "db" / "shards" / "p1.json"
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError("the process died here")

    monkeypatch.setattr(fileio.os, "replace", crash)
    with pytest.raises(OSError, match="died"):
        store.append(rec("p1", "lost"))
    monkeypatch.undo()
    assert path.read_bytes() == before  # the previous complete file, never a truncated one
    assert [r["key"] for r in TinyDBStorage(tmp_path / "db").records(participant="p1")] == ["s/p1/a", "s/p1/b"]
    assert store.append(rec("p1", "c"))
    assert [r["key"] for r in TinyDBStorage(tmp_path / "db").records(participant="p1")] == [
        "s/p1/a",
        "s/p1/b",
        "s/p1/c",
    ]
