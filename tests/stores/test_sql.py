"""SQL storage beyond the shared protocol suite: processes, locks, cursors, errors, secrets.

Tests marked `postgres` need the throw-away server (scripts/pg_test_server.sh sets
INFACT_TEST_PG_URL); `pg_url` and `schema` come from conftest.py, the one PostgreSQL set-up.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from infact.stores.records import StorageError
from infact.stores.sql.store import SQLStorage, mask_url, normalise_url, storage_url_from_secrets

REPO = Path(__file__).resolve().parents[2]


def rec(participant: str, what: str, **extra) -> dict:
    return {"key": f"s/{participant}/{what}", "study": "s", "participant": participant, "kind": "situation", **extra}


def run_child(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


# -- secrets and URLs (no server needed) ------------------------------------------
def test_secrets_url_form():
    assert (
        storage_url_from_secrets({"connections": {"infact": {"url": " postgresql://u:p@h/db "}}})
        == "postgresql://u:p@h/db"
    )


def test_secrets_split_form_like_streamlit_sqlconnection():
    url = storage_url_from_secrets(
        {
            "connections": {
                "infact": {
                    "dialect": "postgresql",
                    "host": "db.example.org",
                    "port": "5432",
                    "database": "study",
                    "username": "me",
                    "password": "p@ss/word",
                    "query": {"sslmode": "require"},
                }
            }
        }
    )
    parsed = normalise_url(url)
    assert (parsed.host, parsed.port, parsed.database, parsed.username, parsed.password) == (
        "db.example.org",
        5432,
        "study",
        "me",
        "p@ss/word",
    )
    assert parsed.query == {"sslmode": "require"}
    assert parsed.drivername == "postgresql+psycopg"


class NoSecretsFile(dict):
    def __getitem__(self, key):  # what st.secrets does without a secrets.toml
        raise FileNotFoundError("No secrets found")


@pytest.mark.parametrize(
    "secrets", [{}, {"connections": {}}, {"connections": {"other": {"url": "x"}}}, NoSecretsFile()]
)
def test_secrets_without_the_section_mean_no_sql(secrets):
    assert storage_url_from_secrets(secrets) is None


@pytest.mark.parametrize(
    "section, named",
    [
        ({"host": "h"}, "dialect"),
        ({"url": ""}, "empty"),
        ({"dialect": "postgresql", "port": "fivefour"}, "port"),
    ],
)
def test_incomplete_secrets_name_the_setting(section, named):
    with pytest.raises(StorageError) as exc:
        storage_url_from_secrets({"connections": {"infact": section}})
    assert "[connections.infact]" in str(exc.value) and named in str(exc.value)


def test_postgres_spellings_use_psycopg3():
    for url in ("postgres://u:p@h/db", "postgresql://u:p@h/db", "postgresql+psycopg2://u:p@h/db"):
        assert normalise_url(url).drivername == "postgresql+psycopg"


@pytest.mark.parametrize(
    "url, says",
    [
        ("postgresql://u:s3cret@h:notaport/db", "not a valid database URL"),
        ("mysql://u:s3cret@h/db", "PostgreSQL"),
        ("postgresql://u:s3cret@h", "names no database"),
    ],
)
def test_bad_urls_are_refused_without_showing_the_password(url, says):
    with pytest.raises(StorageError) as exc:
        SQLStorage(url)
    message = str(exc.value)
    assert says in message and "secrets.toml" in message
    assert "s3cret" not in message and "***" in message


def test_mask_url():
    assert mask_url("postgresql://u:s3cret@h:5/db") == "postgresql://u:***@h:5/db"
    assert "s3cret" not in mask_url("postgresql://u:s3cret@h:bad/db")


def test_unreachable_server_is_a_clear_error():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(StorageError) as exc:  # refused at once: nothing to wait for, no retries
        SQLStorage(f"postgresql://infact:s3cret@127.0.0.1:{port}/db", connect_timeout=3)
    message = str(exc.value)
    assert f"postgresql://infact:***@127.0.0.1:{port}/db" in message
    assert "s3cret" not in message
    assert "reachable" in message and "[connections.infact]" in message


# -- SQLite convenience backend ----------------------------------------------------
def test_sqlite_file_store(tmp_path):
    url = f"sqlite:///{tmp_path / 'answers.db'}"
    store = SQLStorage(url)
    assert store.append(rec("p1", "a")) and not store.append(rec("p1", "a"))
    new, cursor = store.changes()
    assert [r["key"] for r in new] == ["s/p1/a"]
    store.append(rec("p2", "a"))
    with store.lock(), store.lock():  # reentrant
        assert [r["key"] for r in store.changes(cursor)[0]] == ["s/p2/a"]
    store.close()
    assert len(SQLStorage(url).records()) == 2  # persisted


def test_sqlite_refuses_a_schema():
    with pytest.raises(StorageError):
        SQLStorage("sqlite://", schema="x")


# -- PostgreSQL ------------------------------------------------------------------------
WRITER = r"""
import sys
from infact.stores.sql.store import SQLStorage
url, schema, tag, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
store = SQLStorage(url, schema=schema)  # every process also races to create the schema
new = 0
for i in range(n):
    # Half the keys are shared by every process: each must be stored exactly once.
    what = f"shared-{i}" if i % 2 else f"{tag}-{i}"
    new += store.append({"key": f"s/p{i % 7}/{what}", "study": "s", "participant": f"p{i % 7}",
                         "kind": "x", "i": i, "by": tag})
print(new)
"""


@pytest.mark.slow
@pytest.mark.postgres
def test_four_processes_append_concurrently_and_lose_nothing(pg_url, schema):
    procs = [run_child(WRITER, pg_url, schema, f"w{k}", "300") for k in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [err for _, err in outputs]
    store = SQLStorage(pg_url, schema=schema, drop_on_close=True)
    try:
        keys = [r["key"] for r in store.records()]
        assert len(keys) == len(set(keys)) == 4 * 150 + 150
        # Each process was told truthfully whether its append stored something.
        assert sum(int(out) for out, _ in outputs) == len(keys)
    finally:
        store.close()


LOCKER = r"""
import sys, time
from infact.stores.records import StorageError
from infact.stores.sql.store import SQLStorage
store = SQLStorage(sys.argv[1], schema=sys.argv[2], lock_timeout=float(sys.argv[3]))
print("ready", flush=True)
try:
    with store.lock():
        print("locked", time.time(), flush=True)
except StorageError as exc:
    print("refused", exc, flush=True)
"""


@pytest.mark.postgres
@pytest.mark.slow  # 2.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_lock_excludes_another_process(pg, pg_url):
    with pg.lock():
        child = run_child(LOCKER, pg_url, pg.schema, "30")
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # the child is now waiting for the lock
        released = time.time()
    out, err = child.communicate(timeout=30)
    word, at = out.split()
    assert word == "locked", err
    assert float(at) >= released


@pytest.mark.postgres
def test_lock_wait_has_a_time_limit(pg, pg_url):
    with pg.lock():
        child = run_child(LOCKER, pg_url, pg.schema, "0.5")
        out, err = child.communicate(timeout=30)
    assert out.splitlines()[-1].startswith("refused"), err
    assert "study lock" in out and "Traceback" not in err


@pytest.mark.postgres
def test_lock_is_reentrant_and_serialises_threads(pg):
    counter = {"n": 0}

    def bump() -> None:
        for _ in range(20):
            with pg.lock():
                with pg.lock():  # the assignment code nests lock() and calls append inside
                    seen = counter["n"]
                    time.sleep(0.0005)
                    counter["n"] = seen + 1
                    pg.append(rec("p", f"n{seen}"))

    threads = [threading.Thread(target=bump) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counter["n"] == 120 and len(pg.records()) == 120


@pytest.mark.postgres
def test_changes_does_not_skip_a_row_committed_late(pg):
    """A writer that took an id first but commits last must still reach the reader."""
    seen: list[str] = []
    _, cursor = pg.changes()
    slow = pg.engine.connect()
    slow.begin()
    slow.execute(pg._insert, pg._row(rec("slow", "a")))  # lower id, not committed yet
    pg.append(rec("fast", "a"))  # higher id, committed
    batch, cursor = pg.changes(cursor)
    seen += [r["key"] for r in batch]
    slow.commit()
    slow.close()
    batch, cursor = pg.changes(cursor)
    seen += [r["key"] for r in batch]
    assert sorted(seen) == ["s/fast/a", "s/slow/a"]
    assert pg.changes(cursor)[0] == []


@pytest.mark.postgres
def test_text_postgresql_cannot_store_is_a_storage_error(pg):
    with pytest.raises(StorageError) as exc:
        pg.append(rec("p", "nul", comment="a\x00b"))
    assert "s/p/nul" in str(exc.value)
    assert pg.append(rec("p", "ok"))  # the store still works


@pytest.mark.postgres
def test_table_schema_and_drop_on_close(pg_url, schema):
    store = SQLStorage(pg_url, schema=schema, drop_on_close=True)
    store.append(rec("p", "a"))
    engine = sa.create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        inspector = sa.inspect(engine)
        assert "infact_records" in inspector.get_table_names(schema=schema)
        unique = inspector.get_unique_constraints("infact_records", schema=schema)
        assert [c["column_names"] for c in unique] == [["key"]]
        store.close()
        assert schema not in sa.inspect(engine).get_schema_names()
    finally:
        engine.dispose()
    with pytest.raises(StorageError):
        store.append(rec("p", "b"))  # closed


@pytest.mark.postgres
def test_records_are_copies_in_insertion_order(pg):
    for i in range(5):
        pg.append(rec(f"p{i % 2}", f"x{i}", i=i, nested={"list": [1, 2.5, None, "ü"]}))
    got = pg.records()
    assert [r["i"] for r in got] == [0, 1, 2, 3, 4]
    assert got[0]["nested"] == {"list": [1, 2.5, None, "ü"]}
    assert pg.append_many([rec("p9", "y"), rec("p0", "x0")]) == 1


@pytest.mark.postgres
def test_platform_id_lookup_uses_its_index(pg):
    for i in range(50):
        pg.append(
            {
                "key": f"s/p{i}/arrival",
                "study": "s",
                "participant": f"p{i}",
                "kind": "arrival",
                "platform_id": f"PID{i}",
            }
        )
    t = pg.table
    query = sa.select(t.c.data).where(t.c.study == "s", t.c.kind == "arrival", pg._platform_expr() == "pid7")
    with pg.engine.connect() as conn:
        conn.exec_driver_sql("SET enable_seqscan = off")  # a tiny table: make the planner show what it can use
        plan = "\n".join(
            conn.execute(
                sa.text("EXPLAIN " + str(query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True})))
            ).scalars()
        )
    assert "infact_records_platform_ix" in plan, plan
    assert pg.arrival_by_platform_id("s", "Pid7")["participant"] == "p7"


@pytest.mark.postgres
def test_lock_survives_a_dropped_connection(pg):
    with pg.lock():
        pass
    locker = pg._lock_conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
    with pg.engine.connect() as admin:  # the server ends the idle lock session (as a managed server may)
        admin.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": locker})
    with pg.lock():  # a fresh connection takes over
        assert pg.append(rec("p", "after"))
    assert [r["key"] for r in pg.records()] == ["s/p/after"]
