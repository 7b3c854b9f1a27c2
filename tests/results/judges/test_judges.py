"""Automatic judges beside human raters: simulations where the judge's behaviour is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from infact.errors import InfactError
from infact.results.judges import agreement as judges
from simulations.votes import judge_world, pairwise_judge

SD_ITEM, SD_NOISE, RATERS = 0.6, 0.7, 5


@pytest.fixture(scope="module")
def world():
    return judge_world(n_situations=80, sd_item=SD_ITEM, raters_per_situation=RATERS, sd_noise=SD_NOISE, seed=11)


def score_judge(world, noise: float, seed: int = 0, length_weight: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    t = world["truth"].merge(world["features"], on=["situation_id", "system"])
    score = (
        t["quality"]
        + rng.normal(0, noise, len(t))
        + length_weight * (t["length"] - t["length"].mean()) / t["length"].std()
    )
    return t[["situation_id", "system"]].assign(score=score, participant="judge")


def expected_spearman(noise: float) -> float:
    # Items' qualities vary by system means and by item; the human mean of RATERS ratings adds
    # noise (rounding ignored). For normal pairs Spearman = (6/π) asin(ρ/2).
    means = np.array([2.0, 2.6, 3.0, 3.4, 4.0])
    var_q = means.var() + SD_ITEM**2
    rho = var_q / np.sqrt((var_q + SD_NOISE**2 / RATERS) * (var_q + noise**2))
    return 6 / np.pi * np.arcsin(rho / 2)


@pytest.mark.parametrize("noise", [0.3, 1.0, 2.0])
def test_a_judge_equal_to_truth_plus_noise_lands_in_the_expected_band(world, noise):
    res = judges.compare(world["ratings"], "ratings", score_judge(world, noise), "scores", world["features"])
    assert res["n_items"] == 80 * 5
    assert res["spearman_items"] == pytest.approx(expected_spearman(noise), abs=0.07)
    # five systems whose means differ by ≥ 0.4 over 80 items each: a precise judge orders them as
    # the humans do; a noisy one may swap a neighbouring pair (τ = 0.8) or two (0.6)
    assert res["kendall_tau_systems"] >= (0.999 if noise <= 0.3 else 0.6)
    assert abs(res["length_bias"]) < 0.15


def test_alpha_with_the_judge_falls_as_the_judge_gets_noisier(world):
    alphas = [
        judges.compare(world["ratings"], "ratings", score_judge(world, n), "scores")["krippendorff_alpha_with_humans"]
        for n in (0.3, 2.0)
    ]
    assert alphas[0] > alphas[1]
    humans = judges.compare(world["ratings"], "ratings", score_judge(world, 0.3), "scores")["krippendorff_alpha_humans"]
    assert 0.3 < humans < 0.95


def test_a_judge_that_follows_length_raises_length_bias(world):
    fair = judges.compare(world["ratings"], "ratings", score_judge(world, 0.3), "scores", world["features"])
    longish = judges.compare(
        world["ratings"], "ratings", score_judge(world, 0.3, length_weight=1.5), "scores", world["features"]
    )
    assert longish["length_bias"] > fair["length_bias"] + 0.3
    assert longish["length_bias"] > 0.3


def test_an_always_left_judge_shows_position_bias(world):
    q = world["truth"]
    left = pairwise_judge(q, lambda a, b: True).assign(participant="judge")
    fair = pairwise_judge(q, lambda a, b: a.quality > b.quality).assign(participant="judge")
    res_left = judges.compare(world["ratings"], "ratings", left, "pairwise")
    res_fair = judges.compare(world["ratings"], "ratings", fair, "pairwise")
    assert res_left["position_bias"] == pytest.approx(0.5)
    assert res_left["position_consistency"] == 0.0
    assert res_left["n_pairs_both_orders"] == 80 * 10
    assert res_fair["position_bias"] == pytest.approx(0.0)
    assert res_fair["position_consistency"] == 1.0
    # the fair pairwise judge agrees with the humans, the left-picker does not
    assert res_fair["kendall_tau_systems"] == pytest.approx(1.0)
    assert res_fair["spearman_items"] > 0.4  # a ±1 verdict against a 5-rater mean preference
    assert res_left["spearman_items"] is None or abs(res_left["spearman_items"]) < 0.1


def test_pairwise_judge_that_prefers_longer_responses(world):
    f = world["features"].set_index(["situation_id", "system"])["length"]
    longer = pairwise_judge(world["truth"], lambda a, b: f[(a.situation_id, a.system)] > f[(b.situation_id, b.system)])
    fair = pairwise_judge(world["truth"], lambda a, b: a.quality > b.quality)
    res_long = judges.compare(
        world["ratings"], "ratings", longer.assign(participant="judge"), "pairwise", world["features"]
    )
    res_fair = judges.compare(
        world["ratings"], "ratings", fair.assign(participant="judge"), "pairwise", world["features"]
    )
    assert res_long["length_bias"] > 0.4
    assert abs(res_fair["length_bias"]) < 0.1


def test_judge_files_are_checked(tmp_path):
    bad = tmp_path / "j.csv"
    bad.write_text("situation_id,system,score\ns1,A,0.5\ns1,B,high\n")
    with pytest.raises(InfactError, match=r"j.csv:3: \[score\]"):
        judges.read_judge(bad)
    cols = tmp_path / "k.csv"
    cols.write_text("situation_id,model,score\ns1,A,1\n")
    with pytest.raises(InfactError, match="system"):
        judges.read_judge(cols)
    with pytest.raises(InfactError, match="NAME=FILE.csv"):
        judges.parse_judge_option("judge.csv")
    pair = tmp_path / "p.csv"
    pair.write_text("situation_id,system_a,system_b,winner\ns1,A,B,C\n")
    with pytest.raises(InfactError, match="winner 'C'"):
        judges.read_judge(pair)
