"""Quality assessment: each bot strategy gets exactly its flags, decision and Prolific action."""

from __future__ import annotations

import pandas as pd
import pytest

from infact.errors import ConfigError
from infact.results.quality.exclusion import (
    FLAGS,
    assess,
    assess_store,
    for_csv,
    manual_event,
    relative_speed_index,
    steps_table,
)
from infact.study.platform_config import PlatformConfig
from infact.study.quality_config import QualityConfig, cross_check
from tests.support.studies import parse_section

SYSTEMS = ["KBRD", "KGSF", "BARCOR"]
N_SIT = 10
CHECK_STEP = 5  # situation-5 is the instructed-response check
CFG = QualityConfig()


def participant(
    pid,
    *,
    status="completed",
    speed=1.0,
    ratings="varied",
    attention=True,
    questionnaire_attention=None,
    criteria=("relevance",),
    sit_seconds=None,
    preview=False,
):
    """Rows for one bot: ratings.csv rows, its participants.csv row and its page times.

    `ratings`: "varied", "same" (all 3s) or a callable (step, system, criterion) -> rating.
    `speed` divides every page time; `sit_seconds` overrides situation times per step.
    """
    rate = {
        "varied": lambda i, s, c: 1 + (i + SYSTEMS.index(s)) % 5,
        "same": lambda i, s, c: 3,
    }.get(ratings, ratings)
    rows, steps = [], [{"participant": pid, "step": "consent", "seconds": 20 / speed}]
    for i in range(1, N_SIT + 1):
        secs = (sit_seconds or {}).get(i, (28 + i % 5) / speed)
        check = i == CHECK_STEP
        for pos, sysname in enumerate(SYSTEMS, 1):
            for crit in criteria:
                rows.append(
                    {
                        "participant": pid,
                        "step_index": i,
                        "situation_id": f"s{i}",
                        "system": sysname,
                        "criterion": crit,
                        "rating": 1 if check else rate(i, sysname, crit),
                        "position": pos,
                        "seconds": secs,
                        "is_attention_check": check,
                    }
                )
        steps.append({"participant": pid, "step": f"situation-{i}", "seconds": secs})
    steps.append({"participant": pid, "step": "questionnaire", "seconds": 40 / speed})
    total = sum(s["seconds"] for s in steps)
    prow = {
        "participant": pid,
        "status": status,
        "total_seconds": total if status != "in_progress" else None,
        "attention_passed": attention,
        "questionnaire_attention_passed": questionnaire_attention,
        "preview": preview,
    }
    return rows, prow, steps


def study(*bots):
    ratings, parts, steps = [], [], []
    for r, p, s in bots:
        ratings += r
        parts.append(p)
        steps += s
    return pd.DataFrame(ratings), pd.DataFrame(parts), pd.DataFrame(steps)


def run(*bots, events=(), cfg=CFG, expected_minutes=None):
    ratings, parts, steps = study(*bots)
    out = assess(ratings, parts, steps, list(events), cfg, expected_minutes)
    return out.set_index("participant")


ATTENTIVE = [participant(f"att{i}") for i in range(3)]


def test_each_bot_strategy_gets_exactly_its_flags():
    out = run(
        *ATTENTIVE,
        participant("straight", ratings="same"),
        participant("speeder", speed=4),
        participant("inattentive", attention=False),
    )
    expected = {
        "att0": [],
        "att1": [],
        "att2": [],
        "straight": ["straightliner"],
        "speeder": ["speeder_rsi", "speeder_total_time"],
        "inattentive": ["attention_failed"],
    }
    assert out["flags"].to_dict() == expected
    assert out["decision"].to_dict() == {p: ("exclude" if f else "include") for p, f in expected.items()}
    # A 6-minute study with one failed check: no grounds to reject on Prolific.
    assert set(out["prolific_action"]) == {"approve"}
    assert out.loc["straight", "reasons"] == ["rated all responses identically in 9 of 9 situations (threshold 80%)"]
    assert out.loc["speeder", "rsi"] == pytest.approx(4, rel=0.05)
    assert out.loc["att0", "rsi"] == pytest.approx(1, abs=0.05)
    assert "4.0 times faster" in out.loc["speeder", "reasons"][0]
    assert all(f in FLAGS for fs in out["flags"] for f in fs)


def test_two_failed_checks_in_long_study_are_grounds_for_rejection():
    out = run(*ATTENTIVE, participant("x", attention=False, questionnaire_attention=False))
    assert out.loc["x", "flags"] == ["attention_failed", "questionnaire_attention_failed"]
    assert out.loc["x", "failed_checks"] == 2
    assert out.loc["x", "prolific_action"] == "eligible_for_rejection"
    assert "return" in out.loc["x", "prolific_reason"]


@pytest.mark.parametrize(
    "minutes, action",
    [(4, "eligible_for_rejection"), (5, "approve"), (20, "approve"), (None, "approve")],
)
def test_one_failed_check_rejects_only_in_studies_under_five_minutes(minutes, action):
    # The bots' own median (6 min) is used when no expected duration is given.
    out = run(*ATTENTIVE, participant("x", attention=False), expected_minutes=minutes)
    assert out.loc["x", "prolific_action"] == action
    assert out.loc["x", "decision"] == "exclude"


def test_excluded_but_not_rejectable_can_be_asked_to_return():
    cfg = QualityConfig(prolific_excluded_action="ask_to_return")
    out = run(*ATTENTIVE, participant("x", attention=False), participant("s", ratings="same"), cfg=cfg)
    assert out.loc["x", "prolific_action"] == "ask_to_return"
    assert out.loc["s", "prolific_action"] == "ask_to_return"
    assert out.loc["att0", "prolific_action"] == "approve"


def test_manual_exclude_then_include_wins_by_time_and_keeps_the_note():
    ex = manual_event("straight", "exclude", "typed gibberish in feedback", study="st", at="2024-05-01T10:00:00+00:00")
    inc = manual_event(
        "straight", "include", "checked by hand: ratings fit the dialogs", study="st", at="2024-05-02T10:00:00+00:00"
    )
    out = run(*ATTENTIVE, participant("straight", ratings="same"), events=[inc, ex])  # order given does not matter
    row = out.loc["straight"]
    assert row["decision"] == "include"
    assert row["flags"] == ["straightliner"]  # automatic evidence stays visible
    assert row["manual_note"] == "checked by hand: ratings fit the dialogs"
    assert row["reasons"][-1] == (
        "included by researcher (overrides the automatic flags): checked by hand: ratings fit the dialogs"
    )
    assert row["prolific_action"] == "approve"


def test_manual_exclusion_of_a_clean_participant():
    ev = manual_event("att1", "exclude", "duplicate account", "dr. x", study="st")
    out = run(*ATTENTIVE, events=[ev, {"kind": "event", "action": "exclude", "target": "att2", "preview": True}])
    assert out.loc["att1", "flags"] == ["manually_excluded"]
    assert out.loc["att1", "reasons"] == ["excluded by dr. x: duplicate account"]
    assert out.loc["att1", "prolific_action"] == "approve"  # no failed checks: no rejection
    assert out.loc["att2", "decision"] == "include"  # preview events never count


def test_in_progress_and_withdrawn_get_no_speed_flags_or_prolific_action():
    out = run(
        *ATTENTIVE,
        participant("busy", status="in_progress", speed=10),
        participant("gone", status="withdrawn", speed=10),
    )
    # Unfinished: left out of the analysis as "incomplete", but never judged on speed.
    assert out.loc["busy", "flags"] == ["incomplete"] and out.loc["busy", "decision"] == "exclude"
    assert pd.isna(out.loc["busy", "prolific_action"])
    assert pd.isna(out.loc["busy", "rsi"])
    assert out.loc["gone", "flags"] == ["withdrawn"] and out.loc["gone", "decision"] == "exclude"
    assert pd.isna(out.loc["gone", "prolific_action"])
    # Unfinished sessions do not shift the medians the others are compared with.
    assert out.loc["att0", "rsi"] == pytest.approx(run(*ATTENTIVE).loc["att0", "rsi"])


def test_screened_out_is_judged_by_rsi_but_not_total_time():
    r, p, s = participant("early", status="screened_out", attention=False)
    # Ended after the check: only its first pages exist, at normal speed.
    r = [x for x in r if x["step_index"] <= CHECK_STEP]
    s = [
        x
        for x in s
        if x["step"] in ("consent",) or x["step"].startswith("situation-") and int(x["step"][10:]) <= CHECK_STEP
    ]
    p["total_seconds"] = sum(x["seconds"] for x in s)
    out = run(*ATTENTIVE, (r, p, s))
    assert out.loc["early", "flags"] == ["attention_failed"]
    assert out.loc["early", "prolific_action"] == "approve"


def test_preview_participants_are_left_out():
    out = run(*ATTENTIVE, participant("researcher", speed=50, preview=True))
    assert "researcher" not in out.index
    assert out.loc["att0", "flags"] == []


def test_fast_situations_need_more_than_the_configured_share():
    cfg = QualityConfig(rsi_threshold=100, min_total_fraction_of_median=0)
    fast6 = dict.fromkeys((1, 2, 3, 4, 6, 7), 2.0)  # 6 of 9 rated situations
    fast4 = dict.fromkeys((1, 2, 3, 4), 2.0)  # 4 of 9
    out = run(*ATTENTIVE, participant("f6", sit_seconds=fast6), participant("f4", sit_seconds=fast4), cfg=cfg)
    assert out.loc["f6", "flags"] == ["fast_situations"]
    assert out.loc["f6", "reasons"] == ["answered 6 of 9 situations in under 3 s (threshold 50%)"]
    assert out.loc["f4", "flags"] == []


def test_attention_check_situation_does_not_count_as_straight_lining():
    # Straight in 7 of the 9 rated situations (78% < 80%); counting the check would make it 8 of 10.
    def mostly_same(i, s, c):
        return 3 if i not in (1, 2) else 1 + SYSTEMS.index(s)

    out = run(*ATTENTIVE, participant("x", ratings=mostly_same))
    assert out.loc["x", "flags"] == []


def test_straight_lining_is_judged_per_criterion():
    crit = ("relevance", "fluency")
    per_crit_same = participant("pc", criteria=crit, ratings=lambda i, s, c: 2 if c == "relevance" else 4)
    differs = participant("d", criteria=crit, ratings=lambda i, s, c: 3 if c == "relevance" else 1 + SYSTEMS.index(s))
    out = run(*[participant(f"a{i}", criteria=crit) for i in range(3)], per_crit_same, differs)
    assert out.loc["pc", "flags"] == ["straightliner"]
    assert out.loc["d", "flags"] == []


def test_too_few_situations_for_straight_lining():
    r, p, s = participant("short", status="in_progress", ratings="same")
    r = [x for x in r if x["step_index"] <= 2]
    out = run(*ATTENTIVE, (r, p, s))
    assert out.loc["short", "flags"] == ["incomplete"]  # no "straightliner" on two situations


def test_csv_round_trip_and_assess_store_without_steps(tmp_path):
    ratings, parts, _ = study(*ATTENTIVE, participant("x", attention=False), participant("sp", speed=4))
    parts["consent_seconds"] = [20, 20, 20, 20, 5]
    ratings.to_csv(tmp_path / "ratings.csv", index=False)
    parts.to_csv(tmp_path / "participants.csv", index=False)
    tables = {
        "ratings": pd.read_csv(tmp_path / "ratings.csv"),
        "participants": pd.read_csv(tmp_path / "participants.csv", dtype={"attention_passed": str}),
    }
    out = assess_store(tables, [], CFG).set_index("participant")
    assert out.loc["x", "flags"] == ["attention_failed"]
    assert out.loc["sp", "flags"] == ["speeder_rsi", "speeder_total_time"]
    assert out.loc["att0", "flags"] == []
    flat = for_csv(out.reset_index())
    assert flat.set_index("participant").loc["sp", "flags"] == "speeder_rsi; speeder_total_time"


def test_rsi_floors_zero_second_pages():
    steps = pd.DataFrame(
        [
            {"participant": "a", "step": "p1", "seconds": 10.0},
            {"participant": "b", "step": "p1", "seconds": 0.0},
        ]
    )
    rsi = relative_speed_index(steps, ["a", "b"])
    assert rsi["b"] == pytest.approx(((10 + 0.5) / 2) / 0.5)  # median taken after the floor


def test_steps_table_from_records():
    records = [
        {"participant": "a", "kind": "consent", "step": "consent", "seconds": 12.0},
        {"participant": "a", "kind": "shown", "step": "situation-1", "shown_at": "x"},
        {"participant": "a", "kind": "situation", "step": "situation-1", "seconds": 30.0},
        {"participant": "a", "kind": "situation", "step": "situation-2", "seconds": 30.0, "preview": True},
        {"participant": "a", "kind": "complete", "total_seconds": 99.0},
    ]
    assert steps_table(records).to_dict("records") == [
        {"participant": "a", "step": "consent", "seconds": 12.0},
        {"participant": "a", "step": "situation-1", "seconds": 30.0},
    ]


# ------------------------------------------------------------------ events and config


def test_manual_event_record_shape():
    ev = manual_event("tok1", "exclude", "  bot-like text ", study="crs1", dataset_version="abc")
    assert ev["key"].startswith("crs1/_researcher/event/")
    assert ev["participant"] == "_researcher" and ev["kind"] == "event"
    assert (ev["action"], ev["target"], ev["note"], ev["study"]) == ("exclude", "tok1", "bot-like text", "crs1")
    assert ev["at"].endswith("+00:00") and ev["preview"] is False
    assert manual_event("tok1", "include", "ok", study="crs1")["key"] != ev["key"]


@pytest.mark.parametrize("args", [("tok", "delete", "x"), ("tok", "exclude", " "), ("_researcher", "exclude", "x")])
def test_manual_event_refuses_bad_input(args):
    with pytest.raises(ValueError):
        manual_event(*args, study="s")


@pytest.mark.parametrize(
    "table, key, text",
    [
        ({"rsi_threshold": 0.5}, "quality.rsi_threshold", "above 1"),
        ({"straightline_share": 1.5}, "quality.straightline_share", "(0, 1]"),
        ({"max_fast_situations_share": 0}, "quality.max_fast_situations_share", "(0, 1]"),
        ({"min_total_fraction_of_median": 1}, "quality.min_total_fraction_of_median", "[0, 1)"),
        ({"min_situation_seconds": -1}, "quality.min_situation_seconds", ">= 0"),
        ({"straightline_min_situations": 0}, "quality.straightline_min_situations", "at least 1"),
        ({"on_attention_fail": "stop"}, "quality.on_attention_fail", "screen_out"),
        ({"rsi_treshold": 2}, "quality.rsi_treshold", "unknown setting"),
    ],
)
def test_config_errors_name_the_key(table, key, text):
    with pytest.raises(ConfigError) as e:
        parse_section("quality", table, "study.toml")
    p = e.value.problems[0]
    assert (p.file, p.key) == ("study.toml", key)
    assert text in p.message


def test_config_defaults_and_descriptions():
    cfg = parse_section("quality", None).quality
    assert cfg == QualityConfig()
    assert (cfg.on_attention_fail, cfg.rsi_threshold, cfg.straightline_share) == ("continue", 2.0, 0.8)
    for name, f in QualityConfig.model_fields.items():
        assert f.description, name


def test_screen_out_on_prolific_needs_a_screen_out_code():
    q = QualityConfig(on_attention_fail="screen_out")
    bare = PlatformConfig(kind="prolific", completion_code="C1")
    assert [p.key for p in cross_check(bare, q)] == ["platform.screenout_code"]
    assert cross_check(bare.model_copy(update={"screenout_code": "S1"}), q) == []
    assert cross_check(bare, QualityConfig()) == []


def test_docs_name_every_flag():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "quality.md").read_text()
    for flag in FLAGS:
        assert f"`{flag}`" in doc, flag


def test_minimal_tables_without_optional_columns():
    parts = pd.DataFrame([{"participant": "a", "status": "completed"}, {"participant": "b", "status": "in_progress"}])
    out = assess_store({"participants": parts}, [], CFG).set_index("participant")
    assert out["decision"].tolist() == ["include", "exclude"]  # b has not finished: incomplete
    assert out.loc["a", "prolific_action"] == "approve"


def test_include_incomplete_keeps_unfinished_participants():
    out = run(*ATTENTIVE, participant("busy", status="in_progress"), cfg=QualityConfig(include_incomplete=True))
    assert out.loc["busy", "flags"] == [] and out.loc["busy", "decision"] == "include"
