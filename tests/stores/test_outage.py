"""The outage tracker (infact/stores/outage.py): one log line per outage however many requests meet it, one
when it ends, and the outage stored once it is over (kept for later while the store is still away)."""

from __future__ import annotations

import logging
import threading

from infact.stores.memory import MemoryStorage
from infact.stores.outage import KIND, RESEARCHER, Outage, stored_outages
from infact.stores.records import StoreUnavailable


def test_one_line_per_outage_from_many_threads_and_one_when_it_ends(caplog):
    caplog.set_level(logging.INFO, logger="infact.stores.outage")
    now = [1000.0]
    tracker = Outage(clock=lambda: now[0])
    down = StoreUnavailable("postgresql://infact:***@db/x: cannot read records: connection refused")
    threads = [threading.Thread(target=tracker.failed, args=(down,)) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.levelno for r in caplog.records] == [logging.ERROR]
    assert "connection refused" in caplog.records[0].getMessage() and "***" in caplog.records[0].getMessage()
    assert tracker.active and tracker.status().failures == 50
    now[0] += 8
    over = tracker.succeeded()
    assert over.seconds == 8 and over.failures == 50 and not tracker.active
    assert tracker.succeeded() is None  # nothing more to end: no second line
    assert [r.levelno for r in caplog.records] == [logging.ERROR, logging.WARNING]
    tracker.failed(OSError(5, "Input/output error"))  # a new outage: logged again
    assert [r.levelno for r in caplog.records][-1] == logging.ERROR and len(caplog.records) == 3


class Flaky(MemoryStorage):
    def __init__(self):
        super().__init__()
        self.down = False

    def append(self, record):
        if self.down:
            raise StoreUnavailable("down")
        return super().append(record)


def test_an_outage_is_stored_once_over_and_kept_while_the_store_refuses_it():
    now = [0.0]
    tracker, store = Outage(clock=lambda: now[0]), Flaky()
    tracker.failed(OSError(5, "Input/output error"))
    now[0] = 12.5
    tracker.succeeded()
    store.down = True
    tracker.store_ended(store, "demo")  # the store went away again: kept, not lost, not logged
    assert stored_outages(store, "demo") == []
    store.down = False
    tracker.store_ended(store, "demo")
    tracker.store_ended(store, "demo")  # stored once
    [record] = stored_outages(store, "demo")
    assert record["participant"] == RESEARCHER and record["kind"] == KIND
    assert record["seconds"] == 12.5 and record["failed_requests"] == 1
    assert record["started_at"].startswith("1970-01-01T00:00:00") and record["ended_at"].startswith(
        "1970-01-01T00:00:12"
    )
