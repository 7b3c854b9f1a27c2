"""Group commit: concurrent callers' writes made durable together, one batch at a time.

Fifty participants chatting at once store a record per message at the same moments.
Made one at a time, every write pays its own durable commit (an fsync, a database
round trip and transaction). Here whoever arrives while a batch is being committed
waits, and the next batch takes every caller waiting: one commit for all of them.
There is no writer thread: a caller that finds its items still waiting and nobody
committing commits the whole queue, its own items included (leader/follower), so an
idle store costs nothing.

Each caller returns only once its own items are committed, with one result per item
(e.g. whether its key was new). If a batch fails, every caller in it gets the error:
the commit function must then have stored none of the batch. The PostgreSQL store
batches reads of one participant's records the same way (infact.stores.sql.fast).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass
class _Pending(Generic[T]):
    item: T
    taken: bool = False  # in a batch being committed
    done: bool = False
    result: Any = None
    error: BaseException | None = None


class GroupCommit(Generic[T]):
    def __init__(self, commit: Callable[[list[T]], list[Any]]) -> None:
        """`commit(items)` writes a batch durably and returns one result per item, in order.
        One batch at a time: in bench/live.py two at once (PostgreSQL) only added transactions."""
        self._commit = commit
        self._cond = threading.Condition()
        self._pending: list[_Pending[T]] = []
        self._committing = False
        self.batches = 0  # batches committed or failed, for tests and benchmarks

    def submit(self, items: list[T]) -> list[Any]:
        """Commit `items` in this order and in one batch (never a later one without the earlier ones)."""
        mine = [_Pending(it) for it in items]
        if not mine:
            return []
        with self._cond:
            self._pending.extend(mine)
            while not mine[-1].done:
                if mine[-1].taken or self._committing:
                    self._cond.wait()
                    continue
                # This caller commits everything waiting, its own items included.
                self._committing = True
                batch, self._pending = self._pending, []
                for p in batch:
                    p.taken = True
                self._cond.release()
                try:
                    self._run(batch)
                finally:
                    self._cond.acquire()
                    for p in batch:
                        p.done = True
                    self.batches += 1
                    self._committing = False
                    self._cond.notify_all()
        for p in mine:
            if p.error is not None:
                raise p.error
        return [p.result for p in mine]

    def _run(self, batch: list[_Pending[T]]) -> None:
        """Commit one batch (outside the condition's lock); every caller in it gets a result or the error."""
        try:
            results = self._commit([p.item for p in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"group commit: {len(results)} results for {len(batch)} items")
            for p, result in zip(batch, results):
                p.result = result
        except BaseException as exc:
            for p in batch:
                p.error = exc
