"""Simulated participants against the humans on the same items: a planted close and a planted far simulator."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from infact.results.judges.simulators import render_markdown, simulators_vs_humans


def ratings(seed=0, n_items=60, humans=8, sims=3, sim_noise=0.3, sim_random=False):
    """Items of known quality; humans rate quality + N(0, 1); simulators quality + N(0, sim_noise), or at random."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(1.5, 4.5, n_items) + np.repeat([0.0, 0.6, 1.2], n_items // 3)[rng.permutation(n_items)]
    rows = []
    for p in [f"h{i}" for i in range(humans)] + [f"sim{i}" for i in range(sims)]:
        if p.startswith("sim") and sim_random:
            r = rng.integers(1, 6, n_items)
        else:
            r = np.clip(np.rint(quality + rng.normal(0, sim_noise if p.startswith("sim") else 1.0, n_items)), 1, 5)
        rows += [
            {"participant": p, "situation_id": f"x{i // 3}", "system": f"s{i % 3}", "rating": int(v)}
            for i, v in enumerate(r)
        ]
    return pd.DataFrame(rows), {f"sim{i}" for i in range(sims)}


def test_a_close_simulator_agrees_like_people_and_a_far_one_does_not():
    close_data, sims = ratings()
    far_data, _ = ratings(sim_random=True)
    close = simulators_vs_humans(close_data, "ratings", sims, n_boot=50)["all"]
    far = simulators_vs_humans(far_data, "ratings", sims, n_boot=50)["all"]
    assert close["n_simulated"] == 3 and close["n_participants"] == 8  # the simulated are not counted as humans
    assert close["spearman_items"] > 0.7 > 0.3 > abs(far["spearman_items"])
    assert close["spearman_items_ci95"][0] > 0.5 and far["spearman_items_ci95"][0] < 0.3
    assert close["spearman_judge_vs_half"] >= close["spearman_split_half"] > far["spearman_judge_vs_half"]
    text = render_markdown({"all": close})
    assert "SimulatorArena" in text and "≈ 0.7" in text and "| all | 60 | 3 | 8 |" in text


def test_nothing_to_compare_without_both_groups():
    data, sims = ratings(sims=0)
    assert simulators_vs_humans(data, "ratings", {"nobody"}) is None
    assert simulators_vs_humans(data, "ratings", set(data["participant"])) is None


@pytest.mark.slow  # bots play the demo study
def test_analyze_reports_the_simulated_participants_of_a_store(tmp_path):
    from infact.participation.bots import run_bots
    from infact.participation.flow import Flow
    from infact.results.analyze import Options, analyze_study
    from infact.storage import open_storage
    from infact.study.loader import load_study
    from tests.support.paths import DEMO_STUDY

    folder, db = tmp_path / "study", str(tmp_path / "store.json")
    shutil.copytree(DEMO_STUDY, folder)
    study = load_study(folder)
    storage = open_storage(db)
    try:
        people = run_bots(study, storage, 16, strategy="attentive", seed=3)
        played = run_bots(study, storage, 6, strategy="attentive", seed=4)
        for bot in played:  # attentive bots marked as simulated: a close simulator
            Flow(study, storage).mark_simulated(bot.token, False, by="llm", endpoint="stub", model="stub")
        analysis = analyze_study(study, storage, Options(mixed_model=False, n_boot=100, include_bots=True))
    finally:
        storage.close()
    result = analysis.result
    alignment = result["simulated_alignment"]
    first = next(iter(alignment.values()))
    assert first["n_simulated"] == 6 and first["n_participants"] <= len(people)
    assert first["spearman_items"] is not None and first["spearman_items"] > 0
    assert "Simulated participants vs humans on the same items" in analysis.render()


def annotations(follow: bool, seed: int = 0):
    """Conversation annotations (relevance, 0–3, per turn): humans answer a planted per-message quality with noise,
    simulated annotators answer it exactly (`follow`) or its mirror."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(30):
        for turn in range(3):
            q = rng.uniform(0, 3)
            for p in [f"h{i}" for i in range(6)] + ["sim0", "sim1"]:
                if p.startswith("sim"):
                    v = q if follow else 3 - q
                else:
                    v = q + rng.normal(0, 0.7)
                rows.append(
                    {
                        "participant": p,
                        "conversation_id": f"conv{c}",
                        "system": f"s{c % 3}",
                        "turn": turn,
                        "aspect": "relevance",
                        "level": "turn",
                        "value": int(np.clip(np.rint(v), 0, 3)),
                        "is_gold": False,
                        "excluded": False,
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.slow  # 1.8 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_conversation_annotations_are_compared_per_aspect_on_their_own_scale():
    from types import SimpleNamespace

    from infact.results.judges.simulators import simulators_from_tables
    from infact.study.loader import load_study
    from tests.support.paths import REPO

    study = load_study(REPO / "data" / "demo-conversations")
    marks = [{"participant": p, "kind": "simulated"} for p in ("sim0", "sim1")]
    got = {}
    for follow in (True, False):
        tables = SimpleNamespace(compare={"annotations.csv": annotations(follow)}, ratings=pd.DataFrame())
        got[follow] = simulators_from_tables(study, marks, tables)
    assert list(got[True]) == ["relevance"]  # one table: criteria unprefixed; aspects without answers left out
    same, mirror = got[True]["relevance"], got[False]["relevance"]
    assert same["n_items"] == 90 and same["n_simulated"] == 2 and same["n_participants"] == 6
    assert same["spearman_items"] > 0.8 and same["spearman_items_ci95"][0] > 0.5
    assert mirror["spearman_items"] < -0.8 and mirror["spearman_items_ci95"][1] < -0.5
    assert same["fallbacks"] == {"pages": 0, "fallbacks": 0} and same["table"] == "annotations"
