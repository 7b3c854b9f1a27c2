"""The TinyDB store's chat log (infact/stores/tinydb/chat_log.py): group commit, crash safety,
uniqueness across processes, purge, and the readers that must see chat records."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from infact.chat.conversation import CHAT_KINDS
from infact.stores.feed import shard_changes
from infact.stores.tinydb import chat_log
from infact.stores.tinydb.store import TinyDBStorage

REPO = Path(__file__).resolve().parents[2]


def msg(participant: str, n: int, **extra) -> dict:
    return {
        "key": f"s/{participant}/chat/{participant}-A/{n}/user",
        "study": "s",
        "participant": participant,
        "kind": "chat_message",
        "role": "user",
        "turn": n,
        "text": f"message {n}",
        **extra,
    }


def test_the_log_holds_exactly_the_records_of_a_conversation():
    assert chat_log.LOG_KINDS == frozenset(CHAT_KINDS)


def test_chat_records_go_to_the_log_and_read_back_with_the_shard(tmp_path):
    store = TinyDBStorage(tmp_path / "db")
    store.append({"key": "s/p1/arrival", "study": "s", "participant": "p1", "kind": "arrival"})
    assert store.append(msg("p1", 1)) and store.append(msg("p1", 2))
    assert not store.append(msg("p1", 2, text="again"))  # a key is stored once
    shard = (tmp_path / "db" / "shards" / "p1.json").read_text()
    assert "chat_message" not in shard  # no whole-shard rewrite per message
    fresh = TinyDBStorage(tmp_path / "db")  # what a restarted server reads
    assert [(r["kind"], r.get("turn")) for r in fresh.records(participant="p1")] == [
        ("arrival", None),
        ("chat_message", 1),
        ("chat_message", 2),
    ]
    assert [r["text"] for r in fresh.records(kind="chat_message")] == ["message 1", "message 2"]
    assert fresh.records(kind="arrival")[0]["participant"] == "p1"


def test_concurrent_appends_share_syncs_and_each_returns_only_once_durable(tmp_path, monkeypatch):
    store = TinyDBStorage(tmp_path / "db")
    synced_up_to = [0]
    real_sync = os.fdatasync

    def counting_sync(fd):
        real_sync(fd)
        synced_up_to.append(os.fstat(fd).st_size)

    monkeypatch.setattr(chat_log.os, "fdatasync", counting_sync)
    returned_too_early = []
    barrier = threading.Barrier(40)

    def participant(i: int) -> None:
        barrier.wait()
        for n in range(5):
            assert store.append(msg(f"p{i}", n))
            line = chat_log.encode(msg(f"p{i}", n))
            data = (tmp_path / "db" / "chats.jsonl").read_bytes()
            if data.find(line) + len(line) > max(synced_up_to):  # returned before the sync covering it
                returned_too_early.append((i, n))

    threads = [threading.Thread(target=participant, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert returned_too_early == []
    assert len(TinyDBStorage(tmp_path / "db").records()) == 200
    assert len(synced_up_to) - 1 < 200  # batches: fewer syncs than records


def test_records_appended_together_are_stored_in_order(tmp_path):
    store = TinyDBStorage(tmp_path / "db")
    end = {**msg("p1", 9), "key": "s/p1/chat/p1-A/end", "kind": "chat_end", "ended_by": "max_turns"}
    assert store.append_in_order([msg("p1", 1), end]) == [True, True]
    assert store.append_in_order([msg("p1", 1), msg("p1", 2)]) == [False, True]
    assert [(r["kind"], r["turn"]) for r in store.records(participant="p1")] == [
        ("chat_message", 1),
        ("chat_end", 9),
        ("chat_message", 2),
    ]


def test_a_chat_record_of_an_older_store_in_the_shard_is_not_stored_twice(tmp_path):
    from tinydb import TinyDB

    from infact.stores.tinydb.files import AtomicJSONStorage

    (tmp_path / "db" / "shards").mkdir(parents=True)
    db = TinyDB(tmp_path / "db" / "shards" / "p1.json", storage=AtomicJSONStorage)
    db.insert(msg("p1", 1))  # as the store wrote chat messages before chats.jsonl
    db.close()
    store = TinyDBStorage(tmp_path / "db")
    assert not store.append(msg("p1", 1))
    assert store.append(msg("p1", 2))
    assert [r["turn"] for r in store.records(participant="p1")] == [1, 2]


def test_a_torn_last_line_is_skipped_and_the_next_record_starts_a_line_of_its_own(tmp_path):
    store = TinyDBStorage(tmp_path / "db")
    store.append(msg("p1", 1))
    log = tmp_path / "db" / "chats.jsonl"
    with open(log, "ab") as fh:
        fh.write(chat_log.encode(msg("p1", 2))[:25])  # a writer killed mid-write: never acknowledged
    fresh = TinyDBStorage(tmp_path / "db")
    assert [r["turn"] for r in fresh.records(participant="p1")] == [1]
    assert fresh.append(msg("p1", 2))
    assert [r["turn"] for r in TinyDBStorage(tmp_path / "db").records(participant="p1")] == [1, 2]
    assert len(log.read_bytes().split(b"\n")) == 4  # record 1, the torn line ended, record 2, ""


KILLED_CHATTER = r"""
import sys
from infact.storage import open_storage
store = open_storage(sys.argv[1])
name = sys.argv[2]
for i in range(100000):
    store.append({"key": f"s/{name}/chat/c/{i}/user", "study": "s", "participant": name, "kind": "chat_message",
                  "role": "user", "turn": i, "i": i, "text": "x" * 3000})
    print(i, flush=True)  # acknowledged: append returned
"""


def test_sigkill_mid_chat_keeps_every_acknowledged_message_and_a_readable_log(tmp_path):
    target = str(tmp_path / "db")
    acked: dict[str, int] = {}
    for attempt in range(4):  # kill at different moments
        name = f"victim{attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-c", KILLED_CHATTER, target, name], cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        last, deadline = -1, time.monotonic() + 30
        while last < 20 + attempt * 13 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            last = int(line)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        acked[name] = last
    store = TinyDBStorage(target)  # a new process' view
    for name, last in acked.items():
        assert last >= 20
        got = [r["i"] for r in store.records(participant=name)]
        assert set(range(last + 1)) <= set(got), "an acknowledged message was lost"
        assert len(got) == len(set(got))
    assert store.append(msg("after", 1))  # the log takes new records after the kills
    assert TinyDBStorage(target).records(participant="after")[0]["turn"] == 1


TWO_PROCESS_CHATTER = r"""
import sys
from infact.storage import open_storage
store = open_storage(sys.argv[1])
stored = 0
for i in range(150):  # both processes try the same keys: each must be stored once
    stored += store.append({"key": f"s/shared/chat/c/{i}/user", "study": "s", "participant": "shared",
                            "kind": "chat_message", "role": "user", "turn": i, "by": sys.argv[2]})
print(stored)
"""


def test_two_processes_store_each_key_once(tmp_path):
    target = str(tmp_path / "db")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", TWO_PROCESS_CHATTER, target, tag], cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        for tag in ("a", "b")
    ]
    stored = [int(p.communicate(timeout=120)[0]) for p in procs]
    assert sum(stored) == 150
    got = TinyDBStorage(target).records(participant="shared")
    assert sorted(r["turn"] for r in got) == list(range(150))


def test_purge_deletes_the_text_and_every_process_forgets_it(tmp_path):
    store, other = TinyDBStorage(tmp_path / "db"), TinyDBStorage(tmp_path / "db")
    store.append(msg("p1", 1, text="my secret"))
    store.append(msg("p2", 1))
    assert other.records(participant="p1")  # indexed by the other instance
    _, cursor = other.changes()
    assert store.purge("p1") == 1
    assert b"my secret" not in (tmp_path / "db" / "chats.jsonl").read_bytes()
    assert other.records(participant="p1") == []
    assert other.append(msg("p1", 1, text="after withdrawal"))  # the key is free again
    new, cursor = other.changes(cursor)
    assert [r["text"] for r in new] == ["after withdrawal"]
    assert [r["participant"] for r in TinyDBStorage(tmp_path / "db").records()] == ["p2", "p1"]


def test_the_dashboard_feed_sees_chat_records_once(tmp_path):
    store = TinyDBStorage(tmp_path / "db")
    store.append({"key": "s/p1/arrival", "study": "s", "participant": "p1", "kind": "arrival"})
    store.append(msg("p1", 1))
    new, cursor, _ = shard_changes(store, None)
    assert sorted(r["kind"] for r in new) == ["arrival", "chat_message"]
    store.append(msg("p1", 2))
    new, cursor, _ = shard_changes(store, cursor)
    assert [r["turn"] for r in new] == [2]
    assert shard_changes(store, cursor)[0] == []


def test_chat_records_follow_the_storage_contract_on_every_backend(storage):
    """The same behaviour whether chat records go to the TinyDB chat log, memory or PostgreSQL."""
    from infact.chat.session import append_in_order

    storage.append({"key": "s/p1/arrival", "study": "s", "participant": "p1", "kind": "arrival"})
    _, cursor = storage.changes()
    end = {**msg("p1", 2), "key": "s/p1/chat/p1-A/end", "kind": "chat_end", "ended_by": "max_turns"}
    assert append_in_order(storage, [msg("p1", 1), msg("p1", 2), end]) == [True, True, True]
    assert append_in_order(storage, [msg("p1", 2)]) == [False]
    assert storage.append(msg("p2", 1))
    assert [r["kind"] for r in storage.records(participant="p1", kind="chat_end")] == ["chat_end"]
    assert len(storage.records(study="s", kind="chat_message")) == 3
    new, cursor = storage.changes(cursor)
    assert sorted(r["key"] for r in new) == sorted(
        [msg("p1", 1)["key"], msg("p1", 2)["key"], end["key"], msg("p2", 1)["key"]]
    )
    assert storage.purge("p1") == 4
    assert storage.records(participant="p1") == [] and len(storage.records()) == 1
    assert storage.append(msg("p1", 1))  # stored again after a withdrawal with deletion
    new, cursor = storage.changes(cursor)
    assert [r["key"] for r in new] == [msg("p1", 1)["key"]]
