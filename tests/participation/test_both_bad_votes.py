"""'Both bad' as a fourth pairwise answer (protocol.allow_both_bad): checked, stored, played by bots, exported."""

from __future__ import annotations

from infact.participation.bots import run_bots
from infact.results.ranking.analysis import analyze_votes
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import start
from tests.support.studies import FakeClock, make_study

SYSTEMS = ("Alpha", "Beta", "Gamma", "Delta")


def study_with(tmp_path, **protocol):
    return load_study(
        make_study(tmp_path, systems=SYSTEMS, per_participant=5, protocol={"kind": "pairwise", **protocol})
    )


def test_both_bad_is_refused_unless_offered(tmp_path):
    study = study_with(tmp_path)
    flow, token = start(study)
    step = flow.current(flow.state(token))
    res = flow.submit(token, step.name, {"choices": {"meaningful": "Both are bad"}})
    assert not res.ok and not any("Both are bad" in e for e in res.errors)


def test_both_bad_is_stored_as_its_own_winner(tmp_path):
    study = study_with(tmp_path, allow_both_bad=True, both_bad_label="Neither is good")
    flow, token = start(study)
    step = flow.current(flow.state(token))
    wrong = flow.submit(token, step.name, {"choices": {"meaningful": "Both are bad"}})
    assert not wrong.ok and any("“Neither is good”" in e for e in wrong.errors)
    assert flow.submit(token, step.name, {"choices": {"meaningful": "Neither is good"}}).ok
    rec = next(r for r in flow.storage.records(participant=token) if r["kind"] == "pairwise")
    assert rec["choices"]["meaningful"] == "both_bad"


def test_bots_vote_both_bad_on_weak_pairs_and_the_export_keeps_it(tmp_path):
    study = study_with(tmp_path, allow_both_bad=True)
    storage = MemoryStorage()
    run_bots(study, storage, 24, seed=5, start=FakeClock()())
    votes = StudyResults(study, storage.records(study=study.id)).tables.compare["pairwise.csv"]
    bad = votes[votes["winner"] == "both_bad"]
    assert len(bad) > 0 and votes["winner"].isin([*SYSTEMS, "tie", "both_bad"]).all()
    # attentive bots find both bad only when neither system is above the median planted quality
    assert not (bad["system_a"].isin(["Alpha", "Beta"]) | bad["system_b"].isin(["Alpha", "Beta"])).any()
    res = analyze_votes(votes, n_boot=50)
    rates = {r["system"]: r["rate"] for r in res["both_bad"]}
    assert rates["Alpha"] == 0 and rates["Delta"] > 0 and res["n_both_bad"] == len(bad[~bad["excluded"]])


def test_the_datasheet_lists_the_both_bad_answer(tmp_path):
    from infact.results.reports.datasheet_study import criteria as _criteria

    [crit] = _criteria(study_with(tmp_path, allow_both_bad=True))
    assert crit["options"] == ["A", "B", "About the same", "Both are bad"] and "both-bad" in crit["form"]
    [plain] = _criteria(study_with(tmp_path / "plain"))
    assert "Both are bad" not in plain["options"] and "both-bad" not in plain["form"]
