"""Bot participants: every strategy leaves the records and the quality flags it should."""

from __future__ import annotations

import random
from collections import Counter

import pandas as pd
import pytest

from infact.participation.bots import MIX, STRATEGIES, Bot, pick_strategies, run_bots
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import submit_consent
from tests.support.paths import DEMO_STUDY
from tests.support.studies import FakeClock, make_study

PER_STRATEGY = {
    "attentive": 8,
    "straightliner": 3,
    "speeder": 3,
    "fails-attention": 3,
    "refresh-midway": 3,
    "abandons": 3,
    "fails-comprehension": 3,
}
# What quality.assess says about each strategy in a crowd of all of them (demo study: 12 minutes,
# so Prolific needs two failed checks for a rejection; fails-attention fails both).
EXPECTED = {
    "attentive": (set(), "include", "approve"),
    "refresh-midway": (set(), "include", "approve"),
    "straightliner": ({"straightliner"}, "exclude", "approve"),
    "speeder": ({"speeder_rsi", "speeder_total_time", "fast_situations"}, "exclude", "approve"),
    "fails-attention": ({"attention_failed", "questionnaire_attention_failed"}, "exclude", "eligible_for_rejection"),
    "abandons": ({"incomplete"}, "exclude", None),  # in progress: no speed checks, nothing to act on
    "fails-comprehension": (set(), "include", "approve"),  # the demo has no [comprehension]: attentive
}
ANSWER_KINDS = ("consent", "situation", "questionnaire", "demographics")


@pytest.fixture(scope="module")
def demo():
    return load_study(DEMO_STUDY)


@pytest.fixture(scope="module")
def crowd(demo):
    """Every strategy played through the demo study into one store."""
    storage = MemoryStorage()
    start = FakeClock()()
    strategy_of = {}
    results = []
    for i, (strategy, n) in enumerate(PER_STRATEGY.items()):
        for r in run_bots(demo, storage, n, strategy=strategy, seed=11 + i, start=start):
            strategy_of[r.token] = strategy
            results.append(r)
    return storage, results, strategy_of


def records_of(storage, token):
    return storage.records(participant=token)


def test_every_strategy_is_played(crowd):
    _, results, _ = crowd
    assert Counter(r.strategy for r in results) == PER_STRATEGY
    assert set(PER_STRATEGY) == set(STRATEGIES)


@pytest.mark.parametrize("strategy", ["attentive", "straightliner", "speeder", "fails-attention", "refresh-midway"])
def test_finishing_strategies_answer_every_step(crowd, demo, strategy):
    storage, results, _ = crowd
    for r in (r for r in results if r.strategy == strategy):
        recs = records_of(storage, r.token)
        answered = [x["step"] for x in recs if x["kind"] in ANSWER_KINDS]
        assert answered == ["consent"] + [f"situation-{i}" for i in range(1, 11)] + ["questionnaire", "demographics"]
        assert r.completed and r.steps_submitted == 13
        [complete] = [x for x in recs if x["kind"] == "complete"]
        assert complete["outcome"] == "completed" and complete["completion_code"] == r.completion_code
        assert len({x["key"] for x in recs}) == len(recs)


def test_abandoning_bots_stop_after_a_few_situations(crowd):
    storage, results, _ = crowd
    for r in (r for r in results if r.strategy == "abandons"):
        recs = records_of(storage, r.token)
        kinds = Counter(x["kind"] for x in recs)
        assert not r.completed and r.completion_code is None
        assert "complete" not in kinds and "questionnaire" not in kinds
        assert 2 <= kinds["situation"] <= 5 and r.steps_submitted == 1 + kinds["situation"]


def test_refresh_midway_leaves_the_same_records_as_attentive(crowd):
    storage, results, _ = crowd

    def shape(token):
        recs = records_of(storage, token)
        return sorted(x["key"].split("/", 2)[2] for x in recs)

    attentive = shape(next(r.token for r in results if r.strategy == "attentive"))
    for r in (r for r in results if r.strategy == "refresh-midway"):
        assert shape(r.token) == attentive  # no duplicates, nothing missing
        assert r.steps_submitted == 13  # the double submit was not counted as stored


def test_bot_behaviour_shows_in_the_stored_answers(crowd, demo):
    storage, results, strategy_of = crowd
    t = StudyResults(demo, storage.records()).tables
    r = t.ratings[~t.ratings["is_attention_check"]]
    r = r.assign(strategy=r["participant"].map(strategy_of))
    same = r.groupby(["strategy", "participant", "step_index"])["rating"].nunique().eq(1).groupby("strategy").mean()
    assert same["straightliner"] == 1.0 and same["attentive"] < 0.5
    secs = r.groupby("strategy")["seconds"]
    assert secs.max()["speeder"] <= 2.5 and secs.min()["attentive"] >= 3
    # attentive bots plant a quality ranking: first system best, last worst
    att = r[r["strategy"] == "attentive"].groupby("system")["rating"].mean()
    assert att["CineMate"] > att["FlickBot"] > att["ReelTalk"]
    checks = t.ratings[t.ratings["is_attention_check"]].assign(strategy=lambda d: d["participant"].map(strategy_of))
    p = t.participants.assign(strategy=t.participants["participant"].map(strategy_of))
    passed = p.dropna(subset=["attention_passed"]).groupby("strategy")["attention_passed"].agg(set)
    assert passed["fails-attention"] == {False}
    assert all(passed[s] == {True} for s in ("attentive", "straightliner", "speeder", "refresh-midway"))
    assert len(checks) > 0


def test_quality_flags_per_strategy(crowd, demo):
    storage, _, strategy_of = crowd
    flags = StudyResults(demo, storage.records()).tables.flags
    assert len(flags) == sum(PER_STRATEGY.values())
    for row in flags.itertuples():
        want_flags, want_decision, want_action = EXPECTED[strategy_of[row.participant]]
        got_action = None if pd.isna(row.prolific_action) else row.prolific_action
        assert (set(row.flags), row.decision, got_action) == (want_flags, want_decision, want_action), strategy_of[
            row.participant
        ]


def test_attentive_bots_export_consistent_rows(demo):
    storage = MemoryStorage()
    results = run_bots(demo, storage, 6, strategy="attentive", seed=5, start=FakeClock()())
    t = StudyResults(demo, storage.records()).tables
    systems, criteria = len(demo.systems), len(demo.config.criteria)
    assert len(t.ratings) == 6 * 10 * systems * criteria
    assert {
        "participant",
        "situation_id",
        "dialog_id",
        "system",
        "criterion",
        "rating",
        "position",
        "seconds",
        "is_attention_check",
    } <= set(t.ratings.columns)
    assert set(t.ratings["participant"]) == {r.token for r in results}
    assert t.ratings.groupby("participant")["situation_id"].nunique().eq(10).all()
    assert t.ratings["rating"].between(1, 5).all() and t.ratings["position"].isin([1, 2, 3]).all()
    assert t.ratings["is_attention_check"].sum() == 6 * systems
    assert (t.ratings["seconds"] > 0).all()
    assert not t.ratings["excluded"].any()
    assert list(t.participants["status"]) == ["completed"] * 6
    assert set(t.participants["completion_code"]) == {r.completion_code for r in results}


def test_bots_on_a_two_criteria_study(tmp_path):
    study = load_study(make_study(tmp_path, criteria=["fluent", "relevant"], systems=("A", "B"), per_participant=4))
    storage = MemoryStorage()
    results = run_bots(study, storage, 4, seed=1, strategy="attentive", concurrency=2)
    assert all(r.completed for r in results)
    t = StudyResults(study, storage.records()).tables
    assert len(t.ratings) == 4 * 4 * 2 * 2
    assert Counter(t.ratings["criterion"]) == {"fluent": 32, "relevant": 32}


def test_fails_attention_is_screened_out_when_configured(tmp_path):
    study = load_study(make_study(tmp_path, per_participant=5, quality={"on_attention_fail": "screen_out"}))
    storage = MemoryStorage()
    [result] = run_bots(study, storage, 1, strategy="fails-attention", seed=2)
    [complete] = storage.records(participant=result.token, kind="complete")
    assert complete["outcome"] == "screened_out"
    assert result.completion_code == complete["completion_code"]
    assert "questionnaire" not in {r["kind"] for r in storage.records(participant=result.token)}


def test_strategy_mix_is_seeded(demo):
    a = pick_strategies(200, None, random.Random(4))
    assert a == pick_strategies(200, None, random.Random(4))
    assert set(a) == set(MIX)
    assert pick_strategies(3, "speeder", random.Random(0)) == ["speeder"] * 3


def test_a_seed_replays_the_same_situations_orders_and_answers(demo):
    """The same seed gives the same bots the same situations, display orders and ratings (the tokens,
    credentials, stay random); another seed does not."""

    def played(seed):
        storage = MemoryStorage()
        bots = run_bots(demo, storage, 4, seed=seed, start=FakeClock()())
        ratings = StudyResults(demo, storage.records()).tables.ratings
        bot_of = {b.token: i for i, b in enumerate(bots)}
        ratings = ratings.assign(participant=ratings["participant"].map(bot_of))
        return [b.token for b in bots], ratings.sort_values(["participant", "step_index", "position"])

    tokens, first = played(5)
    tokens_again, again = played(5)
    assert not set(tokens) & set(tokens_again)  # a second run into the same store adds new participants
    pd.testing.assert_frame_equal(first.reset_index(drop=True), again.reset_index(drop=True))
    other = played(6)[1]
    assert not first[["situation_id", "position", "rating"]].equals(other[["situation_id", "position", "rating"]])


def test_unknown_strategy_is_refused(demo):
    with pytest.raises(ValueError, match="attentive"):
        Bot(demo, MemoryStorage(), "lazy", seed=0)


def test_preview_bots_do_not_count(demo):
    storage = MemoryStorage()
    Bot(demo, storage, "attentive", seed=0, preview=True).run()
    t = StudyResults(demo, storage.records()).tables
    assert t.ratings.empty and t.participants.empty


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_bots_answer_with_the_labels_the_page_offers(demo, strategy):
    """Bots submit what the page's widgets return: scale labels and option labels, never points."""
    from infact.participation import steps as registry
    from infact.participation.flow import Flow

    cfg = demo.config
    bot = Bot(demo, MemoryStorage(), strategy, seed=3)
    flow = Flow(demo, bot.storage)
    token = flow.arrive({})
    submit_consent(flow, token)
    for step in flow.steps(flow.state(token)):
        answers = registry.get(step.kind).bot_answers(demo, step, bot)
        if step.kind == "situation":
            given = {v for per in answers["ratings"].values() for v in per.values()}
            assert given <= set(cfg.scale.labels), given
        elif step.kind == "questionnaire":
            items = {i.id for i in cfg.questionnaire.items}
            assert {v for k, v in answers.items() if k in items} <= set(cfg.questionnaire.scale)
            assert set(answers) <= items | {"comment"}
        elif step.kind == "demographics":
            assert all(answers[d.id] in d.options for d in cfg.demographics)


def test_attentive_bots_sometimes_leave_a_comment(crowd, demo):
    storage, results, _ = crowd
    comments = [r.get("comment") for r in storage.records(kind="questionnaire")]
    assert demo.config.questionnaire.comment.enabled
    assert any(comments) and not all(comments)
    assert all(c is None or isinstance(c, str) and c for c in comments)
