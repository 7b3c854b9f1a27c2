"""Pair scheduling: balanced spreads pairs evenly; adaptive settles the ranking with fewer votes."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from infact.scheduling import pairs as ps
from simulations.schedule import sequential_study
from tests.support.participants import submit_consent

SYSTEMS = ["A", "B", "C", "D"]


def test_balanced_gives_every_pair_equally_often_in_random_sides():
    rng = random.Random(0)
    votes: list = []
    lefts = Counter()
    for _ in range(10):
        for left, right in ps.choose_pairs(SYSTEMS, votes, 6, mode="balanced", rng=rng):
            votes.append((left, right, left))
            lefts[left] += 1
    counts = Counter(tuple(sorted(v[:2])) for v in votes)
    assert len(counts) == 6 and set(counts.values()) == {10}
    assert min(lefts.values()) > 5  # sides are shuffled, not fixed by name


def test_balanced_counts_pending_reservations():
    rng = random.Random(1)
    pending = [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D")]
    (pair,) = ps.choose_pairs(SYSTEMS, [], 1, mode="balanced", rng=rng, pending=pending)
    assert sorted(pair) == ["C", "D"]


def test_adaptive_is_balanced_until_every_pair_has_a_few_votes():
    rng = random.Random(2)
    votes = [(a, b, a) for a, b in ps.all_pairs(SYSTEMS)]  # one vote per pair
    picks = ps.choose_pairs(SYSTEMS, votes, 6, mode="adaptive", rng=rng)
    assert sorted(tuple(sorted(p)) for p in picks) == ps.all_pairs(SYSTEMS)


def test_adaptive_spends_votes_on_adjacent_ranks_not_on_a_clear_mismatch():
    theta = np.array([3.0, 0.1, 0.0, -3.0])
    pairs = np.array([[0, 1], [0, 3], [1, 2], [2, 3]])
    picks = ps.adaptive_picks(theta, 0.3, np.full(4, 20.0), pairs, 30)
    # A vs D (not neighbours) is never asked; A–B and C–D, whose differences are the least
    # certain after 20 votes each (far apart, each vote tells little), get the votes
    assert set(picks) == {0, 3}


@pytest.mark.slow
def test_adaptive_settles_the_ranking_with_at_least_25_percent_fewer_votes():
    # Six planted strengths with ties; votes until every adjacent-rank difference's 95%
    # interval is at most 0.6 wide. Width: the participant-cluster sandwich, the closed form of
    # the bootstrap intervals analyze reports (bench/ranking_adaptive.py uses the bootstrap itself).
    balanced = adaptive = 0
    for seed in range(4):
        balanced += sequential_study("balanced", 0.6, seed, width="robust")
        adaptive += sequential_study("adaptive", 0.6, seed, width="robust")
    assert adaptive <= 0.75 * balanced


def test_inflation_moves_votes_to_the_contrast_whose_reported_interval_is_wider():
    theta = np.array([0.9, 0.3, -0.3, -0.9])
    pairs = np.array([[0, 1], [1, 2], [2, 3], [0, 2], [1, 3], [0, 3]])
    plain = Counter(ps.adaptive_picks(theta, 0.5, np.full(6, 30.0), pairs, 40))
    wider = Counter(ps.adaptive_picks(theta, 0.5, np.full(6, 30.0), pairs, 40, inflation=np.array([1.0, 1.0, 1.6])))
    assert abs(plain[0] - plain[2]) <= 1  # symmetric strengths: the two ends alike
    assert wider[2] > plain[2] and wider[0] < plain[0]


def test_choose_pairs_takes_votes_with_or_without_the_participant():
    rng = random.Random(4)
    votes = [(a, b, w) for a, b in ps.all_pairs(SYSTEMS) for w in (a, b, "tie", a)]
    with_who = [(*v, f"p{i // 3}") for i, v in enumerate(votes)]
    for given in (votes, with_who):  # live arena passes three, the app four
        picks = ps.choose_pairs(SYSTEMS, given, 5, mode="adaptive", rng=rng)
        assert len(picks) == 5 and all(a != b and {a, b} <= set(SYSTEMS) for a, b in picks)


def test_simultaneous_arrivals_in_an_adaptive_study_count_each_others_pairs(tmp_path, monkeypatch):
    from infact.participation.bots import run_bots
    from infact.participation.flow import Flow
    from infact.participation.protocols import History
    from infact.storage import MemoryStorage
    from infact.study.loader import load_study
    from tests.support.studies import FakeClock, make_study

    study = load_study(
        make_study(
            tmp_path,
            systems=("Alpha", "Beta", "Gamma", "Delta"),
            per_participant=5,
            protocol={"kind": "pairwise", "pairs": "adaptive"},
        )
    )
    storage = MemoryStorage()
    run_bots(study, storage, 12, strategy="attentive", seed=8, start=FakeClock()())
    calls = []
    real = ps.choose_pairs
    monkeypatch.setattr(ps, "choose_pairs", lambda *a, **kw: calls.append(Counter(kw["pending"])) or real(*a, **kw))
    flow = Flow(study, storage, clock=FakeClock())
    handed = []
    for _ in range(3):  # three consents before anyone answers
        token = flow.arrive({})
        submit_consent(flow, token)
        steps = next(r for r in storage.records(participant=token) if r["kind"] == "assignment")["steps"]
        handed.append(Counter(tuple(sorted(s["order"])) for s in steps if not s.get("attention_check")))
    # each arrival's scheduler call sees the pairs handed to the ones before (all bots' pairs were voted)
    assert calls == [Counter(), handed[0], handed[0] + handed[1]]
    history = History.of(storage.records(study=study.id), study.id)
    assert Counter(history.pending("pairwise")) == handed[0] + handed[1] + handed[2]


def test_pending_pairs_change_the_adaptive_picks():
    rng = random.Random(0)
    votes = [
        (a, b, w, f"p{i}")
        for i, (a, b, w) in enumerate((a, b, w) for a, b in ps.all_pairs(SYSTEMS) for w in (a, b, "tie", a, b, a))
    ]
    first = [tuple(sorted(p)) for p in ps.choose_pairs(SYSTEMS, votes, 4, mode="adaptive", rng=rng)]
    again = [tuple(sorted(p)) for p in ps.choose_pairs(SYSTEMS, votes, 4, mode="adaptive", rng=rng)]
    after = [tuple(sorted(p)) for p in ps.choose_pairs(SYSTEMS, votes, 4, mode="adaptive", rng=rng, pending=first * 3)]
    assert Counter(first) == Counter(again)  # the same votes, the same picks
    assert Counter(after) != Counter(first)  # pairs others are working on count as compared


def test_pairs_of_participants_who_left_or_withdrew_are_free_again(tmp_path):
    """Adaptive mode: a pair counts as being worked on only while its participant's lease runs."""
    from infact.participation.flow import Flow
    from infact.participation.protocols import History
    from infact.storage import MemoryStorage
    from infact.study.loader import load_study
    from tests.support.studies import FakeClock, make_study

    study = load_study(
        make_study(
            tmp_path,
            systems=("Alpha", "Beta", "Gamma", "Delta"),
            per_participant=5,
            protocol={"kind": "pairwise", "pairs": "adaptive"},
        )
    )
    storage, clock = MemoryStorage(), FakeClock()
    flow = Flow(study, storage, clock=clock)
    tokens = []
    for _ in range(2):
        token = flow.arrive({})
        submit_consent(flow, token)
        tokens.append(token)
    history = History.for_store(storage, study.id)
    working = Counter(history.current(clock()).pending("pairwise"))
    assert sum(working.values()) == 2 * (study.config.regular_per_participant)
    flow.withdraw(tokens[0])
    left_one = Counter(history.current(clock()).pending("pairwise"))
    assert sum(left_one.values()) == study.config.regular_per_participant  # the withdrawn one's pairs are free
    clock.advance(study.config.assignment.lease_minutes * 60 + 1)
    assert history.current(clock()).pending("pairwise") == []  # the lease ran out: nobody is working
    assert len(history.assigned("pairwise")) == 2 * study.config.regular_per_participant  # still handed out
