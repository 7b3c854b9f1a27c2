"""analyze on annotations.csv: per aspect and system means with cluster-bootstrap intervals, α, halo,
rankings; FACE run files as judges, checked against scipy on the same pairs; the aggregated export
round-trips through `import annotated`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from infact.cli.main import main
from infact.participation.bots import run_bots
from infact.results import export
from infact.results.conversations.analysis import analyze_annotations
from infact.results.study_results import StudyResults
from infact.stores.memory import MemoryStorage
from infact.study.loader import load_study

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "importers" / "data"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    study = load_study(REPO / "data" / "demo-conversations")
    storage = MemoryStorage()
    run_bots(study, storage, 24, strategy="attentive", seed=11, start=datetime(2026, 3, 2, tzinfo=UTC))
    out = tmp_path_factory.mktemp("export")
    files = export.export_bytes(StudyResults(study, storage.records(study=study.id)).tables, study.systems)
    for name in ("annotations.csv", "annotations_aggregated.json"):
        (out / name).write_bytes(files[name])
    return out


def test_per_aspect_means_intervals_alpha_halo_and_rankings(exported):
    df = pd.read_csv(exported / "annotations.csv", dtype={"participant": str})
    result = analyze_annotations(df, n_boot=300)
    overall = result["aspects"]["overall_impression"]
    assert overall["level"] == "dialogue" and result["aspects"]["relevance"]["level"] == "turn"
    assert [r["system"] for r in overall["ranking"]] == ["Marquee", "Popcorn", "Reel"]  # the planted order
    for s, fig in overall["systems"].items():
        lo, hi = fig["ci95"]
        assert lo <= fig["mean"] <= hi
        mean = df[(df["aspect"] == "overall_impression") & (df["system"] == s) & ~df["is_gold"]]["value"].mean()
        assert fig["mean"] == pytest.approx(mean)
    assert overall["krippendorff_alpha"]["value"] > 0.3  # bots share the planted quality
    assert (
        result["halo"]["dialogue"]["mean_r"] > 0.2
        and "overall_impression~understanding" in result["halo"]["dialogue"]["pairs"]
    )
    assert result["n_conversations"] == 18  # the gold conversation left out


def _judge_pairs(ann: pd.DataFrame, run: list[dict], aspect: str) -> tuple[list[float], list[float]]:
    """The (human mean, prediction) pairs of one aspect, computed independently of INFACT's code."""
    human, pred = {}, {}
    for e in run:
        for t in e["turns"]:
            for a, v in t["turn_level_pred"].items():
                pred[(e["conv_id"], t["turn_ind"], a)] = v
        for a, v in e["dial_level_pred"].items():
            pred[(e["conv_id"], None, a)] = v
    for (cid, turn, a), g in ann.groupby(
        ["conversation_id", ann["turn"].astype("Int64").astype(object), "aspect"], dropna=False
    ):
        human[(cid, None if pd.isna(turn) else int(turn), a)] = g["value"].mean()
    keys = sorted(k for k in human if k in pred and k[2] == aspect)
    return [human[k] for k in keys], [pred[k] for k in keys]


def test_an_exported_aggregated_file_round_trips_and_judges_match_scipy(exported, tmp_path, capsys):
    assert main(["import", "annotated", str(exported / "annotations_aggregated.json"), "--out", str(tmp_path)]) == 0
    back = pd.read_csv(tmp_path / "annotations.csv", dtype={"participant": str})
    orig = pd.read_csv(exported / "annotations.csv", dtype={"participant": str})
    orig = orig[~orig["is_gold"]]
    med = orig.groupby(["conversation_id", "aspect", orig["turn"].fillna(-1)])["value"].median().sort_index()
    got = back.groupby(["conversation_id", "aspect", back["turn"].fillna(-1)])["value"].first().sort_index()
    pd.testing.assert_series_equal(med, got, check_names=False)  # the medians, item for item
    assert set(back["system"]) == {"Marquee", "Popcorn", "Reel"}

    rng = np.random.default_rng(5)
    agg = json.loads((exported / "annotations_aggregated.json").read_text())
    run = [
        {
            "conv_id": e["conv_id"],
            "turns": [
                {
                    "turn_ind": t["turn_ind"],
                    "turn_level_pred": {a: v + rng.normal(0, 0.7) for a, v in t["turn_level_aggregated"].items()},
                }
                for t in e["dialogue"]
                if "turn_level_aggregated" in t
            ],
            "dial_level_pred": {a: v + rng.normal(0, 0.7) for a, v in e["dial_level_aggregated"].items()},
        }
        for e in agg
    ]
    (tmp_path / "run.json").write_text(json.dumps(run))
    capsys.readouterr()
    assert (
        main(
            [
                "analyze",
                str(tmp_path / "annotations.csv"),
                "--judge",
                f"face={tmp_path / 'run.json'}",
                "--json",
                "--n-boot",
                "200",
                "--group-by",
                "dataset",
            ]
        )
        == 0
    )
    judged = json.loads(capsys.readouterr().out)["judges"]["face"]["aspects"]
    for aspect in ("relevance", "overall_impression"):
        x, y = _judge_pairs(back, run, aspect)
        fig = judged[aspect]
        assert fig["n_items"] == len(x) > 10
        assert abs(fig["pearson_items"] - stats.pearsonr(x, y)[0]) < 1e-9
        assert abs(fig["spearman_items"] - stats.spearmanr(x, y)[0]) < 1e-9
        assert fig["groups"]["demo"]["n_items"] == len(x)
    assert judged["relevance"]["level"] == "turn" and judged["overall_impression"]["level"] == "dialogue"


def test_judges_per_dataset_group_on_an_imported_crs_arena_eval_file(tmp_path, capsys):
    assert main(["import", "annotated", str(DATA / "crs_arena_eval_aggregated.json"), "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "analyze",
                str(tmp_path / "annotations.csv"),
                "--judge",
                f"j={DATA / 'face_run.json'}",
                "--json",
                "--n-boot",
                "200",
                "--group-by",
                "dataset",
            ]
        )
        == 0
    )
    aspects = json.loads(capsys.readouterr().out)["judges"]["j"]["aspects"]
    rel = aspects["relevance"]
    assert set(rel) >= {"level", "n_items", "pearson_items", "spearman_items", "kendall_tau_systems", "groups"}
    assert set(rel["groups"]) == {"redial", "opendialkg"} and rel["n_items"] == 12
    assert rel["groups"]["redial"]["n_items"] + rel["groups"]["opendialkg"]["n_items"] == 12
    assert aspects["overall_impression"]["n_items"] == 6
