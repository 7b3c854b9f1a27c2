"""The refreshing dashboard's record cache reads only what changed."""

from infact.stores.feed import FeedRecords


def _rec(p, what, study="s"):
    return {"key": f"{study}/{p}/{what}", "study": study, "participant": p, "kind": "x"}


def test_refresh_picks_up_new_records_only_once(storage):
    live = FeedRecords(storage, "s")
    storage.append(_rec("p1", "a"))
    recs, v1 = live.refresh()
    assert [r["key"] for r in recs] == ["s/p1/a"]
    recs, v2 = live.refresh()
    assert len(recs) == 1 and v2 == v1  # nothing new: same version, no duplicates
    storage.append(_rec("p2", "a"))
    storage.append(_rec("p3", "a", study="other"))
    recs, v3 = live.refresh()
    assert sorted(r["key"] for r in recs) == ["s/p1/a", "s/p2/a"]
    assert v3 == v1 + 1


def test_refresh_does_not_reread_unchanged_shards(tmp_path, monkeypatch):
    from infact.storage import TinyDBStorage

    store = TinyDBStorage(tmp_path / "db")
    for i in range(5):
        store.append(_rec(f"p{i}", "a"))
    live = FeedRecords(store, "s")
    live.refresh()
    reads = []
    original = store._read_shard
    monkeypatch.setattr(store, "_read_shard", lambda name: reads.append(name) or original(name))
    store.append(_rec("p2", "b"))
    reads.clear()
    recs, _ = live.refresh()
    assert len(recs) == 6
    # every shard is stat'ed, but only the changed one is parsed again
    from infact.stores.tinydb.files import AtomicJSONStorage

    parsed = []
    monkeypatch.setattr(AtomicJSONStorage, "read", lambda self: parsed.append(self.path.name) or {})
    live.refresh()
    assert parsed == []
