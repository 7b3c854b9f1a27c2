"""The PostgreSQL store's hot path: appends group-committed, reads batched, on plain psycopg.

Why: in bench/live.py fifty participants send at the same instant, and each message
is a read of the conversation and two appends. Through SQLAlchemy each statement cost
~0.7 ms of the app's CPU (compiling, result processing) and every append was its own
transaction; 150 statements at once beside the database server on 2 cores made the
app's own p95 ~250 ms (overhead_p95_ms 355-690). Here:
- appends wait in a `GroupCommit` queue, and one
  `INSERT … SELECT FROM jsonb_array_elements(batch) ON CONFLICT (key) DO NOTHING RETURNING key`
  stores a whole batch as one statement, so one transaction: all of it or none of it.
  RETURNING names the keys that went in, so each caller learns exactly whether its key was
  new; a key twice in one batch is sent once, and its later copies are "already stored";
- reads of one participant's records (`ChatSession.load`, every send) wait in a queue too:
  one query answers every participant waiting, each participant's records as one
  `json_agg` text parsed by orjson;
- a batch travels as one JSON text: psycopg's Python-level array dumping cost ~3.5 ms of
  CPU per 50 rows; the statements are fixed strings (psycopg prepares them after a few uses).

Everything else (set-up, locks, changes, purges, migrations) stays on SQLAlchemy in sql.py.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import orjson
import psycopg
from psycopg import sql
from psycopg.types.json import set_json_loads

from infact.stores.group_commit import GroupCommit
from infact.stores.records import copy_record
from infact.stores.summary import light


def _loads(data: bytes | str):
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:  # integers beyond 64 bits: json reads them
        return json.loads(data)


class PgPool:
    """At most `size` psycopg connections in autocommit mode, reused most recent first."""

    def __init__(self, conninfo: str, size: int, connect_timeout: int, wait_s: float) -> None:
        self._conninfo = conninfo
        self._connect_timeout = connect_timeout
        self._wait_s = wait_s
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[psycopg.Connection] = []
        self._lock = threading.Lock()
        self.size = size

    def _connect(self) -> psycopg.Connection:
        conn = psycopg.connect(
            self._conninfo, autocommit=True, connect_timeout=self._connect_timeout, application_name="infact"
        )
        set_json_loads(_loads, conn)
        return conn

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        if not self._slots.acquire(timeout=self._wait_s):
            raise psycopg.OperationalError(f"all {self.size} database connections stayed busy for {self._wait_s:g} s")
        try:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            conn = conn or self._connect()
            try:
                yield conn
            finally:
                if conn.broken or conn.closed:
                    self.discard_idle()  # the server dropped this one: the idle ones were likely dropped too
                    conn.close()
                else:
                    with self._lock:
                        self._idle.append(conn)
        finally:
            self._slots.release()

    def discard_idle(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def run(self, work: Callable[[psycopg.Connection], object]):
        """work(connection); once more on a fresh connection if the server had dropped the first
        (safe: inserts are ON CONFLICT DO NOTHING, the rest only reads)."""
        used = None
        for attempt in (1, 2):
            try:
                with self.connection() as used:
                    return work(used)
            except psycopg.OperationalError:
                if attempt == 2 or used is None or not (used.broken or used.closed):
                    raise
                used = None
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.discard_idle()


def encode_row(record: dict) -> tuple[str, str]:
    """(key, the row as a JSON array: key, study, participant, kind, data, light)."""
    key = str(record["key"])
    return key, json.dumps(
        [key, str(record["study"]), str(record["participant"]), str(record["kind"]), record, light(record)]
    )


class FastPath:
    """Group-committed appends and plain reads on one table (`schema` may be None)."""

    def __init__(
        self, pool: PgPool, schema: str | None, table: str, errors: Callable[[str], AbstractContextManager[None]]
    ) -> None:
        """`errors(doing)`: a context that turns database failures into the store's StorageError."""
        self.pool = pool
        self._errors = errors
        name = sql.Identifier(schema, table) if schema else sql.Identifier(table)
        self._insert = (
            sql.SQL(
                "INSERT INTO {t} (key, study, participant, kind, data, light) "
                "SELECT e->>0, e->>1, e->>2, e->>3, e->4, e->5 FROM jsonb_array_elements(%s::jsonb) "
                "WITH ORDINALITY AS r(e, n) ORDER BY n "
                "ON CONFLICT (key) DO NOTHING RETURNING key"
            )
            .format(t=name)
            .as_string(None)
        )
        self._select = {}
        for filters in (
            (),
            ("study",),
            ("participant",),
            ("kind",),
            ("study", "participant"),
            ("study", "kind"),
            ("participant", "kind"),
            ("study", "participant", "kind"),
        ):
            where = sql.SQL(" AND ").join(sql.SQL("{} = %s").format(sql.Identifier(f)) for f in filters)
            self._select[filters] = (
                sql.SQL("SELECT data FROM {t}{w} ORDER BY id")
                .format(t=name, w=sql.SQL(" WHERE ") + where if filters else sql.SQL(""))
                .as_string(None)
            )
        self.committer: GroupCommit[tuple] = GroupCommit(self._commit)
        self._select_many = (
            sql.SQL(
                # = ANY(ARRAY(subquery)) probes the participant index; a join on jsonb_array_elements
                # was planned as a sequential scan of the whole table (26 ms at 100,000 rows, 0.16 ms so).
                "SELECT study, participant, json_agg(data ORDER BY id)::text FROM {t} "
                "WHERE participant = ANY(ARRAY(SELECT jsonb_array_elements(%s::jsonb)->>1)) "
                "GROUP BY study, participant"
            )
            .format(t=name)
            .as_string(None)
        )
        self.readers: GroupCommit[tuple] = GroupCommit(self._read_many)

    def append(self, rows: list[tuple]) -> list[bool]:
        """Store rows (encode_row) in this order, in one batch with whatever else is waiting."""
        return self.committer.submit(rows)

    def _commit(self, rows: list[tuple]) -> list[bool]:
        first: dict[str, int] = {}
        for i, row in enumerate(rows):
            first.setdefault(row[0], i)
        unique = [rows[i] for i in sorted(first.values())]
        payload = "[" + ",".join(row[1] for row in unique) + "]"
        keys = ", ".join(repr(row[0]) for row in unique[:3]) + (", …" if len(unique) > 3 else "")
        doing = (
            f"save record {keys}"
            if len(unique) == 1
            else f"save {len(unique)} records sent together in one transaction ({keys}); none of them was stored"
        )
        with self._errors(doing):  # every caller of the batch gets this error
            added = self.pool.run(lambda conn: {r[0] for r in conn.execute(self._insert, [payload]).fetchall()})
        return [first[row[0]] == i and row[0] in added for i, row in enumerate(rows)]

    def _read_many(self, wanted: list[tuple[str, str]]) -> list[list[dict]]:
        payload = json.dumps(sorted(set(wanted)))
        rows = self.pool.run(lambda conn: conn.execute(self._select_many, [payload]).fetchall())
        found = {(study, participant): _loads(data) for study, participant, data in rows}
        # Callers may change what they get: one asking for the same participant as an earlier one gets a copy.
        seen: set[tuple[str, str]] = set()
        out = []
        for w in wanted:
            recs = found.get(w, [])
            out.append(copy_record(recs) if w in seen else recs)
            seen.add(w)
        return out

    def records(self, filters: dict[str, str]) -> list[dict]:
        """Records matching every filter ({column: value} of study, participant, kind), in id order."""
        if set(filters) == {"study", "participant"}:
            return self.readers.submit([(filters["study"], filters["participant"])])[0]
        names = tuple(f for f in ("study", "participant", "kind") if f in filters)
        query = self._select[names]
        params = [filters[f] for f in names]
        return self.pool.run(lambda conn: [r[0] for r in conn.execute(query, params).fetchall()])
