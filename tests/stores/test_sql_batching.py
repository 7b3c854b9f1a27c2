"""The PostgreSQL store's hot path (infact/stores/sql/fast.py): appends made at the same moment
share one transaction, each caller learns exactly whether its key was new, a failed batch
stores nothing and tells every caller, and reads of many participants share one query."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from infact.stores.records import StorageError

pytestmark = pytest.mark.postgres


def rec(participant: str, what: str, **extra) -> dict:
    return {"key": f"s/{participant}/{what}", "study": "s", "participant": participant, "kind": "chat_message", **extra}


class HeldFirstBatch:
    """Holds the store's first batch (of appends or of reads) until released: the callers that
    arrive meanwhile all wait for the next one."""

    def __init__(self, group):
        self.group, self.inner = group, group._commit
        self.entered, self.release = threading.Event(), threading.Event()
        self.sizes: list[int] = []
        group._commit = self

    def __call__(self, items):
        self.sizes.append(len(items))
        if len(self.sizes) == 1:
            self.entered.set()
            assert self.release.wait(10)
        return self.inner(items)

    def pile_up(self, first, calls: list, items: int | None = None) -> list[dict]:
        """Run `first` (held), then every call of `calls` while it is held (`items` queued in all:
        one per call unless told); the outcome of each call."""
        outs: list[dict] = [{} for _ in calls]

        def run(fn, out):
            try:
                out["result"] = fn()
            except BaseException as exc:
                out["error"] = exc

        head = threading.Thread(target=run, args=(first, {}))
        head.start()
        assert self.entered.wait(10)
        threads = [threading.Thread(target=run, args=(fn, out)) for fn, out in zip(calls, outs)]
        for t in threads:
            t.start()
        while len(self.group._pending) < (items or len(calls)):
            threading.Event().wait(0.001)
        self.release.set()
        for t in [head, *threads]:
            t.join(20)
        return outs


def stored(pg) -> dict[str, int]:
    """{key: writing transaction} of every stored row."""
    with pg.engine.connect() as conn:
        return dict(conn.execute(sa.select(pg.table.c.key, pg.table.c.txid)).all())


def test_concurrent_appends_share_one_transaction_and_each_learns_its_key_was_new(pg):
    held = HeldFirstBatch(pg._fast.committer)
    records = [rec(f"p{i}", "m1", text=f"hello {i}") for i in range(20)]
    outs = held.pile_up(lambda: pg.append(rec("p0", "first")), [lambda r=r: pg.append(r) for r in records])
    assert outs == [{"result": True}] * 20
    assert held.sizes == [1, 20]
    txids = stored(pg)
    assert len({txids[r["key"]] for r in records}) == 1  # one transaction for the 20
    assert txids[records[0]["key"]] != txids["s/p0/first"]
    assert pg.records(participant="p7") == [records[7]]


def test_duplicate_keys_in_one_batch_and_already_stored_keys_are_refused_exactly(pg):
    assert pg.append(rec("p1", "old")) is True
    held = HeldFirstBatch(pg._fast.committer)
    calls = [
        lambda: pg.append(rec("p1", "dup", text="one")),
        lambda: pg.append(rec("p1", "dup", text="two")),
        lambda: pg.append(rec("p1", "old")),
        lambda: pg.append_in_order([rec("p2", "a"), rec("p2", "a")]),
    ]
    outs = held.pile_up(lambda: pg.append(rec("p9", "first")), calls, items=5)
    assert held.sizes[1] == 5
    dup = [outs[0]["result"], outs[1]["result"]]
    assert sorted(dup) == [False, True]  # exactly one of the two callers stored "dup"
    assert outs[2] == {"result": False}
    assert outs[3] == {"result": [True, False]}
    [kept] = pg.records(participant="p1", kind="chat_message")[1:]
    assert kept["text"] == ("one" if dup[0] else "two")
    assert len(stored(pg)) == 4  # old, dup, a, first


def test_a_failing_batch_fails_every_caller_with_a_clear_error_and_stores_none_of_it(pg):
    held = HeldFirstBatch(pg._fast.committer)
    good = [rec("p1", "m1", text="fine"), rec("p2", "m1", text="fine too")]
    bad = rec("p3", "m1", text="a NUL \u0000 PostgreSQL refuses")
    outs = held.pile_up(lambda: pg.append(rec("p0", "first")), [lambda r=r: pg.append(r) for r in [*good, bad]])
    for out in outs:
        err = out.get("error")
        assert isinstance(err, StorageError), out
        assert "3 records sent together in one transaction" in str(err) and "none of them was stored" in str(err)
        assert "\\u0000" in str(err)  # says what PostgreSQL refused
    assert set(stored(pg)) == {"s/p0/first"}
    assert [pg.append(r) for r in good] == [True, True]  # nothing was half-stored: they go in now


def test_records_appended_in_order_keep_their_order_and_transaction(pg):
    answer, end = rec("p1", "a1", role="assistant"), {**rec("p1", "end"), "kind": "chat_end"}
    assert pg.append_in_order([answer, end]) == [True, True]
    assert [r["key"] for r in pg.records(participant="p1")] == [answer["key"], end["key"]]
    txids = stored(pg)
    assert txids[answer["key"]] == txids[end["key"]]


def test_concurrent_reads_share_one_query_and_each_gets_its_own_records(pg):
    for i in range(6):
        pg.append_in_order([rec(f"p{i}", "m1", n=i), rec(f"p{i}", "m2", n=i)])
    pg.append({**rec("p0", "m1"), "key": "other/p0/m1", "study": "other"})  # another study's record
    held = HeldFirstBatch(pg._fast.readers)
    calls = [lambda i=i: pg.records(study="s", participant=f"p{i}") for i in range(6)]
    calls += [lambda: pg.records(study="s", participant="p2"), lambda: pg.records(study="s", participant="nobody")]
    outs = held.pile_up(lambda: pg.records(study="s", participant="p5"), calls)
    assert held.sizes == [1, 8]
    for i in range(6):
        assert [(r["key"], r["n"]) for r in outs[i]["result"]] == [(f"s/p{i}/m1", i), (f"s/p{i}/m2", i)]
    assert outs[6]["result"] == outs[2]["result"] and outs[6]["result"][0] is not outs[2]["result"][0]
    assert outs[7] == {"result": []}


def test_appends_and_reads_survive_the_server_dropping_idle_connections(pg):
    assert pg.append(rec("p1", "m1")) is True
    assert pg.records(study="s", participant="p1")
    pids = [conn.info.backend_pid for conn in pg._fast.pool._idle]
    assert pids
    with pg.engine.connect() as conn:
        for pid in pids:
            conn.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid})
    assert pg.append(rec("p1", "m2")) is True
    assert [r["key"] for r in pg.records(study="s", participant="p1")] == ["s/p1/m1", "s/p1/m2"]


def test_a_closed_store_refuses_appends_and_reads_clearly(pg_url, schema):
    from infact.stores.sql.store import SQLStorage

    store = SQLStorage(pg_url, schema=schema, drop_on_close=True)
    store.append(rec("p1", "m1"))
    store.close()
    for call in (lambda: store.append(rec("p1", "m2")), lambda: store.records(participant="p1")):
        with pytest.raises(StorageError, match="the store was closed"):
            call()


def test_a_read_batch_gets_only_the_asked_study_and_probes_the_participant_index(pg):
    pg.append_many([{**rec(f"p{i}", f"m{j}"), "key": f"s/p{i}/m{j}"} for i in range(400) for j in range(5)])
    pg.append({**rec("p1", "m0"), "key": "other/p1/m0", "study": "other"})  # the same token in another study
    assert [r["key"] for r in pg.records(study="s", participant="p1")] == [f"s/p1/m{j}" for j in range(5)]
    assert [r["key"] for r in pg.records(study="other", participant="p1")] == ["other/p1/m0"]
    with pg._fast.pool.connection() as conn:
        conn.execute(f"ANALYZE {pg.schema}.{pg.table_name}")
        plan = " ".join(r[0] for r in conn.execute("EXPLAIN " + pg._fast._select_many, ['[["s", "p1"]]']))
    assert f"{pg.table_name}_participant_ix" in plan  # not a scan of the whole table per read


def test_an_unreachable_server_fails_an_append_with_a_clear_error_and_frees_the_connection_slot(pg):
    pool = pg._fast.pool
    pool.discard_idle()
    pool._conninfo = "postgresql://infact:s3cret-pw@127.0.0.1:1/nothing"  # nothing listens on port 1
    pool._wait_s = 0.2
    for _ in range(pool.size + 1):  # a slot leaked per failure would leave the last attempt none
        with pytest.raises(StorageError) as exc:
            pg.append(rec("p1", "m1"))
    text = str(exc.value)
    assert "save record 's/p1/m1'" in text and "check that the database server is running" in text
    assert "s3cret-pw" not in text and "stayed busy" not in text
