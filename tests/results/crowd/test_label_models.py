"""Dawid–Skene and MACE on planted annotator reliabilities (skipped cleanly without crowd-kit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from infact.results.crowd import label_models


def planted(seed=0, n_items=120, reliabilities=(0.95, 0.9, 0.85, 0.8, 0.3, 0.2)):
    """Items with a true scale point 1..5; annotator a gives it with probability reliabilities[a], else any point."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items)
    rows = []
    for a, r in enumerate(reliabilities):
        answer = np.where(rng.random(n_items) < r, truth, rng.integers(1, 6, n_items))
        rows += [
            {"participant": f"a{a}", "situation_id": f"x{i // 3}", "system": f"s{i % 3}", "rating": int(v)}
            for i, v in enumerate(answer)
        ]
    return pd.DataFrame(rows), truth


@pytest.mark.slow  # 3.2 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_dawid_skene_ranks_the_planted_reliabilities_and_recovers_the_labels():
    pytest.importorskip("crowdkit")
    ratings, truth = planted()
    out = label_models.fit(ratings)
    rel = out["reliability"].set_index("participant")
    ds = rel["reliability_dawid_skene"]
    assert ds[["a0", "a1", "a2", "a3"]].min() > 0.7 > 0.45 > ds[["a4", "a5"]].max()
    assert rel["reliability_mace"][["a0", "a1", "a2", "a3"]].min() > rel["reliability_mace"][["a4", "a5"]].max()
    soft = out["soft_labels"]
    assert set(soft["model"]) == {"dawid_skene", "mace"}
    sums = soft.groupby(["situation_id", "system", "model"])["probability"].sum()
    assert np.allclose(sums, 1.0)
    ds_soft = soft[soft["model"] == "dawid_skene"]
    hard = ds_soft.loc[ds_soft.groupby(["situation_id", "system"])["probability"].idxmax()]
    hard = hard.assign(i=hard["situation_id"].str[1:].astype(int) * 3 + hard["system"].str[1:].astype(int))
    assert np.mean(hard.sort_values("i")["label"].astype(int).to_numpy() == truth) > 0.95
    assert label_models.lowest_reliability(out["reliability"], 2)[0]["participant"] in {"a4", "a5"}


@pytest.mark.slow  # 2.7 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_ten_mace_restarts_give_what_one_gives_so_one_is_run(monkeypatch):
    """crowd-kit seeds every restart alike (label_models.MACE_RESTARTS): if a release draws a new start per
    restart, the starts differ and this fails, and ten restarts may be worth their cost again."""
    pytest.importorskip("crowdkit")
    from crowdkit.aggregation import MACE

    starts, initialize = [], MACE._initialize

    def recorded(self, *args):
        initialize(self, *args)
        starts.append((self.spamming_.copy(), self.thetas_.copy()))

    monkeypatch.setattr(MACE, "_initialize", recorded)
    data, _ = label_models.task_table(planted(n_items=30)[0])
    one, ten = (label_models._mace(data, restarts=n, iterations=5) for n in (label_models.MACE_RESTARTS, 10))
    assert label_models.MACE_RESTARTS == 1 and len(starts) == 11
    assert all(np.array_equal(a, starts[0][0]) and np.array_equal(b, starts[0][1]) for a, b in starts)
    pd.testing.assert_frame_equal(one[0], ten[0], check_exact=True)
    pd.testing.assert_series_equal(one[1], ten[1], check_exact=True)


def test_without_crowd_kit_the_message_says_how_to_install_it(monkeypatch):
    from infact.errors import InfactError

    monkeypatch.setattr(label_models, "available", lambda: False)
    with pytest.raises(InfactError, match=r"infact\[crowd\]"):
        label_models.fit(planted()[0])


@pytest.mark.slow  # 5.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_export_writes_soft_labels_and_reliability_declared_and_analyze_reports_them(tmp_path, capsys):
    pytest.importorskip("crowdkit")
    import json

    from infact.cli.main import main
    from infact.results.crowd.report import export_files
    from infact.results.kinds import schema_for

    ratings, _ = planted(n_items=60)
    participants = pd.DataFrame({"participant": [f"a{a}" for a in range(6)] + ["late"], "status": "completed"})
    files = export_files(ratings, participants, lambda df, name: df.to_csv(index=False).encode())
    people = pd.read_csv(__import__("io").BytesIO(files["participants.csv"]))
    assert people.loc[people["participant"] == "a0", "reliability_dawid_skene"].item() > 0.7
    assert people.loc[people["participant"] == "late", "reliability_mace"].isna().all()  # no ratings: empty
    soft = pd.read_csv(__import__("io").BytesIO(files["soft_labels.csv"]))
    assert set(soft.columns) == set(schema_for("soft_labels.csv").names) - {"criterion"}
    assert schema_for("participants.csv").column("reliability_dawid_skene") is not None
    path = tmp_path / "ratings.csv"
    ratings.to_csv(path, index=False)
    assert main(["analyze", str(path), "--no-mixed-model", "--n-boot", "100", "--label-models", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["label_models"]
    assert result["models"]["dawid_skene"]["agreement_with_median"] > 0.5
    assert {r["participant"] for r in result["lowest_reliability"][:2]} == {"a4", "a5"}


@pytest.mark.slow  # bots play the demo study, then crowd-kit fits both models
def test_an_export_with_label_models_is_a_valid_data_package(tmp_path):
    pytest.importorskip("crowdkit")
    import shutil

    from frictionless import validate

    from infact.participation.bots import run_bots
    from infact.results.export import write_exports
    from infact.results.study_results import open_results
    from infact.storage import open_storage
    from infact.study.loader import load_study
    from tests.support.paths import DEMO_STUDY

    shutil.copytree(DEMO_STUDY, tmp_path / "study")
    study = load_study(tmp_path / "study")
    storage = open_storage(str(tmp_path / "store"))
    try:
        run_bots(study, storage, 12, strategy="attentive", seed=2)
        write_exports(open_results(study, storage), tmp_path / "out", label_models=True)
    finally:
        storage.close()
    people = pd.read_csv(tmp_path / "out" / "participants.csv")
    assert people["reliability_dawid_skene"].between(0, 1).all() and people["reliability_mace"].notna().all()
    assert len(pd.read_csv(tmp_path / "out" / "soft_labels.csv"))
    assert validate(str(tmp_path / "out" / "datapackage.json")).valid


def test_the_dashboards_reliability_list_says_why_it_is_empty(monkeypatch):
    """Without crowd-kit, or above the dashboard's cap, no fit is run and one line says why."""
    from infact.results.crowd.report import least_reliable

    ratings = planted(n_items=30)[0].assign(criterion="c")
    capped = least_reliable(ratings, max_ratings=100)
    if label_models.available():
        assert capped["rows"] == [] and "180 ratings (over 100" in capped["note"] and "--label-models" in capped["note"]
    monkeypatch.setattr(label_models, "available", lambda: False)
    missing = least_reliable(ratings)
    assert missing["rows"] == [] and "infact[crowd]" in missing["note"]
