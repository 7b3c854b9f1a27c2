"""The dashboard's Ranking section (AppTest) on the pairwise demo played by bots, and its data."""

from __future__ import annotations

from pathlib import Path

import pytest

from infact.participation.bots import run_bots
from infact.results.dashboard.ranking import ranking_view, win_rate_matrix
from infact.results.study_results import StudyResults
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_dashboard

REPO = Path(__file__).resolve().parents[2]
STUDY = REPO / "data" / "demo-pairwise"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = tmp_path_factory.mktemp("rank-dash") / "db"
    study = load_study(STUDY)
    storage = TinyDBStorage(db)
    run_bots(study, storage, 16, strategy="attentive", seed=4)
    return study, db


def test_ranking_view_and_win_rate_matrix(store):
    study, db = store
    results = StudyResults(study, TinyDBStorage(db).records(study=study.id))
    view = ranking_view(results.ranked(), "meaningful", False, 0.95)
    assert view["ranking"][0]["system"] == "Marquee"
    m = win_rate_matrix(view)
    assert list(m.index) == list(m.columns) == [r["system"] for r in view["ranking"]]
    assert m.loc["Marquee", "Static"] > 0.5 and m.isna().values.diagonal().all()
    assert ranking_view(StudyResults(study, []).ranked(), "meaningful", False, 0.95) is None


def test_the_dashboard_ranking_is_the_one_analyze_reports(store, tmp_path, capsys):
    """Same replicates and seed: the intervals and 'settled' on the dashboard equal `analyze`'s."""
    import json

    from infact.cli.main import main

    study, db = store
    results = StudyResults(study, TinyDBStorage(db).records(study=study.id))
    t = results.tables
    view = ranking_view(results.ranked(), "meaningful", False, 0.95)
    assert results.ranked().kind.name == "pairwise"  # the kind travels with the table
    csv = tmp_path / "pairwise.csv"
    t.compare["pairwise.csv"].to_csv(csv, index=False)
    assert main(["analyze", str(csv), "--json", "--criterion", "meaningful", "--include-bots"]) == 0
    cli = json.loads(capsys.readouterr().out)
    cli = cli.get("criteria", {}).get("meaningful", cli)
    assert [(r["system"], r["ci95"]) for r in view["ranking"]] == [
        (r["system"], pytest.approx(r["ci95"])) for r in cli["ranking"]
    ]
    assert view["settled"] == cli["settled"]
    # the fragility's named votes are lines of the exported pairwise.csv, the same on both
    assert view["fragility"] == cli["fragility"] and view["fragility"]["top"]["votes"]


@pytest.mark.slow  # 2.5 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_ranking_section_shows_intervals_and_the_matrix(store, monkeypatch):
    study, db = store
    at = open_dashboard(STUDY, db, monkeypatch, "Ranking")
    assert not [e.value for e in at.error]
    notes = [m.value for m in at.markdown] + [m.value for m in at.caption]
    assert any("settled" in n and "anytime-valid" in n for n in notes)  # the watched verdict (issue 37)
    assert any("do not stop recruiting on them" in n for n in notes)  # and the fixed-sample intervals' label
    table = at.dataframe[0].value
    assert list(table["system"])[0] == "Marquee" and "rank range" in table.columns
    integrity = [
        d
        for d in at.dataframe
        if {"reasons", "p (simulated as unlikely)", "rank without flagged"} & set(d.value.columns)
    ]
    assert integrity  # 16 participants: their anomaly scores are listed
    # ranking table, the vote-integrity lists, win-rate matrix, fragility of each adjacent order, ledger
    assert len(at.dataframe) == 4 + len(integrity)
    [ledger] = [d.value for d in at.dataframe if "intended_share" in d.value.columns]
    assert set(ledger["status"]) == {"in study"} and set(ledger["intended_share"]) == {0.25}
    frag = at.dataframe[-2].value
    assert list(frag.columns[:4]) == ["higher", "lower", "votes to swap", "participants to swap"]
    assert len(frag) == len(table) - 1


@pytest.mark.slow  # 3.9 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_judges_section_compares_each_judge_file_with_the_humans(tmp_path, monkeypatch):
    import shutil

    import pandas as pd

    study_dir = tmp_path / "study"
    shutil.copytree(REPO / "data" / "demo", study_dir)
    study = load_study(study_dir)
    db = tmp_path / "db"
    run_bots(study, TinyDBStorage(db), 8, strategy="attentive", seed=2)
    (study_dir / "judges").mkdir()
    quality = {"CineMate": 4, "FlickBot": 3, "ReelTalk": 2}
    rows = [
        {"situation_id": s.situation_id, "system": name, "score": quality[name]}
        for s in study.situations
        for name in study.systems
    ]
    pd.DataFrame(rows).to_csv(study_dir / "judges" / "planted.csv", index=False)
    at = open_dashboard(study_dir, db, monkeypatch, "Judges")
    table = at.dataframe[0].value
    row = table.set_index("judge").loc["planted"]
    assert row["n_items"] > 0 and row["kendall_tau_systems"] > 0.99  # the bots' planted order


def test_the_situations_section_shows_each_pairs_votes_and_disagreement(store, monkeypatch):
    study, db = store
    at = open_dashboard(STUDY, db, monkeypatch, "Situations")
    table = at.dataframe[0].value
    assert {"system_a", "system_b", "wins_a", "wins_b", "ties", "majority_share"} <= set(table.columns)
    votes = StudyResults(study, TinyDBStorage(db).records(study=study.id)).tables.compare["pairwise.csv"]
    votes = votes[(votes["criterion"] == "meaningful") & ~votes["excluded"]]
    assert table["n"].sum() == len(votes) and (table["wins_a"] + table["wins_b"] + table["ties"] == table["n"]).all()
    assert table["majority_share"].is_monotonic_increasing  # the most disputed first
    assert (table["response_a"].str.len() > 0).all() and (table["last_user_turn"].str.len() > 0).all()


@pytest.mark.slow  # 4.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_ranking_section_shows_the_both_bad_rates(tmp_path, monkeypatch):
    import shutil

    study_dir = shutil.copytree(STUDY, tmp_path / "study")
    toml = study_dir / "study.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace("allow_tie = true\n", "allow_tie = true\nallow_both_bad = true\n")
    )
    study = load_study(study_dir)
    assert study.config.protocol.allow_both_bad
    db = tmp_path / "db"
    run_bots(study, TinyDBStorage(db), 16, strategy="attentive", seed=4)
    at = open_dashboard(study_dir, db, monkeypatch, "Ranking")
    tables = [d.value for d in at.dataframe]
    [rates] = [t for t in tables if "both bad" in t.columns]
    # attentive bots find both bad only between the two weakest systems (below the median planted quality)
    rates = rates.set_index("system")
    assert rates.loc["Static", "both bad"] > 0 and rates.loc["Marquee", "both bad"] == 0
    assert any("Both bad" in c.value for c in at.caption)


@pytest.mark.slow  # 6.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_ranking_section_shows_the_vote_integrity_flags_with_reasons_and_the_ranking_without_them(
    tmp_path, monkeypatch
):
    study = load_study(STUDY)
    db = tmp_path / "db"
    run_bots(study, TinyDBStorage(db), 12, strategy="attentive", seed=4)
    run_bots(study, TinyDBStorage(db), 3, strategy="speeder", seed=5)  # votes faster than the reading time
    at = open_dashboard(STUDY, db, monkeypatch, "Ranking")
    at.toggle(key="include_flagged").set_value(True).run()  # the speeders are excluded: count them in
    assert not at.exception, [e.value for e in at.exception]
    tables = [d.value for d in at.dataframe]
    [flagged] = [t for t in tables if "reasons" in t.columns]
    votes = StudyResults(study, TinyDBStorage(db).records(study=study.id)).tables.compare["pairwise.csv"]
    limit = study.config.quality.min_situation_seconds  # the dashboard checks the study's own reading time
    fast = votes[(votes["criterion"] == "meaningful") & (votes["seconds"] < limit)]
    assert len(fast) > 0 and flagged["reasons"].str.contains("faster than reading").sum() == len(fast)
    [compared] = [t for t in tables if "rank without flagged" in t.columns]
    [ranking] = [t for t in tables if "rank range" in t.columns]
    assert set(compared["system"]) == set(ranking["system"]) and compared["rank without flagged"].notna().all()
    [scores] = [t for t in tables if "p (simulated as unlikely)" in t.columns]  # 15 participants: scored
    assert len(scores) > 0 and scores["p (simulated as unlikely)"].between(0, 1).all()
    words = " ".join(e.value for kind in (at.caption, at.warning) for e in kind)
    assert f"Vote integrity: {len(flagged)} of" in words and "200 bootstrap replicates" in words


def test_the_dashboard_ranking_checks_the_vote_time_it_is_given(store):
    """The view takes the study's minimum reading time for the vote-time check (the page passes it)."""
    study, db = store
    results = StudyResults(study, TinyDBStorage(db).records(study=study.id))
    slow = ranking_view(results.ranked(), "meaningful", False, 0.95, min_vote_seconds=10_000)
    assert slow["integrity"]["min_seconds"] == 10_000
    assert slow["integrity"]["reasons"]["faster than reading"] == slow["n_votes"] > 0


def _mon(settled: bool, at=None, pairs=None) -> dict:
    pairs = pairs or [{"higher": "A", "lower": "B", "n_participants": 40, "separated": settled}]
    return {
        "settled": settled,
        "settled_at_votes": at,
        "order": ["A", "B"] if settled else None,
        "pairs": pairs,
        "min_participants": 20,
    }


def test_the_settled_sentence_comes_from_the_watched_sequences_not_the_fixed_intervals():
    """Issue 37: the fixed-sample `settled` may be true while the anytime-valid one is not; the dashboard's words
    follow the anytime-valid one, and say so."""
    from infact.ui.rankings import settled_text

    assert settled_text(_mon(True, 812), "95%").startswith("**The order is settled: A > B.**")
    assert "anytime-valid" in settled_text(_mon(True, 812), "95%")
    assert settled_text(_mon(False), "95%") == "**Not settled yet** at 95% (anytime-valid): A / B still overlap."
    reopened = settled_text(_mon(False, 812), "95%")
    assert "It was settled at 812 votes" in reopened and "keep recruiting" in reopened
    few = _mon(False, pairs=[{"higher": "A", "lower": "B", "n_participants": 7, "separated": False}])
    assert "once 20 participants have compared it" in settled_text(few, "95%")
    assert "no two established systems" in settled_text(_mon(False, pairs=[]) | {"pairs": []}, "95%")


def test_a_declared_maximum_is_named_in_the_settled_sentence():
    """[monitoring] max_participants: the finite-horizon boundary, valid up to the maximum; beyond it nothing
    is settled anew, and the sentence says so."""
    from infact.ui.rankings import settled_text

    declared = {"maximum": 120, "beyond_maximum": False}
    settled = settled_text(_mon(True, 812) | declared, "95%")
    assert settled.startswith("**The order is settled within the declared maximum of 120 participants: A > B.**")
    assert "anytime-valid" not in settled
    open_now = settled_text(_mon(False) | declared, "95%")
    assert (
        open_now == "**Not settled yet** at 95% (within the declared maximum of 120 participants): A / B still overlap."
    )
    beyond = settled_text(_mon(False) | declared | {"beyond_maximum": True}, "95%")
    assert beyond.startswith("**Not settled within the declared maximum of 120 participants** at 95%")
    assert beyond.endswith("Answers beyond the maximum settle nothing anew.")
