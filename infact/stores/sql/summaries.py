"""Participant summaries on the SQL store: the funnel's facts without reading every rating.

Every row keeps, beside the record (`data`), its few fields the funnel reads (`light`:
infact.stores.summary.LIGHT_FIELDS, ~150 bytes). The records with ratings are tens of
kilobytes of JSONB stored out of line (TOAST): reading `light` instead of `data` leaves
them on disk. Rows stored before the column existed get the same fields extracted from
`data` (slower, same result).

Half of all records are `shown` (a page was displayed); the fold reads only their time
(the newest is the last activity) and the preview mark, so PostgreSQL sends one row per
participant for them: the newest time and whether any was a preview. `tests/
test_participant_summaries.py` checks on a real server that this equals the fold of
every record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects.postgresql import aggregate_order_by

from infact.stores.summary import LIGHT_FIELDS, ParticipantSummary, fold, gc_paused


class SQLStorage(Protocol):
    """What the summaries need of the SQL store (infact.stores.sql.store.SQLStorage, which imports this module)."""

    dialect: str
    schema: str | None
    table: sa.Table
    table_name: str
    engine: sa.Engine

    def errors(self, doing: str) -> AbstractContextManager: ...

    def run(self, doing: str, work: Callable, *, transaction: bool = False) -> Any: ...


S = TypeVar("S", bound=ParticipantSummary)
JSONB = pg_dialect.JSONB


def add_light_column(conn: sa.Connection, store: SQLStorage) -> None:
    """Give a table made before the `light` column that column (its old rows stay NULL)."""
    columns = {c["name"] for c in sa.inspect(conn).get_columns(store.table_name, schema=store.schema)}
    if "light" not in columns:
        table = f'"{store.schema}"."{store.table_name}"' if store.schema else f'"{store.table_name}"'
        kind = "jsonb" if store.dialect == "postgresql" else "JSON"
        conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN light {kind}"))


def summaries(store: SQLStorage, study: str, cls: type[S] = ParticipantSummary) -> dict[str, S]:
    return _fold(store.run("read participant summaries", lambda conn: _read(store, conn, study)), study, cls)


def summaries_since(store: SQLStorage, study: str, cls: type[S] = ParticipantSummary) -> tuple[dict[str, S], Any]:
    """`summaries`, and a `changes()` cursor that continues after them: both from one snapshot
    (REPEATABLE READ), so what it misses is exactly what commits after it."""
    t = store.table
    with store.errors("read participant summaries"), store.engine.connect() as conn:
        if store.dialect == "postgresql":
            conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            if store.dialect == "postgresql":
                horizon = conn.execute(sa.text("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint")).scalar()
            data = _read(store, conn, study)
            if store.dialect == "postgresql":  # SQLStorage.changes: (horizon, ids at or above it already seen)
                cursor: Any = (horizon, frozenset(conn.execute(sa.select(t.c.id).where(t.c.txid >= horizon)).scalars()))
            else:  # SQLite: ids are in commit order
                cursor = conn.execute(sa.select(sa.func.max(t.c.id))).scalar() or 0
    return _fold(data, study, cls), cursor


def _read(store: SQLStorage, conn: sa.Connection, study: str) -> tuple:
    t = store.table
    mine = t.c.study == str(study)
    if store.dialect != "postgresql":  # SQLite: a single-machine store, the plain fold
        rows = conn.execute(sa.select(sa.func.coalesce(t.c.light, t.c.data)).where(mine).order_by(t.c.id)).scalars()
        return [r if isinstance(r, dict) else json.loads(r) for r in rows], []
    built = sa.func.jsonb_build_object(*[part for name in LIGHT_FIELDS for part in (name, t.c.data[name])], type_=JSONB)
    light = sa.type_coerce(sa.func.coalesce(t.c.light, built), JSONB)
    # One JSON array as text, parsed by orjson: several times faster than a decoded row per record.
    others = sa.select(
        sa.func.string_agg(sa.cast(light, sa.Text), aggregate_order_by(sa.literal_column("','"), t.c.id))
    ).where(mine, t.c.kind != "shown")
    # The same order as the fold's `answered_at or shown_at or at`, compared as text byte by byte
    # (COLLATE "C") as Python compares the ISO strings.
    stamp = sa.func.coalesce(light["answered_at"].astext, light["shown_at"].astext, light["at"].astext)
    shown = (
        sa.select(
            t.c.participant,
            sa.func.max(stamp.collate("C")),
            sa.func.bool_or(sa.func.coalesce(light["preview"].astext.cast(sa.Boolean), False)),
        )
        .where(mine, t.c.kind == "shown")
        .group_by(t.c.participant)
    )
    return conn.execute(others).scalar(), conn.execute(shown).all()


def _fold(data: tuple, study: str, cls: type[S]) -> dict[str, S]:
    rows, pages = data
    latest = [
        {"study": str(study), "participant": p, "kind": "shown", "shown_at": at, "preview": preview}
        for p, at, preview in pages
    ]
    with gc_paused():
        if isinstance(rows, str) or rows is None:  # PostgreSQL's one JSON text
            rows = orjson.loads(f"[{rows or ''}]")
        return fold([*rows, *latest], cls).get(str(study), {})
