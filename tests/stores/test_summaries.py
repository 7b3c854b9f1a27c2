"""Participant summaries (infact.stores.summary): the dashboard's first numbers come from
them, so on every store they must equal the same facts folded from every record — after
withdrawals, purges, previews, damaged summary files and shards written behind the
store's back."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from infact.participation.bots import STRATEGIES, run_bots
from infact.participation.flow import Flow
from infact.results.quality import funnel
from infact.storage import TinyDBStorage
from infact.stores.summary import fold, light
from infact.study.loader import load_study
from tests.support.participants import START, submit_consent
from tests.support.studies import make_study


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return load_study(make_study(tmp_path_factory.mktemp("summary"), study={"delete_on_withdraw": True}))


def play(study, storage) -> None:
    """Every bot strategy, a preview, a visit without consent, a withdrawal with deletion
    and one with a later re-arrival of nobody: the funnel's every stage."""
    for i, strategy in enumerate(STRATEGIES):
        run_bots(study, storage, 2, strategy=strategy, seed=i, start=START)
    flow = Flow(study, storage, clock=lambda: START)
    flow.arrive({})
    flow.arrive({}, preview=True)
    gone = flow.arrive({})
    submit_consent(flow, gone)
    flow.withdraw(gone, "changed my mind")  # delete_on_withdraw: purged, a tombstone stays


def assert_same_as_records(study, storage) -> None:
    from_records = funnel.progress_from_records(storage.records(study=study.id))
    from_store = funnel.progress_from_store(storage, study.id)
    assert from_store == from_records
    for minutes in (1, 3 * 60):
        now = START + timedelta(minutes=minutes)
        assert funnel.stage_counts(from_store, now) == funnel.stage_counts(from_records, now)


def test_summaries_equal_the_fold_of_every_record_on_every_store(study, storage):
    play(study, storage)
    assert_same_as_records(study, storage)
    # the bots counted with the people (a store with people otherwise counts them apart)
    counts = funnel.funnel_counts(
        funnel.progress_table(funnel.progress_from_store(storage, study.id), START, bots=True)
    )
    assert counts["withdrawn"] == 1 and counts["visited"] == 2 * len(STRATEGIES) + 2 and counts["completed"] > 0


def test_the_light_fields_are_all_the_fold_reads(study, storage):
    play(study, storage)
    records = storage.records()
    assert fold(map(light, records)) == fold(records)


def test_stale_missing_or_damaged_summary_files_are_rebuilt_from_the_shards(study, tmp_path):
    store = TinyDBStorage(tmp_path / "db")
    play(study, store)
    files = sorted(store.summary_files.folder.glob("*.json"))
    assert {f.name for f in files} == {f.name for f in store.shards.glob("*.json")}
    files[0].unlink()  # a store from before summaries
    files[1].write_bytes(b"\x00garbage")  # a torn write
    victim = files[2].name[: -len(".json")]  # a shard replaced behind the store's back
    shard = store.shards / f"{victim}.json"
    shard.write_text(
        shard.read_text(encoding="utf-8")
        .replace('"kind": "complete"', '"kind": "completed-no"')
        .replace('"kind":"complete"', '"kind":"completed-no"'),
        encoding="utf-8",
    )
    fresh = TinyDBStorage(tmp_path / "db")  # a new server: nothing cached
    assert_same_as_records(study, fresh)
    for f in files[:3]:  # rewritten for the next reader
        assert f.exists() and f.read_bytes().startswith(b"{")
    stamp = os.stat(files[2]).st_mtime_ns
    funnel.progress_from_store(fresh, study.id)
    assert os.stat(files[2]).st_mtime_ns == stamp  # now fresh: read, not rebuilt


def test_a_damaged_shard_is_set_aside_not_summarised(study, tmp_path):
    store = TinyDBStorage(tmp_path / "db")
    run_bots(study, store, 2, strategy="attentive", seed=1, start=START)
    (store.shards / "broken.json").write_text("{not json", encoding="utf-8")
    progress = funnel.progress_from_store(TinyDBStorage(tmp_path / "db"), study.id)
    assert len(progress) == 2 and [p["file"] for p in store.problems()] == ["broken.json"]


def test_live_chat_records_are_in_the_summaries_too(tmp_path):
    """Chat records live in the store's chat log, not the shards: their activity still counts."""
    from infact.stores.config import REPO

    live = load_study(REPO / "data" / "demo-live")
    store = TinyDBStorage(tmp_path / "db")
    run_bots(live, store, 2, strategy="attentive", seed=3, start=START)
    chat = store.chat_log.all_records()[-1]
    later = {k: v for k, v in chat.items() if k not in ("answered_at", "shown_at")}
    store.append({**later, "key": chat["key"] + "-later", "at": "2030-01-01T00:00:00.000+00:00"})  # chatting now
    assert_same_as_records(live, TinyDBStorage(tmp_path / "db"))
    assert funnel.progress_from_store(store, live.id)[chat["participant"]].last_stamp.startswith("2030")


def test_sql_rows_from_before_the_light_column_give_the_same_summaries(study, pg, pg_url):
    """A table made before `light` gets the column when opened; its old rows (NULL there)
    are read from `data`, and the summaries still equal the fold of every record."""
    import sqlalchemy as sa

    from infact.stores.sql.store import SQLStorage

    play(study, pg)
    table = f'"{pg.schema}"."{pg.table_name}"'
    with pg.engine.begin() as conn:
        conn.execute(sa.text(f"ALTER TABLE {table} DROP COLUMN light"))
    reopened = SQLStorage(pg_url, schema=pg.schema)  # adds the column back, empty
    with reopened.engine.begin() as conn:
        assert conn.execute(sa.text(f"SELECT count(light) FROM {table}")).scalar() == 0
    run_bots(study, reopened, 1, strategy="attentive", seed=99, start=START)  # new rows fill it
    with reopened.engine.begin() as conn:
        assert conn.execute(sa.text(f"SELECT count(light) FROM {table}")).scalar() > 0
    assert_same_as_records(study, reopened)
    reopened.close()


def test_the_situation_load_starts_from_the_summaries_and_continues_from_the_store(study, storage, monkeypatch):
    """A server's first consent reads the summaries, not every record (infact.participation.
    situation_load), and later records still arrive through the change cursor they came with."""
    from infact.participation import assignment
    from infact.participation.situation_load import SituationLoad

    play(study, storage)
    if isinstance(storage, TinyDBStorage):
        fresh = TinyDBStorage(storage.path)  # a restarted server: nothing cached
        read = []
        monkeypatch.setattr(fresh, "_read_shard", lambda name: read.append(name) or [])
    else:
        fresh, read = storage, []
    load = SituationLoad(fresh, study.id)
    now = START + timedelta(minutes=1)
    assert load.current(now) == assignment.load(study, storage.records(), now)
    assert read == []  # no participant file was parsed
    monkeypatch.undo()
    flow = Flow(study, storage, clock=lambda: START)  # another process goes on storing
    late = flow.arrive({})
    submit_consent(flow, late)
    run_bots(study, storage, 1, strategy="attentive", seed=77, start=START)
    for minutes in (2, 3 * 60):
        now = START + timedelta(minutes=minutes)
        answered, reserved = load.current(now)
        expected = assignment.load(study, storage.records(), now)
        assert (+answered, +reserved) == (+expected[0], +expected[1]), f"after {minutes} min"
    assert sum(expected[0].values()) > 0
