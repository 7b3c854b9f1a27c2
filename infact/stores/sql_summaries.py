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
from typing import TYPE_CHECKING, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects.postgresql import aggregate_order_by

from infact.stores.summary import LIGHT_FIELDS, ParticipantSummary, fold, gc_paused

if TYPE_CHECKING:
    from infact.stores.sql import SQLStorage

S = TypeVar("S", bound=ParticipantSummary)
JSONB = pg_dialect.JSONB


def add_light_column(conn: sa.Connection, store: "SQLStorage") -> None:
    """Give a table made before the `light` column that column (its old rows stay NULL)."""
    columns = {c["name"] for c in sa.inspect(conn).get_columns(store.table_name, schema=store.schema)}
    if "light" not in columns:
        table = f'"{store.schema}"."{store.table_name}"' if store.schema else f'"{store.table_name}"'
        kind = "jsonb" if store.dialect == "postgresql" else "JSON"
        conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN light {kind}"))


def summaries(store: "SQLStorage", study: str, cls: type[S] = ParticipantSummary) -> dict[str, S]:
    t = store.table
    if store.dialect != "postgresql":  # SQLite: a single-machine store, the plain fold
        query = sa.select(sa.func.coalesce(t.c.light, t.c.data)).where(t.c.study == str(study)).order_by(t.c.id)
        rows = store._run("read participant summaries", lambda conn: list(conn.execute(query).scalars()))
        return fold((r if isinstance(r, dict) else json.loads(r) for r in rows), cls).get(str(study), {})
    built = sa.func.jsonb_build_object(*[part for name in LIGHT_FIELDS for part in (name, t.c.data[name])], type_=JSONB)
    light = sa.type_coerce(sa.func.coalesce(t.c.light, built), JSONB)
    mine = t.c.study == str(study)
    # One JSON array as text, parsed by orjson: several times faster than a decoded row per record.
    others = sa.select(sa.func.string_agg(sa.cast(light, sa.Text), aggregate_order_by(sa.literal_column("','"), t.c.id))
                       ).where(mine, t.c.kind != "shown")
    # The same order as the fold's `answered_at or shown_at or at`, compared as text byte by byte
    # (COLLATE "C") as Python compares the ISO strings.
    stamp = sa.func.coalesce(light["answered_at"].astext, light["shown_at"].astext, light["at"].astext)
    shown = (sa.select(t.c.participant, sa.func.max(stamp.collate("C")),
                       sa.func.bool_or(sa.func.coalesce(light["preview"].astext.cast(sa.Boolean), False)))
             .where(mine, t.c.kind == "shown").group_by(t.c.participant))

    def read(conn):
        return conn.execute(others).scalar(), conn.execute(shown).all()

    text, pages = store._run("read participant summaries", read)
    latest = ({"study": str(study), "participant": p, "kind": "shown", "shown_at": at, "preview": preview}
              for p, at, preview in pages)
    with gc_paused():
        return fold([*orjson.loads(f"[{text or ''}]"), *latest], cls).get(str(study), {})
