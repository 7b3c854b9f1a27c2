"""The Alt-Test (Calderon, Reichart & Dror, ACL 2025) on planted judges: better and worse than the humans."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from infact.results.judges.alignment import align
from infact.results.judges.alt_report import render_verdicts
from infact.results.judges.alt_test import alt_test, benjamini_yekutieli


def label_world(n_items=80, n_humans=5, human_accuracy=0.6, seed=0):
    """Three labels; each annotator gives the true one with probability human_accuracy, else another at random."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)

    def noisy(accuracy):
        wrong = (truth + rng.integers(1, 3, n_items)) % 3
        return np.where(rng.random(n_items) < accuracy, truth, wrong)

    humans = {f"h{h}": dict(enumerate(noisy(human_accuracy).tolist())) for h in range(n_humans)}
    return truth, humans, noisy


def test_a_judge_that_knows_the_truth_passes_and_a_near_random_one_fails():
    truth, humans, noisy = label_world()
    better = alt_test(dict(enumerate(truth.tolist())), humans, "accuracy", epsilon=0.1)
    worse = alt_test(dict(enumerate(noisy(0.3).tolist())), humans, "accuracy", epsilon=0.1)
    assert better["passed"] and better["winning_rate"] == 1.0  # beats every annotator (a sign error fails this)
    assert not worse["passed"] and worse["winning_rate"] == 0.0
    assert better["advantage_probability"] > 0.9 > worse["advantage_probability"]
    assert better["n_items"] == 80 and better["n_annotators"] == 5 and not better["warnings"]
    for row in better["annotators"]:  # the truth ties an annotator where they are right, wins where they are wrong
        assert row["rho_judge"] > 0.95 and row["rho_human"] < 0.8 and row["judge_wins"]


def test_epsilon_is_the_allowance_given_to_the_judge():
    """A judge as noisy as one more annotator: passes with a generous ε, fails with none."""
    truth, humans, noisy = label_world(n_items=100, seed=1)
    peer = dict(enumerate(noisy(0.6).tolist()))
    generous = alt_test(peer, humans, "accuracy", epsilon=0.4)
    none = alt_test(peer, humans, "accuracy", epsilon=0.0)
    assert generous["passed"] and not none["passed"]
    assert generous["advantage_probability"] == none["advantage_probability"]  # ρ does not depend on ε


def rating_tables(seed=0, n_items=60, n_humans=4):
    rng = np.random.default_rng(seed)
    quality = rng.uniform(1.5, 4.5, n_items)
    rows = [
        {
            "participant": f"p{p}",
            "situation_id": f"x{i // 3}",
            "system": f"s{i % 3}",
            "rating": int(np.clip(round(q + rng.normal(0, 1.0)), 1, 5)),
        }
        for p in range(n_humans)
        for i, q in enumerate(quality)
    ]
    items = pd.DataFrame(
        {"situation_id": [f"x{i // 3}" for i in range(n_items)], "system": [f"s{i % 3}" for i in range(n_items)]}
    )
    return pd.DataFrame(rows), items, quality, rng


def test_on_ratings_the_rmse_alignment_passes_the_true_quality_and_fails_a_random_judge():
    humans, items, quality, rng = rating_tables()
    better = align(humans, "ratings", items.assign(score=quality), "scores", n_boot=20)["alt_test"]
    worse = align(humans, "ratings", items.assign(score=rng.integers(1, 6, len(items))), "scores", n_boot=20)[
        "alt_test"
    ]
    assert better["scoring"] == worse["scoring"] == "neg_rmse"
    assert better["passed"] and better["winning_rate"] >= 0.5
    assert not worse["passed"] and worse["winning_rate"] == 0.0
    assert better["advantage_probability"] > worse["advantage_probability"]


def test_scores_off_the_rating_scale_are_mapped_onto_it_and_said_so():
    humans, items, quality, _ = rating_tables()
    out = align(humans, "ratings", items.assign(score=(quality - 1) / 4 * 100), "scores", n_boot=20)["alt_test"]
    assert out["passed"]  # the same judge on a 0–100 scale: mapped linearly, still the true quality
    assert any("mapped linearly" in w for w in out["warnings"])


def test_benjamini_yekutieli_is_stricter_than_benjamini_hochberg():
    # thresholds k/4 · 0.05 / H_4 = 0.006, 0.012, 0.018, 0.024; BH (k/4 · 0.05) would also reject 0.03
    assert benjamini_yekutieli([0.5, 0.001, 0.03, 0.01]) == [False, True, False, True]
    assert benjamini_yekutieli([]) == []


def test_too_few_items_or_annotators_is_said_and_gives_no_verdict():
    truth, humans, _ = label_world(n_items=20, n_humans=2)
    out = alt_test(dict(enumerate(truth.tolist())), humans)
    assert out["passed"] is None and out["winning_rate"] is None and len(out["skipped_annotators"]) == 2
    text = " ".join(out["warnings"])
    assert "50–100" in text and "at least 3" in text and "fewer than 30" in text
    few = alt_test(dict(enumerate(truth.tolist())), humans, min_items_per_human=10)
    assert few["passed"] is not None and any("at least 3" in w for w in few["warnings"])
    report = render_verdicts({"j": {"c": {"stand_in": True, "alt_test": out}}})
    assert "| j | c | pass | not applicable |" in report and "paper asks 50–100" in report


def test_the_report_shows_both_verdicts():
    humans, items, quality, _ = rating_tables()
    a = align(humans, "ratings", items.assign(score=quality), "scores", n_boot=20)
    text = render_verdicts({"truth": {"all": a}})
    assert f"| truth | all | {'pass' if a['stand_in'] else 'fail'} | pass |" in text
    assert "ε = 0.1" in text and "Benjamini–Yekutieli" in text


def test_an_unknown_scoring_is_refused():
    with pytest.raises(ValueError, match="accuracy, neg_rmse"):
        alt_test({}, {}, "f1")


@pytest.mark.slow  # 1.9 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_pairwise_judge_is_scored_by_accuracy_on_the_preferences_the_ratings_imply():
    from simulations.votes import pairwise_judge

    humans, items, quality, _ = rating_tables(n_items=90)
    truth = items.assign(quality=quality)
    better = pairwise_judge(truth, lambda a, b: a.quality > b.quality).assign(participant="judge")
    worse = pairwise_judge(truth, lambda a, b: a.quality < b.quality).assign(participant="judge")
    good = align(humans, "ratings", better, "pairwise", n_boot=20)["alt_test"]
    bad = align(humans, "ratings", worse, "pairwise", n_boot=20)["alt_test"]
    assert good["scoring"] == "accuracy" and good["n_items"] == 90  # 30 situations × 3 pairs
    assert good["passed"] and not bad["passed"] and bad["winning_rate"] == 0.0


def reference_rhos(judge, humans, score):
    """The paper's procedure item by item (its reference loop), for the vectorised one to match."""
    on_item = {}
    for h, answers in humans.items():
        for i in answers:
            on_item.setdefault(i, []).append(h)
    out = {}
    for h, answers in humans.items():
        wins = []
        for i in answers:
            if len(on_item[i]) < 2 or i not in judge:
                continue
            others = np.array([humans[k][i] for k in on_item[i] if k != h])
            s_f, s_h = score(judge[i], others), score(answers[i], others)
            wins.append((s_f >= s_h, s_h >= s_f))
        if len(wins) >= 30:
            out[h] = tuple(np.mean(w) for w in zip(*wins))
    return out


@pytest.mark.parametrize("scoring", ["accuracy", "neg_rmse"])
def test_the_vectorised_test_matches_the_item_by_item_procedure(scoring):
    from infact.results.judges.alt_test import SCORING

    rng = np.random.default_rng(5)
    humans = {
        f"h{h}": {i: int(rng.integers(1, 4)) for i in range(70) if rng.random() < 0.7} for h in range(6)
    }  # missing answers, overlaps of every size
    judge = {i: int(rng.integers(1, 4)) for i in range(65)}  # the judge missed a few items
    got = {a["annotator"]: (a["rho_judge"], a["rho_human"]) for a in alt_test(judge, humans, scoring)["annotators"]}
    want = reference_rhos(judge, humans, SCORING[scoring])
    assert got.keys() == want.keys() and len(got) == 6
    for h in got:
        assert got[h] == pytest.approx(want[h])
