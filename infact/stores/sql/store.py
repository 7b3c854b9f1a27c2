"""SQL storage: PostgreSQL (SQLAlchemy 2 + psycopg 3) for hosted studies.

Streamlit Community Cloud loses its disk on every reboot, so a hosted study keeps
its answers in a managed PostgreSQL server named in `.streamlit/secrets.toml`:

    [connections.infact]
    url = "postgresql://USER:PASSWORD@HOST:5432/DATABASE"

One table, created on first use. Idempotency is the UNIQUE constraint on `key`
(INSERT … ON CONFLICT DO NOTHING), so concurrent writers in any number of
processes cannot store an answer twice or lose one. When `append` returns, the
row is committed. On PostgreSQL, appends made at the same moment by different
threads share one statement and transaction, and reads of one participant one
query (group commit, infact.stores.sql.fast).

`changes()` cursors are transaction ids, not row ids: ids are handed out before
commit, so a slow writer can commit id 5 after a reader has seen id 6 — a
"last id seen" cursor would skip it for ever. Every row records its writing
transaction (`txid`); a reader only takes rows whose transactions are older than
the oldest one still running (the snapshot xmin), which are all visible, and
resumes from there. Needs PostgreSQL 13 or newer.

`sqlite:///path` works too (handy for a single machine); PostgreSQL is the target.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from filelock import FileLock
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import URL
from sqlalchemy.pool import StaticPool

from infact.errors import Problem
from infact.stores.records import StorageError, check_record, indexed_arrival, platform_key
from infact.stores.sql import summaries as sql_summaries
from infact.stores.sql.errors import database_errors, reason
from infact.stores.sql.fast import FastPath, PgPool, encode_row
from infact.stores.sql.urls import SECRETS_HINT, mask_url, normalise_url, storage_url_from_secrets
from infact.stores.summary import ParticipantSummary, light

__all__ = ["SQLStorage", "SECRETS_HINT", "mask_url", "normalise_url", "storage_url_from_secrets"]

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")


def _lock_key(*parts: str) -> int:
    """A stable signed 64-bit advisory lock key (pg_advisory_lock takes a bigint)."""
    digest = hashlib.sha256(":".join(("infact",) + parts).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class SQLStorage:
    """The storage protocol on one SQL table (see module docstring)."""

    def __init__(
        self,
        url: str | URL,
        *,
        schema: str | None = None,
        table: str = "infact_records",
        drop_on_close: bool = False,
        pool_size: int = 10,
        max_overflow: int = 10,
        connect_timeout: int = 10,
        lock_timeout: float = 60.0,
    ) -> None:
        self.url = mask_url(url)  # never holds the password: safe to show
        parsed = normalise_url(url)
        self._password = parsed.password
        self.dialect = parsed.get_backend_name()
        for what, name in (("schema", schema), ("table", table)):
            if name is not None and not _IDENT.match(name):
                raise StorageError(
                    Problem(self.url, f"{what} name {name!r} must be 1-40 lower-case letters, digits or '_'")
                )
        if schema and self.dialect != "postgresql":
            raise StorageError(Problem(self.url, "schema= is only supported on PostgreSQL"))
        self.schema, self.table_name = schema, table
        self.drop_on_close = drop_on_close
        self.lock_timeout = lock_timeout
        self._closed = False

        self.engine = self._make_engine(parsed, pool_size, max_overflow, connect_timeout)
        self._auto = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        # PostgreSQL's appends and reads by participant: plain psycopg, group-committed (sql_fast.py).
        self._fast = None
        if self.dialect == "postgresql":
            conninfo = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
            self._fast = FastPath(PgPool(conninfo, pool_size, connect_timeout, wait_s=30.0), schema, table, self.errors)
        self.table = self._define_table()
        insert = pg_dialect.insert if self.dialect == "postgresql" else sqlite_dialect.insert
        # RETURNING tells whether a row went in (rowcount is -1 here with psycopg 3).
        self._insert = insert(self.table).on_conflict_do_nothing(index_elements=["key"]).returning(self.table.c.key)

        # lock(): a thread RLock (reentrancy, threads of this process) around a
        # database-wide lock (other processes) held on one dedicated connection.
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._lock_conn: sa.Connection | None = None
        self._file_lock = None
        qualified = f"{schema or ''}.{table}"
        self._lock_id = _lock_key("lock", qualified)
        if self.dialect == "sqlite" and parsed.database not in (None, "", ":memory:"):
            self._file_lock = FileLock(parsed.database + ".lock", thread_local=False)
        try:
            with self.errors("connect and create the answers table"):
                self._create(_lock_key("ddl", qualified))
        except StorageError:
            self.engine.dispose()
            raise

    # -- set-up --------------------------------------------------------------
    def _make_engine(self, parsed: URL, pool_size: int, max_overflow: int, connect_timeout: int) -> sa.Engine:
        # No pool_pre_ping (a round trip per use): every statement here is idempotent, so a
        # connection the server dropped while idle is replaced and the statement run again (_run).
        kwargs: dict[str, Any] = {}
        if self.dialect == "postgresql":
            kwargs.update(
                pool_size=pool_size,
                max_overflow=max_overflow,
                connect_args={"connect_timeout": connect_timeout, "application_name": "infact"},
            )
        elif parsed.database in (None, "", ":memory:"):
            # One shared in-memory database instead of one per pooled connection.
            kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
        else:
            kwargs.update(connect_args={"timeout": 30})
        try:
            return sa.create_engine(parsed, **kwargs)
        except (sa_exc.SQLAlchemyError, ImportError) as exc:
            raise StorageError(
                Problem(self.url, f"cannot use this database URL ({reason(exc, self._password)}); {SECRETS_HINT}")
            ) from exc

    def _define_table(self) -> sa.Table:
        t = self.table_name
        columns = [
            sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), sa.Identity(), primary_key=True),
            sa.Column("key", sa.Text, nullable=False),
            sa.Column("study", sa.Text, nullable=False),
            sa.Column("participant", sa.Text, nullable=False),
            sa.Column("kind", sa.Text, nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
            sa.Column("data", sa.JSON().with_variant(pg_dialect.JSONB(), "postgresql"), nullable=False),
            # the few fields the funnel reads (stores/summary.py LIGHT_FIELDS): small, never TOASTed
            sa.Column("light", sa.JSON().with_variant(pg_dialect.JSONB(), "postgresql"), nullable=True),
            sa.UniqueConstraint("key", name=f"{t}_key_uq"),
            sa.Index(f"{t}_study_kind_ix", "study", "kind"),
            sa.Index(f"{t}_participant_ix", "participant"),
        ]
        if self.dialect == "postgresql":
            # The writing transaction, as a bigint; see changes().
            columns += [
                sa.Column(
                    "txid",
                    sa.BigInteger,
                    nullable=False,
                    server_default=sa.text("(pg_current_xact_id()::text::bigint)"),
                ),
                sa.Index(f"{t}_txid_ix", "txid"),
            ]
        return sa.Table(t, sa.MetaData(schema=self.schema), *columns)

    def _create(self, ddl_key: int) -> None:
        with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                # Concurrent CREATE … IF NOT EXISTS can still collide in the catalog:
                # processes starting together take turns.
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": ddl_key})
                if (
                    self.schema
                    and conn.execute(
                        sa.text("SELECT 1 FROM pg_namespace WHERE nspname = :s"), {"s": self.schema}
                    ).first()
                    is None
                ):
                    conn.execute(sa.schema.CreateSchema(self.schema))
            self.table.metadata.create_all(conn, checkfirst=True)
            sql_summaries.add_light_column(conn, self)  # tables made before it get it here
            # Indexes added after the first release: tables made before get them here.
            for index in self._later_indexes():
                conn.execute(sa.schema.CreateIndex(index, if_not_exists=True))

    def _platform_expr(self):
        return sa.func.lower(self.table.c.data["platform_id"].as_string())

    def _later_indexes(self) -> list[sa.Index]:
        t = self.table
        return [
            sa.Index(
                f"{self.table_name}_platform_ix",
                t.c.study,
                self._platform_expr(),
                postgresql_where=t.c.kind == "arrival",
                sqlite_where=t.c.kind == "arrival",
            )
        ]

    def errors(self, doing: str):
        """A context in which database failures become a StorageError naming the (masked) URL and a fix."""
        return database_errors(self.url, self._password, doing, closed=self._closed, lock_timeout=self.lock_timeout)

    # -- protocol ------------------------------------------------------------
    @staticmethod
    def _row(record: dict) -> dict:
        check_record(record)
        return {
            "key": str(record["key"]),
            "study": str(record["study"]),
            "participant": str(record["participant"]),
            "kind": str(record["kind"]),
            "data": record,
            "light": light(record),
        }

    def run(self, doing: str, work, *, transaction: bool = False):
        """work(connection) on a pooled connection; once more on a fresh one if the server had
        dropped it (safe: inserts are ON CONFLICT DO NOTHING, the rest reads or deletes)."""
        with self.errors(doing):
            for attempt in (1, 2):
                try:
                    with self.engine.begin() if transaction else self._auto.connect() as conn:
                        return work(conn)
                except sa_exc.DBAPIError as exc:
                    if attempt == 2 or not exc.connection_invalidated:
                        raise

    def append(self, record: dict) -> bool:
        if self._fast is not None:
            return self.append_in_order([record])[0]
        row = self._row(record)
        return self.run(f"save record {row['key']!r}", lambda conn: conn.execute(self._insert, row).first() is not None)

    def append_in_order(self, records: list[dict]) -> list[bool]:
        """Store records in this order, each committed no later than the next; per record, whether
        its key was new. On PostgreSQL they share one transaction with whatever else is being appended."""
        if self._fast is None:
            return [self.append(r) for r in records]
        for r in records:
            check_record(r)
        with self.errors("save records"):  # a closed store; the batch's own errors name their keys
            return self._fast.append([encode_row(r) for r in records])

    def append_many(self, records: Iterable[dict], batch: int = 500) -> int:
        """Append many records in few round trips (migrations); returns how many were new."""
        rows = [self._row(r) for r in records]
        added = 0
        stmt = self._insert
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            added += self.run(
                "save records", lambda conn, chunk=chunk: len(conn.execute(stmt, chunk).all()), transaction=True
            )
        return added

    def records(self, *, study=None, participant=None, kind=None) -> list[dict]:
        if self._fast is not None:
            filters = {
                k: str(v) for k, v in (("study", study), ("participant", participant), ("kind", kind)) if v is not None
            }
            with self.errors("read records"):
                return self._fast.records(filters)
        t = self.table
        query = sa.select(t.c.data).order_by(t.c.id)
        for column, value in (("study", study), ("participant", participant), ("kind", kind)):
            if value is not None:
                query = query.where(t.c[column] == str(value))
        # freshly decoded: already copies
        return self.run("read records", lambda conn: list(conn.execute(query).scalars()))

    def arrival_by_platform_id(self, study: str, platform_id: str) -> dict | None:
        """See infact.storage.Storage; one indexed lookup (`<table>_platform_ix`)."""
        pid = platform_key(platform_id)
        if pid is None:
            return None
        t = self.table
        query = (
            sa.select(t.c.data)
            .where(t.c.study == str(study), t.c.kind == "arrival", self._platform_expr() == pid)
            .order_by(t.c.id)
        )
        # previews are few: filtered here, so the index expression stays simple
        return self.run(
            "look up a platform ID",
            lambda conn: next((d for d in conn.execute(query).scalars() if indexed_arrival(d) == pid), None),
        )

    def summaries(self, study: str, cls=ParticipantSummary) -> dict:
        """{participant: funnel facts} of one study (infact.stores.sql.summaries)."""
        return sql_summaries.summaries(self, study, cls)

    def summaries_since(self, study: str, cls=ParticipantSummary) -> tuple[dict, Any]:
        """`summaries`, and a `changes()` cursor after them (infact.stores.sql.summaries)."""
        return sql_summaries.summaries_since(self, study, cls)

    def problems(self) -> list[dict]:
        return []  # a database refuses damaged rows at write time: nothing to set aside

    def purge(self, participant: str) -> int:
        """Delete every record of one participant (withdrawal with deletion); returns how many."""
        t = self.table
        return self.run(
            f"delete the records of {participant!r}",
            lambda conn: conn.execute(sa.delete(t).where(t.c.participant == str(participant))).rowcount,
            transaction=True,
        )

    def changes(self, cursor: Any = None) -> tuple[list[dict], Any]:
        """PostgreSQL cursor: (horizon, ids of rows at or above it already returned).

        Rows below the horizon (the oldest transaction still running) are all visible;
        rows above it that are already committed are returned too — an assignment
        committed just now must reach the next assigner at once — and their ids are
        remembered so the next call, which starts again from the old horizon, skips them.
        """
        t = self.table
        start, returned = self._parse_cursor(cursor)
        if self.dialect != "postgresql":  # SQLite commits one writer at a time: ids are in commit order
            query = sa.select(t.c.id, t.c.data).where(t.c.id > start).order_by(t.c.id)
            rows = self.run("read new records", lambda conn: conn.execute(query).all())
            return [r.data for r in rows], (rows[-1].id if rows else start)
        # One round trip: the horizon and the rows come from the same snapshot.
        now = sa.select(
            sa.literal_column("pg_snapshot_xmin(pg_current_snapshot())::text::bigint").label("h")
        ).subquery()
        query = (
            sa.select(now.c.h, t.c.id, t.c.txid, t.c.data)
            .select_from(now.outerjoin(t, t.c.txid >= start))
            .order_by(t.c.id)
        )
        rows = self.run("read new records", lambda conn: conn.execute(query).all())
        horizon = max(rows[0].h, start)
        rows = [r for r in rows if r.id is not None]
        new = [r.data for r in rows if r.id not in returned]
        above = frozenset(r.id for r in rows if r.txid >= horizon)
        return new, (horizon, above)

    def _parse_cursor(self, cursor: Any) -> tuple[int, frozenset]:
        try:
            if isinstance(cursor, tuple):
                return int(cursor[0]), frozenset(cursor[1])
            return int(cursor or 0), frozenset()
        except (TypeError, ValueError, IndexError):
            raise StorageError(Problem(self.url, f"changes() cursor {cursor!r} did not come from this store")) from None

    @contextmanager
    def lock(self) -> Iterator[None]:
        if not self._thread_lock.acquire(timeout=self.lock_timeout):
            raise StorageError(
                Problem(self.url, f"another thread held the study lock for over {self.lock_timeout:g} s")
            )
        try:
            outer = self._depth == 0
            if outer:
                self._acquire_shared_lock()
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if outer:
                    self._release_shared_lock()
        finally:
            self._thread_lock.release()

    def _acquire_shared_lock(self) -> None:
        if self.dialect != "postgresql":
            if self._file_lock is not None:
                self._file_lock.acquire(timeout=self.lock_timeout)
            return
        # One statement on a connection kept for locking: the timeout is local to the
        # statement's own transaction; the advisory lock is session-level, held until
        # unlock or disconnect (a crashed process releases it).
        take = sa.text("SELECT pg_advisory_lock(:k) FROM (SELECT set_config('lock_timeout', :t, true)) AS timeout")
        params = {"k": self._lock_id, "t": f"{int(self.lock_timeout * 1000)}ms"}
        with self.errors("take the study lock"):
            for attempt in (1, 2):
                conn = self._lock_conn or self._auto.connect()
                try:
                    conn.execute(take, params)
                except sa_exc.DBAPIError as exc:
                    self._drop_lock_conn(conn)
                    if attempt == 2 or not exc.connection_invalidated:  # the server had dropped it: once more
                        raise
                    continue
                self._lock_conn = conn
                return

    def _drop_lock_conn(self, conn: sa.Connection) -> None:
        self._lock_conn = None
        try:
            conn.invalidate()  # closing the session releases any lock on the server
            conn.close()
        except sa_exc.SQLAlchemyError:
            pass

    def _release_shared_lock(self) -> None:
        if self.dialect != "postgresql":
            if self._file_lock is not None:
                self._file_lock.release()
            return
        conn = self._lock_conn
        if conn is None:
            return
        try:
            conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": self._lock_id})
        except sa_exc.SQLAlchemyError:
            self._drop_lock_conn(conn)

    def drop(self) -> None:
        """Delete the table (and the schema, if one was given) with every record in it."""
        with self.errors("drop the answers table"):
            with self.engine.begin() as conn:
                if self.schema:
                    conn.execute(sa.schema.DropSchema(self.schema, cascade=True, if_exists=True))
                else:
                    self.table.drop(conn, checkfirst=True)

    def close(self) -> None:
        if self._closed:
            return
        try:
            if self.drop_on_close:
                self.drop()
        finally:
            self._closed = True
            if self._lock_conn is not None:
                self._drop_lock_conn(self._lock_conn)
            if self._fast is not None:
                self._fast.pool.close()
            self.engine.dispose()

    def __enter__(self) -> SQLStorage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLStorage({self.url!r}, schema={self.schema!r}, table={self.table_name!r})"
