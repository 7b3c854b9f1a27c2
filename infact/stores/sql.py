"""SQL storage: PostgreSQL (SQLAlchemy 2 + psycopg 3) for hosted studies.

Streamlit Community Cloud loses its disk on every reboot, so a hosted study keeps
its answers in a managed PostgreSQL server named in `.streamlit/secrets.toml`:

    [connections.infact]
    url = "postgresql://USER:PASSWORD@HOST:5432/DATABASE"

One table, created on first use. Idempotency is the UNIQUE constraint on `key`
(INSERT … ON CONFLICT DO NOTHING), so concurrent writers in any number of
processes cannot store an answer twice or lose one. Each append is one
autocommitted statement: when `append` returns, the row is committed.

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
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping

import sqlalchemy as sa
from filelock import FileLock
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

from infact.errors import Problem
from infact.stores.records import StorageError, check_record, indexed_arrival, platform_key

SECRETS_HINT = ('set url = "postgresql://USER:PASSWORD@HOST:5432/DATABASE" under [connections.infact] '
                "in .streamlit/secrets.toml (or pass it with --db or the INFACT_DB environment variable)")
_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
_PASSWORD_IN_URL = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")


def mask_url(url: str | URL) -> str:
    """The URL with its password replaced by ***, safe for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # unparseable: mask by pattern
        return _PASSWORD_IN_URL.sub(r"\1***@", str(url))


def normalise_url(url: str | URL) -> URL:
    """Parse a database URL; every PostgreSQL spelling goes through psycopg 3."""
    shown = mask_url(url)
    try:
        parsed = make_url(str(url).strip() if isinstance(url, str) else url)
    except (sa_exc.ArgumentError, ValueError) as exc:
        raise StorageError(Problem(shown, f"is not a valid database URL ({exc}); {SECRETS_HINT}")) from exc
    backend = parsed.get_backend_name()
    if backend in ("postgres", "postgresql"):
        # postgres:// (Heroku, Supabase), plain postgresql:// and psycopg2 URLs
        # copied from Streamlit's docs all use the driver that is installed.
        parsed = parsed.set(drivername="postgresql+psycopg")
        if not parsed.database:
            raise StorageError(Problem(shown, f"names no database (…/DATABASE at the end); {SECRETS_HINT}"))
    elif backend != "sqlite":
        raise StorageError(Problem(shown, f"uses {backend!r}; INFACT stores answers in PostgreSQL "
                                          f"(postgresql://…) or a TinyDB directory — {SECRETS_HINT}"))
    return parsed


def storage_url_from_secrets(secrets: Mapping, name: str = "infact") -> str | None:
    """The database URL in `[connections.<name>]` of Streamlit secrets, or None if there is none.

    Accepts `url = "…"` or Streamlit SQLConnection's split form: `dialect`, `driver`,
    `host`, `port`, `database`, `username`, `password`, `query`. Pass `st.secrets`.
    """
    where = f"[connections.{name}]"
    try:
        section = secrets["connections"][name]
    except (KeyError, TypeError, FileNotFoundError):  # no secrets.toml (Streamlit raises a FileNotFoundError) or no section
        return None
    if not isinstance(section, Mapping):
        raise StorageError(Problem(".streamlit/secrets.toml", f"{where} must be a table; {SECRETS_HINT}", key=f"connections.{name}"))
    if "url" in section:
        url = str(section["url"] or "").strip()
        if not url:
            raise StorageError(Problem(".streamlit/secrets.toml", f"url in {where} is empty; {SECRETS_HINT}", key=f"connections.{name}.url"))
        return url
    dialect = section.get("dialect")
    if not dialect:
        raise StorageError(Problem(".streamlit/secrets.toml", f"{where} needs url, or dialect, host, port, database, username and password; {SECRETS_HINT}", key=f"connections.{name}"))
    driver = section.get("driver")
    port = section.get("port")
    try:
        port = int(port) if port not in (None, "") else None
    except (TypeError, ValueError):
        raise StorageError(Problem(".streamlit/secrets.toml", f"port in {where} must be a number, got {port!r}", key=f"connections.{name}.port")) from None
    url = URL.create(
        f"{dialect}+{driver}" if driver else str(dialect),
        username=section.get("username"), password=section.get("password"),
        host=section.get("host"), port=port, database=section.get("database"),
        query={str(k): str(v) for k, v in dict(section.get("query") or {}).items()},
    )
    return url.render_as_string(hide_password=False)


def _lock_key(*parts: str) -> int:
    """A stable signed 64-bit advisory lock key (pg_advisory_lock takes a bigint)."""
    digest = hashlib.sha256(":".join(("infact",) + parts).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _reason(exc: BaseException, password: str | None) -> str:
    text = " ".join(str(getattr(exc, "orig", None) or exc).split())
    if password:
        text = text.replace(password, "***")
    return text[:300]


class SQLStorage:
    """The storage protocol on one SQL table (see module docstring)."""

    def __init__(self, url: str | URL, *, schema: str | None = None, table: str = "infact_records",
                 drop_on_close: bool = False, pool_size: int = 10, max_overflow: int = 10,
                 connect_timeout: int = 10, lock_timeout: float = 60.0) -> None:
        self.url = mask_url(url)  # never holds the password: safe to show
        parsed = normalise_url(url)
        self._password = parsed.password
        self.dialect = parsed.get_backend_name()
        for what, name in (("schema", schema), ("table", table)):
            if name is not None and not _IDENT.match(name):
                raise StorageError(Problem(self.url, f"{what} name {name!r} must be 1-40 lower-case letters, digits or '_'"))
        if schema and self.dialect != "postgresql":
            raise StorageError(Problem(self.url, "schema= is only supported on PostgreSQL"))
        self.schema, self.table_name = schema, table
        self.drop_on_close = drop_on_close
        self.lock_timeout = lock_timeout
        self._closed = False

        kwargs: dict[str, Any] = {"pool_pre_ping": True}  # managed servers drop idle connections
        if self.dialect == "postgresql":
            kwargs.update(pool_size=pool_size, max_overflow=max_overflow,
                          connect_args={"connect_timeout": connect_timeout, "application_name": "infact"})
        elif parsed.database in (None, "", ":memory:"):
            # One shared in-memory database instead of one per pooled connection.
            kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
        else:
            kwargs.update(connect_args={"timeout": 30})
        try:
            self._engine = sa.create_engine(parsed, **kwargs)
        except (sa_exc.SQLAlchemyError, ImportError) as exc:
            raise StorageError(Problem(self.url, f"cannot use this database URL ({_reason(exc, self._password)}); {SECRETS_HINT}")) from exc
        self._auto = self._engine.execution_options(isolation_level="AUTOCOMMIT")
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
            with self._errors("connect and create the answers table"):
                self._create(_lock_key("ddl", qualified))
        except StorageError:
            self._engine.dispose()
            raise

    # -- set-up --------------------------------------------------------------
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
            sa.UniqueConstraint("key", name=f"{t}_key_uq"),
            sa.Index(f"{t}_study_kind_ix", "study", "kind"),
            sa.Index(f"{t}_participant_ix", "participant"),
        ]
        if self.dialect == "postgresql":
            # The writing transaction, as a bigint; see changes().
            columns += [sa.Column("txid", sa.BigInteger, nullable=False,
                                  server_default=sa.text("(pg_current_xact_id()::text::bigint)")),
                        sa.Index(f"{t}_txid_ix", "txid")]
        return sa.Table(t, sa.MetaData(schema=self.schema), *columns)

    def _create(self, ddl_key: int) -> None:
        with self._engine.begin() as conn:
            if self.dialect == "postgresql":
                # Concurrent CREATE … IF NOT EXISTS can still collide in the catalog:
                # processes starting together take turns.
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": ddl_key})
                if self.schema and conn.execute(sa.text("SELECT 1 FROM pg_namespace WHERE nspname = :s"),
                                                {"s": self.schema}).first() is None:
                    conn.execute(sa.schema.CreateSchema(self.schema))
            self.table.metadata.create_all(conn, checkfirst=True)
            # Indexes added after the first release: tables made before get them here.
            for index in self._later_indexes():
                index.create(conn, checkfirst=True)

    def _platform_expr(self):
        return sa.func.lower(self.table.c.data["platform_id"].as_string())

    def _later_indexes(self) -> list[sa.Index]:
        t = self.table
        return [sa.Index(f"{self.table_name}_platform_ix", t.c.study, self._platform_expr(),
                         postgresql_where=t.c.kind == "arrival", sqlite_where=t.c.kind == "arrival")]

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """Database failures become a StorageError naming the (masked) URL and a fix."""
        if self._closed:
            raise StorageError(Problem(self.url, f"cannot {doing}: the store was closed"))
        try:
            yield
        except StorageError:
            raise
        except (sa_exc.OperationalError, sa_exc.InterfaceError) as exc:
            if getattr(getattr(exc, "orig", None), "sqlstate", None) == "55P03":  # lock_not_available
                raise StorageError(Problem(self.url, f"cannot {doing}: another process held the study lock for over {self.lock_timeout:g} s; "
                                                     "check for a stuck `python -m infact` or app process")) from exc
            raise StorageError(Problem(self.url, f"cannot {doing}: {_reason(exc, self._password)}; check that the database "
                                                 "server is running and reachable from this machine and that host, port, "
                                                 f"user and password are right — {SECRETS_HINT}")) from exc
        except sa_exc.DBAPIError as exc:
            raise StorageError(Problem(self.url, f"cannot {doing}: {_reason(exc, self._password)}; the database user needs "
                                                 "rights to create and write this table (or pass a schema it owns)")) from exc
        except sa_exc.SQLAlchemyError as exc:  # e.g. every pooled connection busy
            raise StorageError(Problem(self.url, f"cannot {doing}: {_reason(exc, self._password)}")) from exc

    # -- protocol ------------------------------------------------------------
    @staticmethod
    def _row(record: dict) -> dict:
        check_record(record)
        return {"key": str(record["key"]), "study": str(record["study"]), "participant": str(record["participant"]),
                "kind": str(record["kind"]), "data": record}

    def append(self, record: dict) -> bool:
        row = self._row(record)
        with self._errors(f"save record {row['key']!r}"):
            with self._auto.connect() as conn:
                return conn.execute(self._insert, row).first() is not None

    def append_many(self, records: Iterable[dict], batch: int = 500) -> int:
        """Append many records in few round trips (migrations); returns how many were new."""
        rows = [self._row(r) for r in records]
        added = 0
        stmt = self._insert
        with self._errors("save records"):
            for start in range(0, len(rows), batch):
                with self._engine.begin() as conn:
                    added += len(conn.execute(stmt, rows[start:start + batch]).all())
        return added

    def records(self, *, study=None, participant=None, kind=None) -> list[dict]:
        t = self.table
        query = sa.select(t.c.data).order_by(t.c.id)
        for column, value in (("study", study), ("participant", participant), ("kind", kind)):
            if value is not None:
                query = query.where(t.c[column] == str(value))
        with self._errors("read records"):
            with self._auto.connect() as conn:
                return list(conn.execute(query).scalars())  # freshly decoded: already copies

    def arrival_by_platform_id(self, study: str, platform_id: str) -> dict | None:
        """See infact.storage.Storage; one indexed lookup (`<table>_platform_ix`)."""
        pid = platform_key(platform_id)
        if pid is None:
            return None
        t = self.table
        query = (sa.select(t.c.data).where(t.c.study == str(study), t.c.kind == "arrival",
                                           self._platform_expr() == pid).order_by(t.c.id))
        with self._errors("look up a platform ID"):
            with self._auto.connect() as conn:
                # previews are few: filtered here, so the index expression stays simple
                return next((d for d in conn.execute(query).scalars() if indexed_arrival(d) == pid), None)

    def problems(self) -> list[dict]:
        return []  # a database refuses damaged rows at write time: nothing to set aside

    def purge(self, participant: str) -> int:
        """Delete every record of one participant (withdrawal with deletion); returns how many."""
        t = self.table
        with self._errors(f"delete the records of {participant!r}"):
            with self._engine.begin() as conn:
                return conn.execute(sa.delete(t).where(t.c.participant == str(participant))).rowcount

    def changes(self, cursor: Any = None) -> tuple[list[dict], Any]:
        """PostgreSQL cursor: (horizon, ids of rows at or above it already returned).

        Rows below the horizon (the oldest transaction still running) are all visible;
        rows above it that are already committed are returned too — an assignment
        committed just now must reach the next assigner at once — and their ids are
        remembered so the next call, which starts again from the old horizon, skips them.
        """
        t = self.table
        start, returned = self._parse_cursor(cursor)
        with self._errors("read new records"):
            with self._auto.connect() as conn:
                if self.dialect != "postgresql":  # SQLite commits one writer at a time: ids are in commit order
                    rows = conn.execute(sa.select(t.c.id, t.c.data).where(t.c.id > start).order_by(t.c.id)).all()
                    return [r.data for r in rows], (rows[-1].id if rows else start)
                horizon = conn.execute(sa.text("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint")).scalar_one()
                rows = conn.execute(sa.select(t.c.id, t.c.txid, t.c.data).where(t.c.txid >= start)
                                    .order_by(t.c.id)).all()
        horizon = max(horizon, start)
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
            raise StorageError(Problem(self.url, f"another thread held the study lock for over {self.lock_timeout:g} s"))
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
        with self._errors("take the study lock"):
            conn = self._engine.connect()
            try:
                with conn.begin():  # SET LOCAL: the timeout must not stick to a pooled connection
                    conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{int(self.lock_timeout * 1000)}ms'")
                    # Session-level: held after this transaction, until unlock or disconnect
                    # (a crashed process releases it).
                    conn.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": self._lock_id})
            except BaseException:
                conn.invalidate()
                conn.close()
                raise
            self._lock_conn = conn

    def _release_shared_lock(self) -> None:
        if self.dialect != "postgresql":
            if self._file_lock is not None:
                self._file_lock.release()
            return
        conn, self._lock_conn = self._lock_conn, None
        try:
            conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": self._lock_id})
            conn.commit()
        except sa_exc.SQLAlchemyError:
            conn.invalidate()  # closing the session releases the lock on the server
        finally:
            conn.close()

    def drop(self) -> None:
        """Delete the table (and the schema, if one was given) with every record in it."""
        with self._errors("drop the answers table"):
            with self._engine.begin() as conn:
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
            self._engine.dispose()

    def __enter__(self) -> "SQLStorage":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLStorage({self.url!r}, schema={self.schema!r}, table={self.table_name!r})"
