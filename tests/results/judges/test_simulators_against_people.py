"""`analyze` on a study with human bots and LLM-simulated participants (the stub answering with a planted
preference, through infact/llm/simulated.py): the agreement it reports follows the plant, on each protocol."""

from __future__ import annotations

import shutil

import pytest

from infact.llm.client import LLMClient
from infact.participation.bots import default_quality, run_bots
from infact.results.analyze import Options, analyze_study
from infact.storage import open_storage
from infact.study.endpoints import Endpoint
from infact.study.loader import load_study
from simulations.openai_stub import serve_openai
from tests.support.paths import REPO
from tests.support.simulated_pages import planted_page_rule

pytestmark = pytest.mark.slow  # bots play whole studies, analyze bootstraps

# demo, humans, the least |Spearman| a planted simulator must reach (the pairwise demo has ~20 pairs with votes)
CASES = {"demo": (16, 0.8), "demo-pairwise": (40, 0.4), "demo-best-worst": (12, 0.5)}


def played(tmp_path, demo: str, mode: str, humans: int) -> tuple[dict, str]:
    folder, db = tmp_path / "study", str(tmp_path / "store.json")
    shutil.copytree(REPO / "data" / demo, folder)
    study = load_study(folder)
    storage = open_storage(db)
    try:
        run_bots(study, storage, humans, strategy="attentive", seed=1)  # the humans' plant: default_quality
        with serve_openai(rule=planted_page_rule(study, default_quality(study), mode)) as stub:
            llm = LLMClient("sim", Endpoint(base_url=stub.url, model="stub-user", max_retries=0))
            sims = run_bots(study, storage, 4, strategy="llm", seed=2, simulator=(llm, "You are Ana, a teacher."))
        analysis = analyze_study(study, storage, Options(mixed_model=False, n_boot=100, include_bots=True))
    finally:
        storage.close()
    assert all(s.outcome == "completed" for s in sims)
    return analysis.result, analysis.render()


@pytest.mark.parametrize("demo", list(CASES))
def test_a_simulator_planted_like_the_humans_agrees_and_one_planted_against_them_disagrees(tmp_path, demo):
    humans, least = CASES[demo]
    same, text = played(tmp_path / "same", demo, "follow", humans)
    against, _ = played(tmp_path / "against", demo, "reverse", humans)
    [(criterion, a)] = same["simulated_alignment"].items()
    [b] = against["simulated_alignment"].values()
    assert a["n_simulated"] == 4 and a["n_participants"] <= humans  # the simulated are not counted as humans
    assert a["spearman_items"] > least and a["spearman_items_ci95"][0] > 0
    assert b["spearman_items"] < -least and b["spearman_items_ci95"][1] < 0
    assert a["kendall_tau_systems"] > 0.5 > -0.5 > b["kendall_tau_systems"]
    assert a["spearman_split_half"] is not None and a["fallbacks"] == {"pages": a["fallbacks"]["pages"], "fallbacks": 0}
    assert "## Simulated participants vs humans on the same items" in text and "SimulatorArena" in text
    assert f"| {criterion} | {a['n_items']} | 4 |" in text
