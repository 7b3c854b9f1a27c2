"""Judge alignment against bot humans with a planted quality: a true judge τ = 1, a reversed one −1."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from infact.participation.bots import default_quality, run_bots
from infact.results.judges.agreement import read_judge
from infact.results.judges.alignment import align, weighted_kappa
from infact.results.judges.alignment_report import align_by_criterion, humans_of, render_markdown, situation_features
from infact.results.judges.runner import run_judge
from infact.results.ranking.features import response_features
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.llm_judges import judge_rule
from tests.support.paths import DEMO_STUDY

JUDGE = (
    '\n[endpoints.judge-llm]\nbase_url = "{url}"\nmodel = "stub-judge"\nmax_concurrency = 8\n'
    '\n[judges.stubby]\nendpoint = "judge-llm"\n'
)


def study_and_humans(tmp_path, url: str, protocol: str = "", bots: int = 24):
    folder = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, folder)
    toml = folder / "study.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + protocol + JUDGE.format(url=url), encoding="utf-8")
    study = load_study(folder)
    storage = MemoryStorage()
    run_bots(study, storage, bots, strategy="attentive", seed=3)
    kind, humans = humans_of(StudyResults(study, storage.records(study=study.id)).tables)
    return study, kind, humans


def judged(study, stub, mode: str):
    stub.rule = judge_rule(study, default_quality(study), mode)
    (study.folder / "judges").mkdir(exist_ok=True)
    for f in (study.folder / "judges").glob("*"):
        f.unlink()
    return read_judge(run_judge(study, "stubby").csv_path)


@pytest.mark.slow  # bots play a study, then two judges answer every item
def test_a_judge_following_the_true_quality_lands_at_tau_1_and_a_reversed_one_at_minus_1(tmp_path):
    with serve_openai() as stub:
        study, kind, humans = study_and_humans(tmp_path, stub.url)
        extra = {
            "features": response_features(study.situations),
            "situation_features": situation_features(study.situations),
            "scale_points": 5,
        }
        true = align_by_criterion(humans, kind, *judged(study, stub, "follow")[::-1], **extra)["meaningful"]
        reverse = align_by_criterion(humans, kind, *judged(study, stub, "reverse")[::-1], **extra)["meaningful"]
    assert kind == "ratings"
    assert true["kendall_tau_systems"] == pytest.approx(1.0) and reverse["kendall_tau_systems"] == pytest.approx(-1.0)
    assert true["spearman_items"] > 0.5 > -0.5 > reverse["spearman_items"]
    assert true["weighted_kappa_majority"] > 0 > reverse["weighted_kappa_majority"]
    lo, hi = true["kendall_tau_systems_ci95"]
    assert lo <= 1.0 <= hi + 1e-9 and true["spearman_items_ci95"][0] > 0
    assert true["stand_in"] and not reverse["stand_in"]
    matrix = np.array(true["confusion"]["rows_human_columns_judge"])
    assert matrix.shape == (5, 5) and matrix.sum() == true["n_items"]
    assert set(true["by_feature"]["turn_position"]) <= {"early", "middle", "late"}
    assert "True" in true["by_feature"]["item_mentioned"] or "False" in true["by_feature"]["item_mentioned"]
    text = render_markdown({"stubby": {"meaningful": true}})
    assert "| stubby | meaningful |" in text and "Confusion of stubby" in text and "Rule:" in text


@pytest.mark.slow  # bots play a pairwise study first
def test_an_always_first_pairwise_judge_has_position_consistency_0(tmp_path):
    with serve_openai() as stub:
        study, kind, humans = study_and_humans(tmp_path, stub.url, protocol='\n[protocol]\nkind = "pairwise"\n')
        first = align(humans, kind, *judged(study, stub, "first")[::-1])
        true = align(humans, kind, *judged(study, stub, "follow")[::-1])
    assert kind == "pairwise"
    assert first["position_consistency"] == 0.0 and first["position_bias"] == pytest.approx(0.5)
    assert not first["stand_in"]
    assert true["position_consistency"] == 1.0 and true["kendall_tau_systems"] == pytest.approx(1.0)


def test_weighted_kappa_is_1_for_agreement_and_penalises_far_misses_more():
    a = np.array([1, 2, 3, 4, 5] * 4, dtype=float)
    cats = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert weighted_kappa(a, a, cats) == pytest.approx(1.0)
    near = weighted_kappa(a, np.clip(a + 1, 1, 5), cats)
    far = weighted_kappa(a, 6 - a, cats)
    assert far < 0 < near < 1


def test_the_split_half_rule_compares_the_judge_with_half_the_humans():
    rng = np.random.default_rng(0)
    quality = {"s0": 4.0, "s1": 3.0, "s2": 2.0}
    rows = [
        {
            "participant": f"p{p}",
            "situation_id": f"x{i}",
            "system": s,
            "criterion": "c",
            "rating": int(np.clip(round(q + rng.normal(0, 1.2)), 1, 5)),
        }
        for p in range(20)
        for i in range(10)
        for s, q in quality.items()
    ]
    humans = pd.DataFrame(rows)
    judge = humans.groupby(["situation_id", "system", "criterion"])["rating"].mean().round().rename("score")
    out = align(humans, "ratings", judge.reset_index(), "scores")
    assert out["spearman_judge_vs_half"] >= out["spearman_split_half"] and out["stand_in"]
