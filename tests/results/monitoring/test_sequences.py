"""`analyze`'s `monitoring` section (infact/results/monitoring/): anytime-valid "settled", `settled_at_votes` in
the order the votes were given, ratings' `settled_at_participants`, and the declared stopping rule."""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.results.monitoring import sequences as mon
from infact.results.monitoring.stopping import stopping
from infact.results.ranking.analysis import analyze_best_worst, analyze_votes
from infact.study.quality_config import MonitoringConfig
from simulations.votes import simulate_votes


def _votes(strengths, n, people, seed, nu=0.0):
    v = simulate_votes(strengths, nu, n, people, seed=seed)
    start = pd.Timestamp("2026-03-02T09:00:00Z")
    return v.assign(answered_at=[(start + pd.Timedelta(seconds=10 * i)).isoformat() for i in range(len(v))])


def _settled_on_prefix(votes: pd.DataFrame, k: int) -> bool:
    return mon.votes_monitoring(votes.iloc[:k])["settled"]


def test_equal_systems_that_the_fixed_interval_calls_settled_are_not_settled_for_a_watcher():
    """Issue 37: a study of two equal systems whose fixed-sample intervals happen to separate at the last look
    (a false "settled" on the old dashboard). The anytime-valid section does not call it settled."""
    for seed in range(200):
        votes = _votes([0.0, 0.0], 600, 30, seed)
        result = analyze_votes(votes, n_boot=200)
        if result["settled"]["settled"]:
            break
    else:
        raise AssertionError("no seed gave a fixed-sample false 'settled'")
    assert result["monitoring"]["settled"] is False
    assert result["monitoring"]["settled_at_votes"] is None


def test_settled_at_votes_is_the_first_vote_after_which_every_neighbour_is_separated():
    votes = _votes([1.2, 0.4, -0.4], 1500, 60, seed=2)
    section = analyze_votes(votes, n_boot=200)["monitoring"]
    at = section["settled_at_votes"]
    assert section["settled"] and section["order"] == ["S1", "S2", "S3"]
    assert at is not None and section["n_votes"] == 1500
    assert _settled_on_prefix(votes, at) and not _settled_on_prefix(votes, at - 1)
    assert section["method"].startswith("confidence sequences")


def test_the_votes_are_taken_in_the_order_they_were_given_not_the_file_order():
    votes = _votes([1.2, 0.4, -0.4], 1500, 60, seed=2)
    shuffled = votes.sample(frac=1.0, random_state=1)
    assert mon.votes_monitoring(shuffled)["settled_at_votes"] == mon.votes_monitoring(votes)["settled_at_votes"]
    without = shuffled.drop(columns="answered_at")  # no times: file order
    assert mon.votes_monitoring(without)["settled_at_votes"] != mon.votes_monitoring(votes)["settled_at_votes"]


def test_a_vote_without_a_time_keeps_its_place_in_the_file():
    df = pd.DataFrame({"answered_at": ["2026-01-01T10:00:05Z", None, "2026-01-01T10:00:01Z", "2026-01-01T10:00:09Z"]})
    # the second row takes the first row's time: after it, and after the row answered at :01
    assert list(mon.given_order(df)) == [2, 0, 1, 3]
    assert list(mon.given_order(pd.DataFrame({"answered_at": [None, None]}))) == [0, 1]


def test_a_chain_of_separated_neighbours_is_the_order_and_a_gap_or_a_cycle_is_none():
    names = ["A", "B", "C"]
    assert mon.chain(names, {(2, 0): True, (0, 1): True}) == ["C", "A", "B"]
    assert mon.chain(names, {(0, 1): True, (0, 2): True}) is None  # B and C not separated
    assert mon.chain(names, {(0, 1): True, (1, 2): True, (2, 0): True}) is None  # a cycle


def test_best_worst_counts_choices():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(400):
        shown = list(rng.permutation(["A", "B", "C", "D"])[:3])
        best, worst = sorted(shown)[0], sorted(shown)[-1]  # always in name order: every pair met, settles early
        rows.append(
            {"participant": f"p{i % 40}", "situation_id": f"s{i}", "criterion": "c", "systems": "|".join(shown)}
        )
        rows[-1].update(best=best, worst=worst)
    section = analyze_best_worst(pd.DataFrame(rows), n_boot=200)["monitoring"]
    assert section["n_votes"] == 400 and section["settled_at_votes"] is not None
    assert section["settled_at_votes"] < 400 and section["order"] == ["A", "B", "C", "D"]
    # a look per choice: the first `settled_at_votes` choices settle it, one fewer does not
    first = pd.DataFrame(rows).iloc[: section["settled_at_votes"]]
    assert analyze_best_worst(first, n_boot=100)["monitoring"]["settled"]
    assert not analyze_best_worst(first.iloc[:-1], n_boot=100)["monitoring"]["settled"]


def _ratings(gap: float, people: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(people):
        bias = rng.normal(0, 0.7)
        for s, shift in (("A", gap), ("B", 0.0)):
            for situation in range(4):
                r = int(np.clip(np.rint(3 + bias + shift + rng.normal(0, 0.9)), 1, 5))
                rows.append({"participant": f"p{p:03d}", "situation_id": f"s{situation}", "system": s, "rating": r})
    return pd.DataFrame(rows)


def test_ratings_settle_at_a_participant_count_and_equal_systems_do_not():
    section = mon.ratings_monitoring(_ratings(1.0, 60, 1))
    assert section["settled"] and section["order"] == ["A", "B"]
    at = section["settled_at_participants"]
    assert mon.confseq.MIN_UNITS <= at <= 60
    first = [f"p{p:03d}" for p in range(at)]
    df = _ratings(1.0, 60, 1)
    assert mon.ratings_monitoring(df[df["participant"].isin(first)])["settled"]
    assert not mon.ratings_monitoring(df[df["participant"].isin(first[:-1])])["settled"]
    assert mon.ratings_monitoring(_ratings(0.0, 150, 2))["settled_at_participants"] is None


def test_the_stopping_rule_is_met_by_settled_precision_or_participants():
    result = {"monitoring": mon.votes_monitoring(_votes([1.2, 0.4, -0.4], 1500, 60, seed=2))}
    assert stopping(MonitoringConfig(), result, 60)["met"] is False  # nothing declared: never met
    assert stopping(MonitoringConfig(stop_when_settled=True), result, 60)["met"]
    assert stopping(MonitoringConfig(precision=0.01), result, 60)["met"] is False
    assert stopping(MonitoringConfig(precision=0.5), result, 60)["met"]
    budget = stopping(MonitoringConfig(max_participants=60), {"monitoring": None}, 60)
    assert budget["met"] and budget["reasons"] == ["60 participants (rule: at most 60)"]
    assert "declared" in budget and "60 participants had taken part" in budget["rule"]


def _in_turn(strengths, n, people, seed, first=0):
    """Votes given participant after participant (each one's votes together), as a study recruits them."""
    v = simulate_votes(strengths, 0.0, n, people, seed=seed)
    v = v.assign(participant=[f"p{int(p[1:]) + first:04d}" for p in v["participant"]])
    v = v.sort_values("participant", kind="stable").reset_index(drop=True)
    start = pd.Timestamp("2026-03-02T09:00:00Z") + pd.Timedelta(days=first)
    return v.assign(answered_at=[(start + pd.Timedelta(seconds=10 * i)).isoformat() for i in range(len(v))])


def test_a_declared_maximum_uses_the_finite_horizon_boundary_and_says_so():
    votes = _in_turn([0.3, 0.0], 2000, 100, seed=1)
    section = mon.votes_monitoring(votes, maximum=100)
    assert section["boundary"] == "finite_horizon" and section["maximum"] == 100
    assert section["method"].startswith("a finite-horizon boundary for the declared maximum")
    assert section["settled"] and section["order"] == ["S1", "S2"]
    anytime = mon.votes_monitoring(votes)
    assert anytime["boundary"] == "anytime" and anytime["maximum"] is None
    # cheaper where it counts: at the maximum its interval is narrower than the open-ended sequence's (which pays
    # for looks for ever), though wider early on (the early looks are where the error is spent least)
    width = section["pairs"][0]["interval"][1] - section["pairs"][0]["interval"][0]
    assert width < 0.9 * (anytime["pairs"][0]["interval"][1] - anytime["pairs"][0]["interval"][0])
    early, early_anytime = (
        mon.votes_monitoring(votes.iloc[:900], maximum=m)["pairs"][0]["interval"] for m in (100, None)
    )
    assert early[1] - early[0] > early_anytime[1] - early_anytime[0]


def test_equal_systems_under_a_declared_maximum_are_not_settled():
    for seed in range(5):
        votes = _in_turn([0.0, 0.0], 1200, 60, seed=seed)
        assert mon.votes_monitoring(votes, maximum=60)["settled_at_votes"] is None


def test_beyond_the_declared_maximum_nothing_is_settled_anew():
    """60 participants who see no difference, then 60 who see a large one: declared at 60, the study is not
    called settled by the later ones; declared at 120 (or with no maximum) it is."""
    votes = pd.concat([_in_turn([0.0, 0.0], 1200, 60, seed=1), _in_turn([2.0, 0.0], 1200, 60, seed=2, first=60)])
    at_60 = mon.votes_monitoring(votes, maximum=60)
    assert at_60["settled"] is False and at_60["settled_at_votes"] is None
    assert at_60["pairs"][0]["separated"] is False
    assert mon.votes_monitoring(votes, maximum=120)["settled"] is True
    assert mon.votes_monitoring(votes)["settled"] is True


def test_ratings_under_a_declared_maximum_count_participants():
    rng = np.random.default_rng(5)
    rows = [
        {"participant": f"p{p:03d}", "system": s, "situation_id": f"s{k}", "rating": r}
        for p in range(80)
        for s, shift in (("A", 1.0), ("B", 0.0))
        for k, r in enumerate(np.clip(np.rint(3 + shift + rng.normal(0, 0.8, 4)), 1, 5))
    ]
    section = mon.ratings_monitoring(pd.DataFrame(rows), maximum=80)
    assert section["boundary"] == "finite_horizon" and section["maximum"] == 80
    assert section["settled"] and section["order"] == ["A", "B"]
    assert confseq_min() <= section["settled_at_participants"] <= 80


def confseq_min() -> int:
    from infact.stats.horizon import MIN_UNITS  # the declared-maximum boundary's burn-in

    return MIN_UNITS
