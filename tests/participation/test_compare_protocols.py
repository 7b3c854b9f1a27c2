"""Pairwise and best–worst protocols as step kinds: assignment, checks, bots, exports, analysis."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pandas as pd
import pytest

from infact.participation.bots import run_bots
from infact.results.export import export_bytes
from infact.results.ranking.analysis import analyze_best_worst, analyze_votes
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import start
from tests.support.paths import REPO
from tests.support.studies import FakeClock, make_study

DEMO_PAIRWISE = REPO / "data" / "demo-pairwise"
SYSTEMS = ("Alpha", "Beta", "Gamma", "Delta")


def study_with(tmp_path, **protocol):
    return load_study(make_study(tmp_path, systems=SYSTEMS, per_participant=5, protocol=protocol))


@pytest.fixture(scope="module")
def demo_crowd():
    study = load_study(DEMO_PAIRWISE)
    storage = MemoryStorage()
    results = run_bots(study, storage, 36, seed=3, start=FakeClock()())
    return study, storage, results


def test_the_demo_pairwise_study_is_played_by_every_bot(demo_crowd):
    study, storage, results = demo_crowd
    assert sum(r.completed for r in results) >= 30
    t = StudyResults(study, storage.records(study=study.id)).tables
    votes = t.compare["pairwise.csv"]
    assert list(votes.columns[:10]) == [
        "participant",
        "condition",
        "situation_id",
        "criterion",
        "system_a",
        "system_b",
        "shown_left",
        "winner",
        "seconds",
        "justification",
    ]
    assert (votes["system_a"] < votes["system_b"]).all()
    assert set(votes["shown_left"]) == set(study.systems)  # left/right is random and stored
    assert votes["winner"].isin(list(study.systems) + ["tie"]).all()
    # balanced pairs: all six pairs, none more than a few votes off the others. Bots run
    # concurrently and abandoning bots leave reserved pairs unvoted, so the spread varies a
    # little from run to run (6-7 of ~32 seen); uniformly random pairs would spread ~13.
    per_pair = Counter(zip(votes["system_a"], votes["system_b"]))
    assert len(per_pair) == 6 and max(per_pair.values()) - min(per_pair.values()) <= 8
    assert len(t.ratings) == 0


def test_pairwise_export_is_analysed_with_the_planted_order(demo_crowd):
    study, storage, _ = demo_crowd
    data = export_bytes(StudyResults(study, storage.records(study=study.id)).tables, study.systems)
    votes = pd.read_csv(StringIO(data["pairwise.csv"].decode()), dtype=str)
    res = analyze_votes(votes, n_boot=200)
    # bots' planted quality: the first listed system best, the last worst
    assert res["ranking"][0]["system"] == "Marquee" and res["ranking"][-1]["system"] == "Static"
    assert res["n_participants"] < 36  # flagged bots (straight-liners, speeders, failed checks) left out


def test_the_attention_check_is_recorded_but_not_a_vote(demo_crowd):
    study, storage, results = demo_crowd
    t = StudyResults(study, storage.records(study=study.id)).tables
    checks = [r for r in storage.records(study=study.id) if r["kind"] == "pairwise" and r.get("attention_check")]
    assert checks and all("attention_passed" in r for r in checks)
    assert not t.compare["pairwise.csv"]["situation_id"].eq(study.config.attention_check.situation).any()
    failed = {r["participant"] for r in checks if not r["attention_passed"]}
    assert failed <= set(t.participants.loc[t.participants["excluded"], "participant"])


def test_pairwise_answers_are_checked(tmp_path):
    study = study_with(tmp_path, kind="pairwise", allow_tie=False, justification="required", justification_min_chars=10)
    flow, token = start(study)
    step = flow.current(flow.state(token))
    assert step.kind == "pairwise" and len(step.order) == 2
    res = flow.submit(token, step.name, {"choices": {"meaningful": "About the same"}, "justification": "short"})
    assert not res.ok
    assert any("choose response A or B" in e for e in res.errors)
    assert any("at least 10 characters" in e for e in res.errors)
    ok = flow.submit(token, step.name, {"choices": {"meaningful": "B"}, "justification": "B names a real film"})
    assert ok.ok
    rec = next(r for r in flow.storage.records(participant=token) if r["kind"] == "pairwise")
    assert rec["choices"]["meaningful"] == step.order[1]
    assert [r["system"] for r in rec["responses"]] == list(step.order)


def test_best_worst_steps_show_a_set_and_refuse_the_same_pick(tmp_path):
    study = study_with(tmp_path, kind="best_worst", set_size=3)
    flow, token = start(study)
    step = flow.current(flow.state(token))
    assert step.kind == "best_worst" and len(step.order) == 3
    bad = flow.submit(token, step.name, {"best": {"meaningful": "A"}, "worst": {"meaningful": "A"}})
    assert not bad.ok and "must be different" in bad.errors[0]
    assert flow.submit(token, step.name, {"best": {"meaningful": "A"}, "worst": {"meaningful": "C"}}).ok
    assert flow.progress(flow.state(token))[0] == 1


def test_bots_play_best_worst_and_the_export_ranks_it(tmp_path):
    study = study_with(tmp_path, kind="best_worst")
    storage = MemoryStorage()
    run_bots(study, storage, 30, strategy="attentive", seed=5, start=FakeClock()())
    t = StudyResults(study, storage.records(study=study.id)).tables
    bw = t.compare["best_worst.csv"]
    assert list(bw.columns[:7]) == ["participant", "condition", "situation_id", "criterion", "systems", "best", "worst"]
    assert bw["systems"].str.count(r"\|").eq(3).all()  # every system shown (set_size default)
    res = analyze_best_worst(bw, n_boot=100)
    assert res["scores"][0]["system"] == "Alpha" and res["scores"][-1]["system"] == "Delta"


def test_adaptive_pairs_study_runs(tmp_path):
    study = study_with(tmp_path, kind="pairwise", pairs="adaptive")
    storage = MemoryStorage()
    results = run_bots(study, storage, 20, strategy="attentive", seed=8, start=FakeClock()())
    assert all(r.completed for r in results)
    votes = StudyResults(study, storage.records(study=study.id)).tables.compare["pairwise.csv"]
    assert len(votes) == 20 * 4


GOLD = [
    {"context": [{"role": "user", "text": f"question {i}"}], "a": f"good {i}", "b": f"bad {i}", "answer": "A"}
    for i in range(4)
]


def onboarding_study(tmp_path, lines=None):
    import json

    folder = make_study(
        tmp_path,
        systems=SYSTEMS,
        per_participant=5,
        protocol={"kind": "pairwise", "onboarding": "gold.jsonl", "onboarding_threshold": 0.75},
    )
    (folder / "gold.jsonl").write_text(lines if lines is not None else "".join(json.dumps(g) + "\n" for g in GOLD))
    return folder


def test_onboarding_gold_pairs_screen_out_below_the_threshold(tmp_path):
    study = load_study(onboarding_study(tmp_path))
    flow, token = start(study)
    assert flow.current(flow.state(token)).kind == "onboarding"
    assert not flow.submit(token, "onboarding", {"gold": {"1": "A"}}).ok  # every example needs an answer
    res = flow.submit(token, "onboarding", {"gold": {"1": "A", "2": "A", "3": "B", "4": "B"}})  # 2 of 4
    assert res.ok and res.state.complete["outcome"] == "screened_out"
    flow2, token2 = start(study)
    ok = flow2.submit(token2, "onboarding", {"gold": {"1": "A", "2": "A", "3": "A", "4": "B"}})  # 3 of 4
    assert ok.ok and ok.next_step.kind == "pairwise"
    rec = next(r for r in flow2.storage.records(participant=token2) if r["kind"] == "onboarding")
    assert (rec["correct"], rec["attention_passed"]) == (3, True)


def test_onboarding_file_is_checked_at_load(tmp_path):
    from infact.errors import InfactError

    folder = onboarding_study(
        tmp_path, '{"context": [{"role": "bot", "text": "hi"}], "a": "x", "b": "", "answer": "C"}\n'
    )
    with pytest.raises(InfactError) as e:
        load_study(folder)
    text = str(e.value)
    assert "gold.jsonl:1: [context] context must end with a user turn" in text
    assert "gold.jsonl:1: [b]" in text and "gold.jsonl:1: [answer]" in text


def test_bots_pass_or_fail_onboarding_by_strategy(tmp_path):
    study = load_study(onboarding_study(tmp_path))
    storage = MemoryStorage()
    good = run_bots(study, storage, 4, strategy="attentive", seed=1, start=FakeClock()())
    bad = run_bots(study, storage, 3, strategy="fails-attention", seed=2, start=FakeClock()())
    assert all(r.outcome == "completed" for r in good)
    assert all(r.outcome == "screened_out" for r in bad)
