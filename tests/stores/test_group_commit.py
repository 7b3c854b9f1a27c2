"""Group commit (infact/stores/group_commit.py) without a database: who commits, what each caller gets."""

from __future__ import annotations

import threading

import pytest

from infact.stores.group_commit import GroupCommit


class Gate:
    """A commit function whose first call waits until released, so later callers pile up behind it."""

    def __init__(self, fail_on=None):
        self.batches: list[list] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.fail_on = fail_on

    def __call__(self, items: list) -> list:
        self.batches.append(list(items))
        if len(self.batches) == 1:
            self.entered.set()
            assert self.release.wait(10)
        if self.fail_on is not None and self.fail_on in items:
            raise OSError(f"disk refused {self.fail_on}")
        return [f"ok:{it}" for it in items]


def start(fn, *args) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run():
        try:
            out["result"] = fn(*args)
        except BaseException as exc:
            out["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    return t, out


def pile_up(group: GroupCommit, gate: Gate, items: list) -> list[tuple[threading.Thread, dict]]:
    """One caller commits 'first' and is held; `items` arrive meanwhile, one caller each."""
    first = start(group.submit, ["first"])
    assert gate.entered.wait(10)
    waiting = [start(group.submit, [it]) for it in items]
    while len(group._pending) < len(items):  # every caller is queued behind the held commit
        threading.Event().wait(0.001)
    gate.release.set()
    for t, _ in [first, *waiting]:
        t.join(10)
    assert first[1] == {"result": ["ok:first"]}
    return waiting


def test_callers_arriving_during_a_commit_share_the_next_one_and_get_their_own_results():
    gate = Gate()
    group = GroupCommit(gate)
    waiting = pile_up(group, gate, [f"r{i}" for i in range(12)])
    assert [out for _, out in waiting] == [{"result": [f"ok:r{i}"]} for i in range(12)]
    assert len(gate.batches) == 2 and sorted(gate.batches[1]) == sorted(f"r{i}" for i in range(12))
    assert group.batches == 2


def test_a_failed_batch_fails_every_caller_in_it_and_the_next_batch_is_committed():
    gate = Gate(fail_on="bad")
    group = GroupCommit(gate)
    waiting = pile_up(group, gate, ["good1", "bad", "good2"])
    for _, out in waiting:
        assert isinstance(out.get("error"), OSError) and "disk refused bad" in str(out["error"])
    assert group.submit(["good1"]) == ["ok:good1"]  # a later batch is not poisoned


def test_items_submitted_together_stay_together_and_in_order():
    gate = Gate()
    group = GroupCommit(gate)
    first = start(group.submit, ["first"])
    assert gate.entered.wait(10)
    together = start(group.submit, ["answer", "end"])
    other = start(group.submit, ["other"])
    while len(group._pending) < 3:
        threading.Event().wait(0.001)
    gate.release.set()
    for t, _ in (first, together, other):
        t.join(10)
    assert together[1] == {"result": ["ok:answer", "ok:end"]}
    batch = gate.batches[1]
    assert batch.index("end") == batch.index("answer") + 1


def test_a_commit_returning_the_wrong_number_of_results_is_an_error():
    group = GroupCommit(lambda items: [])
    with pytest.raises(RuntimeError, match="0 results for 2 items"):
        group.submit(["a", "b"])
    assert group.submit([]) == []
