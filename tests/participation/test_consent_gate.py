"""Consents are bounded as visits are (issue 29 item 6): per source and per process, a minute at a time."""

from __future__ import annotations

from infact.participation import visits
from infact.participation.visits import ConsentGate


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_one_source_gets_its_allowance_a_minute_and_others_are_not_held_up():
    clock = Clock()
    gate = ConsentGate(per_source=3, per_minute=100, clock=clock)
    assert [gate.admit("198.51.100.1") for _ in range(5)] == [True, True, True, False, False]
    assert gate.admit("198.51.100.2")  # another address is not held up
    clock.now = 59.0
    assert not gate.admit("198.51.100.1")  # refused ones took no room, but the minute is not over
    clock.now = 60.0
    assert gate.admit("198.51.100.1")  # the first three have left the window
    assert gate.refused == 3


def test_the_process_bound_holds_whatever_the_sources():
    clock = Clock()
    gate = ConsentGate(per_source=3, per_minute=10, clock=clock)
    admitted = sum(gate.admit(f"203.0.113.{i}") for i in range(50))  # forged X-Forwarded-For: a new source each
    assert admitted == 10
    clock.now = 61.0
    assert gate.admit("203.0.113.99")


def test_zero_means_no_bound_and_the_environment_sets_them(monkeypatch):
    assert all(ConsentGate(per_source=0, per_minute=0).admit("x") for _ in range(500))
    monkeypatch.setenv("INFACT_CONSENTS_PER_SOURCE", "2")
    monkeypatch.setenv("INFACT_CONSENTS_PER_MINUTE", "nonsense")
    gate = ConsentGate()
    assert (gate.per_source, gate.per_minute) == (2, visits.CONSENTS_PER_MINUTE)
