"""The conversation protocol (CRSArena-Eval's): one system's whole conversation per page, each system
turn rated on the turn aspects, then the dialog on the dialogue aspects; a gold conversation mixed in."""

from __future__ import annotations

import shutil
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from infact.errors import ConfigError
from infact.participation.bots import run_bots
from infact.participation.flow import Flow
from infact.participation.steps.conversation import GOLD_PREFIX, conversation_of, message_numbers
from infact.results import export
from infact.results.study_results import StudyResults
from infact.stores.memory import MemoryStorage
from infact.study.loader import load_study, parse_config

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo-conversations"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self):
        self.now += timedelta(seconds=5)
        return self.now


@pytest.fixture(scope="module")
def study():
    return load_study(DEMO)


def labels_for(study, conv, pick):
    """Answers as the page sends them: `pick(aspect)` gives a value on the aspect's own scale."""
    cfg = study.config
    turns = {
        str(t): {a.id: a.label_of(pick(a)) for a in cfg.aspects if a.level == "turn"} for t in message_numbers(conv)
    }
    return {"turns": turns, "dialogue": {a.id: a.label_of(pick(a)) for a in cfg.aspects if a.level == "dialogue"}}


def started(study, storage=None):
    flow = Flow(study, storage or MemoryStorage(), clock=Clock())
    token = flow.arrive({})
    assert flow.submit(token, "consent", {"consent": True}).ok
    return flow, token


def test_zero_based_aspects_with_their_own_number_of_points_are_configured_and_checked(study):
    by_id = {a.id: a for a in study.config.aspects}
    assert by_id["relevance"].values == [0, 1, 2, 3] and by_id["interestingness"].values == [0, 1, 2]
    assert by_id["relevance"].value_of("0 Not relevant") == 0 and by_id["relevance"].value_of("4") is None
    text = (DEMO / "study.toml").read_text()
    with pytest.raises(ConfigError) as exc:
        parse_config(text.replace('level = "turn"', 'level = "turns"', 1), "study.toml")
    assert "aspects[0].level" in str(exc.value) and "study.toml:" in str(exc.value)
    without = text.split("[[aspects]]")[0] + "[platform]" + text.split("[platform]")[1]
    with pytest.raises(ConfigError, match=r"aspects: protocol.kind = \"conversation\" needs at least one"):
        parse_config(without, "study.toml")
    with pytest.raises(ConfigError, match="attention_check.enabled"):
        parse_config(text.replace("enabled = false", 'enabled = true\nsituation = "x"\npositions = [1, 2]'))


def test_each_step_is_one_conversation_and_one_is_the_unmarked_gold(study):
    flow, token = started(study)
    steps = [s for s in flow.steps(flow.state(token)) if s.kind == "conversation"]
    assert len(steps) == study.config.study.situations_per_participant == 4
    gold = [s for s in steps if s.attention_check]
    assert len(gold) == 1 and gold[0].situation_id.startswith(GOLD_PREFIX)
    assert gold[0].name.startswith("conversation-")  # named like the others: not marked
    regular = [s.situation_id for s in steps if not s.attention_check]
    assert len(set(regular)) == 3 and all(sid in {c.situation_id for c in study.situations} for sid in regular)


def test_gold_positions_vary_over_participants(study):
    storage = MemoryStorage()
    positions = set()
    for _ in range(30):
        flow, token = started(study, storage)
        positions |= {s.index for s in flow.steps(flow.state(token)) if s.attention_check}
    assert positions == {1, 2, 3, 4}


def test_an_unanswered_turn_is_refused_with_the_turn_named_and_nothing_is_stored(study):
    flow, token = started(study)
    step = flow.current(flow.state(token))
    conv, _ = conversation_of(study, step.situation_id)
    answers = labels_for(study, conv, lambda a: a.highest)
    second = [t for t, n in message_numbers(conv).items() if n == 2][0]
    answers["turns"][str(second)].pop("relevance")
    result = flow.submit(token, step.name, answers)
    assert not result.ok and result.errors == ("Please rate chatbot message 2: relevance.",)
    answers["dialogue"] = {}
    errors = flow.submit(token, step.name, answers).errors
    assert errors[-1].startswith("Please answer the questions about the whole conversation: understanding")
    assert not [r for r in flow.storage.records() if r["kind"] == "conversation"]


def test_values_are_stored_on_each_aspect_s_own_scale_with_what_was_shown(study):
    flow, token = started(study)
    step = flow.current(flow.state(token))
    conv, _ = conversation_of(study, step.situation_id)
    assert flow.submit(token, step.name, {**labels_for(study, conv, lambda a: a.lowest), "comment": " ok "}).ok
    rec = next(r for r in flow.storage.records() if r["kind"] == "conversation")
    assert set(rec["annotations"]["dialogue"].values()) == {0}
    assert all(v == {"relevance": 0, "interestingness": 0} for v in rec["annotations"]["turns"].values())
    assert [t["text"] for t in rec["turns"]] == [t.text for t in conv.conversations[rec["system"]]]
    assert rec["comment"] == "ok" and rec["dialog_id"] == conv.dialog_id


def _answer_all(flow, token, study, gold_pick, other_pick):
    st = flow.state(token)
    while (step := flow.current(st)).kind == "conversation":
        conv, expected = conversation_of(study, step.situation_id)
        answers = labels_for(study, conv, other_pick)
        if expected:
            answers = gold_pick(answers, expected)
        assert flow.submit(token, step.name, answers).ok
        st = flow.state(token)
    return st


def test_a_gold_conversation_off_by_more_than_the_tolerance_fails_like_an_attention_check(study):
    def wrong(answers, expected):
        for ind, values in expected["turns"].items():  # relevance 0 (gold) answered 3: off by 3 > 1
            for aspect, v in values.items():
                a = next(x for x in study.config.aspects if x.id == aspect)
                answers["turns"][ind][aspect] = a.label_of(a.highest if v == a.lowest else a.lowest)
        return answers

    def close(answers, expected):  # within tolerance everywhere
        for ind, values in expected["turns"].items():
            for aspect, v in values.items():
                a = next(x for x in study.config.aspects if x.id == aspect)
                answers["turns"][ind][aspect] = a.label_of(min(a.highest, v + 1))
        for aspect, v in expected["dialogue"].items():
            a = next(x for x in study.config.aspects if x.id == aspect)
            answers["dialogue"][aspect] = a.label_of(v)
        return answers

    storage = MemoryStorage()
    flow, bad = started(study, storage)
    _answer_all(flow, bad, study, wrong, lambda a: a.highest)
    flow, good = started(study, storage)
    _answer_all(flow, good, study, close, lambda a: a.highest)
    gold = {r["participant"]: r for r in storage.records() if r["kind"] == "conversation" and r["attention_check"]}
    assert gold[bad]["attention_passed"] is False and "turn 1 relevance: 3 (gold 0)" in gold[bad]["gold_misses"]
    assert gold[good]["attention_passed"] is True and gold[good]["gold_misses"] == []
    t = StudyResults(study, storage.records(study=study.id)).tables
    flags = t.flags.set_index("participant")
    reasons = " | ".join(flags.loc[bad, "reasons"])
    assert "attention_failed" in flags.loc[bad, "flags"] and "failed the gold conversation" in reasons
    assert "turn 1 relevance: 3 (gold 0)" in reasons
    assert "attention_failed" not in flags.loc[good, "flags"]


def test_conversations_go_to_the_least_annotated_first(study):
    storage = MemoryStorage()
    for _ in range(12):  # 12 participants x 3 regular conversations = 36 = 2 per conversation
        started(study, storage)
    assigned = Counter(
        s["situation_id"]
        for r in storage.records()
        if r["kind"] == "assignment"
        for s in r["steps"]
        if not s["attention_check"]
    )
    assert set(assigned) == {c.situation_id for c in study.situations} and set(assigned.values()) == {2}


def test_bots_attentive_follow_the_planted_quality_careless_fail_the_gold(study):
    storage = MemoryStorage()
    attentive = run_bots(study, storage, 18, strategy="attentive", seed=3, start=T0)
    careless = run_bots(study, storage, 4, strategy="straightliner", seed=4, start=T0) + run_bots(
        study, storage, 2, strategy="fails-attention", seed=8, start=T0
    )
    t = StudyResults(study, storage.records(study=study.id)).tables
    ann = t.compare["annotations.csv"]
    ours = ann[ann["participant"].isin([r.token for r in attentive]) & ~ann["is_gold"]]
    means = ours[ours["aspect"] == "overall_impression"].groupby("system")["value"].mean()
    assert list(means.sort_values(ascending=False).index) == ["Marquee", "Popcorn", "Reel"]  # the planted order
    flagged = {p for p, f in zip(t.flags["participant"], t.flags["flags"]) if "attention_failed" in f}
    assert {r.token for r in careless} <= flagged and not flagged & {r.token for r in attentive}


def test_annotations_csv_is_long_with_an_empty_turn_for_dialogue_rows(study, tmp_path):
    storage = MemoryStorage()
    run_bots(study, storage, 3, strategy="attentive", seed=1, start=T0)
    files = export.export_bytes(StudyResults(study, storage.records(study=study.id)).tables, study.systems)
    head = files["annotations.csv"].decode().splitlines()[0].split(",")
    assert head[:9] == [
        "participant",
        "condition",
        "dialog_id",
        "system",
        "turn",
        "aspect",
        "level",
        "value",
        "seconds",
    ]
    ann = StudyResults(study, storage.records(study=study.id)).tables.compare["annotations.csv"]
    assert ann.loc[ann["level"] == "dialogue", "turn"].isna().all()
    assert ann.loc[ann["level"] == "turn", "turn"].notna().all()
    assert set(ann["dataset"]) == {"demo"}
    # 4 conversations x (3 system turns x 2 turn aspects + 3 dialogue aspects) per bot
    assert len(ann) == 3 * 4 * (3 * 2 + 3)


def test_the_demo_study_copies_and_loads_out_of_the_box(tmp_path):
    folder = tmp_path / "study"
    shutil.copytree(DEMO, folder)
    study = load_study(folder)
    assert len(study.situations) == 18
    assert {c.meta["system"] for c in study.situations} == {"Marquee", "Popcorn", "Reel"}
    assert not study.notes


def test_speeders_through_conversations_are_flagged_for_their_seconds_per_conversation(study):
    from infact.results.quality.flags import situation_summary, situations_from_comparisons

    storage = MemoryStorage()
    run_bots(study, storage, 8, strategy="attentive", seed=6, start=T0)
    speeders = {r.token for r in run_bots(study, storage, 2, strategy="speeder", seed=7, start=T0)}
    t = StudyResults(study, storage.records(study=study.id)).tables
    fast = {p for p, f in zip(t.flags["participant"], t.flags["flags"]) if "fast_situations" in f}
    assert fast == speeders
    # the refreshing dashboard's rows from records agree with the export's rows from annotations.csv
    summaries = [situation_summary(r) for r in storage.records() if r["kind"] == "conversation"]
    from_records = sorted((s["participant"], s["step_index"], s["seconds"]) for s in summaries if s is not None)
    rows = situations_from_comparisons({"annotations.csv": t.compare["annotations.csv"]})
    assert from_records == sorted(zip(rows["participant"], rows["step_index"], rows["seconds"]))


def test_annotation_straightliners_are_flagged_and_the_dashboard_rows_agree(study):
    """Bots that give one value everywhere are flagged annotation_straightliner; attentive bots, whose turns
    follow the system's planted quality with noise, are not; the records' rows equal annotations.csv's."""
    from infact.results.quality.flags import situation_summary, situations_from_comparisons

    storage = MemoryStorage()
    honest = {r.token for r in run_bots(study, storage, 8, strategy="attentive", seed=8, start=T0)}
    flat = {r.token for r in run_bots(study, storage, 3, strategy="straightliner", seed=9, start=T0)}
    t = StudyResults(study, storage.records(study=study.id)).tables
    flagged = {p for p, f in zip(t.flags["participant"], t.flags["flags"]) if "annotation_straightliner" in f}
    assert flagged == flat and not flagged & honest
    [reason] = [r for r in t.flags.set_index("participant").loc[sorted(flat)[0], "reasons"] if "every turn" in r]
    assert reason.startswith("gave every turn the same answers in 3 of 3 conversations")
    summaries = [situation_summary(r) for r in storage.records() if r["kind"] == "conversation"]
    from_records = sorted((s["participant"], s["step_index"], s["straight"]) for s in summaries if s is not None)
    rows = situations_from_comparisons({"annotations.csv": t.compare["annotations.csv"]})
    assert from_records == sorted(zip(rows["participant"], rows["step_index"], rows["straight"]))
    assert {p for p, _, straight in from_records if straight} >= flat
