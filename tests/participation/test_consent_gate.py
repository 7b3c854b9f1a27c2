"""Consents are bounded as visits are (issue 29 item 6), and nobody is turned away (issue 38): token buckets
per source and per process hold a launch's burst; past them a consent gets a later place, never a refusal."""

from __future__ import annotations

import pytest

from infact.participation import visits
from infact.participation.visits import ConsentGate


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def waits(gate: ConsentGate, sources) -> list[float]:
    return [round(gate.admit(s).wait(), 6) for s in sources]


def test_a_launch_from_one_address_starts_at_once_up_to_the_burst_then_at_the_rate():
    clock = Clock()
    gate = ConsentGate(per_source=30, per_minute=0, burst=100, clock=clock)
    assert waits(gate, ["198.51.100.1"] * 100) == [0.0] * 100  # a class behind one address, at once
    assert waits(gate, ["198.51.100.1"] * 3) == [2.0, 4.0, 6.0]  # then 30 a minute: a place each 2 s
    assert waits(gate, ["198.51.100.2"]) == [0.0]  # another address is not held up
    assert gate.waited == 3


def test_nobody_is_refused_and_a_waiting_place_comes_when_the_bucket_refills():
    clock = Clock()
    gate = ConsentGate(per_source=60, per_minute=0, burst=2, clock=clock)
    places = [gate.admit("x") for _ in range(4)]
    assert [p.wait() for p in places] == [0.0, 0.0, 1.0, 2.0]
    clock.now = 1.5
    assert [p.wait() for p in places] == [0.0, 0.0, 0.0, 0.5]
    clock.now = 60.0  # a quiet minute refills the bucket up to its burst, no further
    assert waits(gate, ["x"] * 3) == [0.0, 0.0, 1.0]


def test_the_process_bucket_holds_whatever_the_sources():
    clock = Clock()
    gate = ConsentGate(per_source=30, per_minute=120, burst=5, clock=clock)  # the process holds 2 x 5
    forged = [f"203.0.113.{i}" for i in range(12)]  # a new source each: only the process bucket binds
    assert waits(gate, forged) == [0.0] * 10 + [0.5, 1.0]  # 120 a minute: a place each 0.5 s
    clock.now = 61.0
    assert waits(gate, ["203.0.113.99"]) == [0.0]


def test_a_place_given_back_goes_to_the_next_one():
    clock = Clock()
    gate = ConsentGate(per_source=60, per_minute=0, burst=1, clock=clock)
    gate.admit("x")
    leaving = gate.admit("x")  # due in 1 s; the tab is closed before
    leaving.give_back()
    assert leaving.wait() == 0.0
    assert waits(gate, ["x"]) == [1.0]  # not 2 s: the place left free was taken


def test_zero_means_no_bound_and_the_environment_sets_them(monkeypatch):
    assert all(ConsentGate(per_source=0, per_minute=0, burst=1).admit("x").wait() == 0 for _ in range(500))
    monkeypatch.setenv("INFACT_CONSENTS_PER_SOURCE", "2")
    monkeypatch.setenv("INFACT_CONSENTS_PER_MINUTE", "nonsense")
    monkeypatch.setenv("INFACT_CONSENT_BURST", "7")
    gate = ConsentGate()
    assert (gate.per_source, gate.per_minute, gate.burst) == (2, visits.CONSENTS_PER_MINUTE, 7)


@pytest.mark.parametrize("n", [100])
def test_the_defaults_start_a_hundred_from_one_address_at_once(n):
    """Issue 38's launch: 100 presses of "Start the study" within seconds, all from one address (the
    bench's loopback, a proxy that forwards no address): nobody waits, let alone is refused."""
    gate = ConsentGate(clock=Clock())
    assert waits(gate, ["local"] * n) == [0.0] * n
