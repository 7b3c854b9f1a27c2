"""Preferences of a between-subjects study (issue 41 item 2): `analyze` ranks pairwise votes and best–worst choices
per condition and tests condition × system (infact/results/ranking/conditions.py). Its false-positive rate on equal
conditions is measured by bench/ranking_conditions.py."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime

import pandas as pd

from infact.participation.bots import run_bots
from infact.results.analyze import Analysis, Options, analyze_table
from infact.results.ranking.analysis import analyze_best_worst, analyze_votes
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.studies import pairwise_with_two_conditions

SYSTEMS = ["Alpha", "Beta", "Gamma"]


def _votes(strengths: dict[str, dict[str, float]], per_condition: int = 40, votes_each: int = 12, seed: int = 0):
    """Bradley–Terry votes (no ties) of `per_condition` participants per condition, each on random pairs."""
    rng = random.Random(seed)
    rows = []
    for condition, theta in strengths.items():
        for p in range(per_condition):
            for v in range(votes_each):
                a, b = rng.sample(SYSTEMS, 2)
                win = a if rng.random() < 1 / (1 + math.exp(theta[b] - theta[a])) else b
                rows.append(
                    {
                        "participant": f"{condition}-{p}",
                        "condition": condition,
                        "situation_id": f"s{v}",
                        "criterion": "overall",
                        "system_a": a,
                        "system_b": b,
                        "winner": win,
                    }
                )
    return pd.DataFrame(rows)


def test_reversed_conditions_are_ranked_apart_and_their_interaction_is_found():
    up = {"Alpha": 1.0, "Beta": 0.0, "Gamma": -1.0}
    down = {s: -v for s, v in up.items()}
    res = analyze_votes(_votes({"up": up, "down": down}), n_boot=50)
    per = res["conditions"]
    assert [r["system"] for r in per["conditions"]["up"]["ranking"]] == ["Alpha", "Beta", "Gamma"]
    assert [r["system"] for r in per["conditions"]["down"]["ranking"]] == ["Gamma", "Beta", "Alpha"]
    assert per["conditions"]["up"]["n_participants"] == 40 and per["conditions"]["up"]["n_votes"] == 480
    assert per["systems"] == SYSTEMS and per["reference_condition"] == "down"
    assert per["interaction_test"]["df"] == 2 and per["interaction_test"]["p"] < 1e-6
    text = Analysis.of("pairwise", res).render()
    assert "### Per condition" in text and "Condition **up**: 480 votes by 40 participants." in text
    assert "Condition × system" in text and "p = < 0.001" in text


def test_equal_conditions_show_no_interaction_and_a_study_without_conditions_has_none():
    same = {"Alpha": 0.5, "Beta": 0.0, "Gamma": -0.5}
    res = analyze_votes(_votes({"a": same, "b": same}, seed=3), n_boot=50)
    assert res["conditions"]["interaction_test"]["p"] > 0.05
    plain = _votes({"a": same}, seed=3).drop(columns="condition")
    assert "conditions" not in analyze_votes(plain, n_boot=50)
    one = _votes({"a": same}, seed=3)  # a single condition is no between-subjects comparison
    assert "conditions" not in analyze_votes(one, n_boot=50)


def test_a_system_one_condition_never_showed_is_left_out_of_the_test():
    three = _votes({"a": {"Alpha": 0.5, "Beta": 0.0, "Gamma": -0.5}}, seed=4)
    two = _votes({"b": {"Alpha": 0.5, "Beta": 0.0, "Gamma": -0.5}}, seed=5)
    two = two[(two["system_a"] != "Gamma") & (two["system_b"] != "Gamma")]
    per = analyze_votes(pd.concat([three, two], ignore_index=True), n_boot=50)["conditions"]
    assert per["systems"] == ["Alpha", "Beta"] and per["interaction_test"]["df"] == 1
    assert [r["system"] for r in per["conditions"]["b"]["ranking"]] == ["Alpha", "Beta"]


def test_best_worst_choices_are_ranked_per_condition():
    rng = random.Random(1)
    rows = []
    for condition, order in (("x", ["Alpha", "Beta", "Gamma", "Delta"]), ("y", ["Delta", "Gamma", "Beta", "Alpha"])):
        for p in range(15):
            for v in range(6):
                shown = rng.sample(order, 3)
                ranked = sorted(shown, key=order.index)
                best, worst = (ranked[0], ranked[-1]) if rng.random() < 0.85 else (ranked[-1], ranked[0])
                rows.append(
                    {
                        "participant": f"{condition}{p}",
                        "condition": condition,
                        "situation_id": f"s{v}",
                        "criterion": "overall",
                        "systems": "|".join(shown),
                        "best": best,
                        "worst": worst,
                    }
                )
    per = analyze_best_worst(pd.DataFrame(rows), n_boot=50)["conditions"]
    assert per["conditions"]["x"]["ranking"][0]["system"] == "Alpha"
    assert per["conditions"]["y"]["ranking"][0]["system"] == "Delta"
    assert per["interaction_test"]["df"] == 3 and per["interaction_test"]["p"] < 1e-6


def test_a_pairwise_study_with_conditions_is_analysed_per_condition(tmp_path):
    folder = pairwise_with_two_conditions(tmp_path / "s")
    study = load_study(folder)
    storage = MemoryStorage()
    run_bots(study, storage, 12, strategy="attentive", seed=2, start=datetime(2026, 3, 2, 9, tzinfo=UTC))
    table = StudyResults(study, storage.records(study=study.id)).tables.as_dict()["pairwise"]
    res = analyze_table(table, Options(n_boot=100, include_bots=True), "pairwise.csv")
    per = res["conditions"]
    assert set(per["conditions"]) == {"short", "long"}
    assert sum(v["n_participants"] for v in per["conditions"].values()) == res["n_participants"]
    assert "p" in per["interaction_test"] or "error" in per["interaction_test"]
