"""The comparison straight-liner: always the same side (or "about the same", or the N-th shown
as best) in a pairwise or best–worst study is flagged, and the flag agrees everywhere —
dashboard cards, participants.csv, flags.csv, the exclusion reasons and `analyze`."""

from __future__ import annotations

import io
from datetime import timedelta

import pandas as pd
import pytest

from infact.errors import ConfigError
from infact.participation.bots import STRATEGIES, run_bots
from infact.results.dashboard.data import DashboardData
from infact.results.export import export_bytes
from infact.results.quality import flags, funnel
from infact.results.quality.exclusion import assess_store
from infact.results.ranking.analysis import analyze_best_worst, analyze_votes
from infact.results.study_results import StudyResults
from infact.storage import MemoryStorage
from infact.study.loader import load_study
from infact.study.quality_config import QualityConfig
from tests.support.paths import REPO
from tests.support.studies import FakeClock, make_study, parse_section

FLAG = "comparison_straightliner"
SYSTEMS = ("Alpha", "Beta", "Gamma", "Delta")


def crowd(study, n=3):
    """n bots of every strategy; returns (storage, {participant: strategy})."""
    storage, who = MemoryStorage(), {}
    start = FakeClock()()
    for i, strategy in enumerate(STRATEGIES):
        for r in run_bots(study, storage, n, strategy=strategy, seed=10 + i, start=start + timedelta(minutes=i)):
            who[r.token] = strategy
    return storage, who


@pytest.fixture(scope="module")
def pairwise_crowd():
    study = load_study(REPO / "data" / "demo-pairwise")
    return (study, *crowd(study))


@pytest.fixture(scope="module")
def best_worst_crowd(tmp_path_factory):
    folder = make_study(
        tmp_path_factory.mktemp("bw"),
        systems=SYSTEMS,
        per_participant=9,
        protocol={"kind": "best_worst", "set_size": 3},
    )
    study = load_study(folder)
    return (study, *crowd(study))


@pytest.fixture(scope="module")
def acute_crowd():
    study = load_study(REPO / "data" / "demo-acute")
    return (study, *crowd(study, n=2))


def read(files: dict[str, bytes], name: str) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(files[name]))


def flagged(report: pd.DataFrame) -> set[str]:
    return {p for p, f in zip(report["participant"], report["flags"]) if FLAG in f}


@pytest.mark.parametrize(
    "crowd_name, table, words",
    [
        ("pairwise_crowd", "pairwise.csv", "chose the left response (A) in 7 of 7 comparisons"),
        ("best_worst_crowd", "best_worst.csv", "chose the response shown first as the best in 8 of 8 comparisons"),
    ],
)
def test_cards_files_dashboard_and_analysis_agree_on_the_flag(request, crowd_name, table, words):
    study, storage, who = request.getfixturevalue(crowd_name)
    records = storage.records(study=study.id)
    data = DashboardData(study)
    for start in range(0, len(records), 7):  # the live page gets records in small batches
        data.add(records[start : start + 7])
    now = FakeClock()() + timedelta(minutes=1)
    cards, overview = data.counts(now), data.overview(now)
    files = export_bytes(StudyResults(study, records, now=now).tables)
    participants, flag_csv = read(files, "participants.csv"), read(files, "flags.csv")

    # the bots that always take the first position carry the flag, and so does anyone else
    # whose picks happened to fall on one position every time (sides are drawn unseeded: rare)
    straight = {p for p, s in who.items() if s == "straightliner"}
    picks = {}
    for r in records:
        if (row := flags.situation_summary(r)) is not None and r["kind"] != "situation":
            picks.setdefault(r["participant"], []).append(row["choice"])
    least = study.config.quality.comparison_straightline_min
    one_position = {p for p, c in picks.items() if len(c) >= least and len(set(c)) == 1 and c[0] != flags.MIXED}
    assert straight <= one_position
    assert flagged(overview) == one_position
    assert {p for p, f in zip(flag_csv["participant"], flag_csv["flags"].fillna("")) if FLAG in f} == one_position
    reasons = overview.set_index("participant")["reasons"]
    assert all(any(words in r for r in reasons[p]) for p in straight), reasons[sorted(straight)[0]]

    # one funnel everywhere: cards = participants.csv, same decisions, same exclusion reasons
    assert funnel.funnel_counts(participants) == cards
    assert (
        flag_csv.set_index("participant")["decision"].to_dict()
        == overview.set_index("participant")["decision"].to_dict()
    )
    dash_reasons = funnel.exclusion_reasons(overview)
    assert dash_reasons.to_dict("records") == funnel.exclusion_reasons(participants).to_dict("records")
    assert FLAG in set(dash_reasons.iloc[:, 0])

    # analyze leaves exactly the excluded participants out (the votes file's `excluded` column)
    votes = read(files, table)
    assert set(votes.loc[votes["excluded"], "participant"]) >= straight
    res = analyze_votes(votes, n_boot=50) if table == "pairwise.csv" else analyze_best_worst(votes, n_boot=50)
    included_with_votes = set(participants.loc[~participants["excluded"], "participant"]) & set(votes["participant"])
    assert res["n_participants"] == len(included_with_votes) == cards["included"]


def test_records_and_exported_tables_give_the_same_evidence(pairwise_crowd, best_worst_crowd, acute_crowd):
    for study, storage, _ in (pairwise_crowd, best_worst_crowd, acute_crowd):
        records = storage.records(study=study.id)
        from_records = pd.DataFrame(
            [
                s
                for r in records
                if (s := flags.situation_summary(r)) is not None and r["kind"] == study.config.protocol.kind
            ]
        )
        from_tables = flags.situations_from_comparisons(
            StudyResults(study, records, include_withdrawn=True).tables.compare
        )
        key = ["participant", "step_index"]
        a = from_records.sort_values(key).reset_index(drop=True)[["participant", "step_index", "n_systems", "choice"]]
        b = from_tables.sort_values(key).reset_index(drop=True)[["participant", "step_index", "n_systems", "choice"]]
        pd.testing.assert_frame_equal(a, b, check_dtype=False)
        assert {"left", "right"} <= set(a["choice"]) or any(c.startswith("best ") for c in a["choice"])


def votes_table(picks: dict[str, list], criteria=("meaningful",)) -> pd.DataFrame:
    """pairwise.csv rows: per participant a list of steps, each a side per criterion ("left", "right", "tie")
    or one side for all criteria."""
    rows = []
    for pid, steps in picks.items():
        for i, pick in enumerate(steps, start=1):
            sides = pick if isinstance(pick, tuple) else (pick,) * len(criteria)
            left, right = ("Alpha", "Beta") if i % 2 else ("Beta", "Alpha")  # sides shuffled
            for crit, side in zip(criteria, sides):
                winner = {"left": left, "right": right, "tie": "tie"}[side]
                rows.append(
                    {
                        "participant": pid,
                        "situation_id": f"s{i}",
                        "criterion": crit,
                        "system_a": "Alpha",
                        "system_b": "Beta",
                        "shown_left": left,
                        "winner": winner,
                        "seconds": 20.0,
                        "justification": "",
                        "step_index": i,
                    }
                )
    return pd.DataFrame(rows)


def assess_votes(picks, cfg=None, **kw):
    if cfg is None:
        cfg = QualityConfig()
    parts = pd.DataFrame({"participant": list(picks), "status": "completed", "total_seconds": 600.0})
    out = assess_store({"participants": parts, "pairwise": votes_table(picks, **kw)}, [], cfg)
    return out.set_index("participant")


def test_thresholds_share_minimum_and_mixed_criteria():
    picks = {
        "always_left": ["left"] * 7,
        "always_right": ["right"] * 9,
        "always_tie": ["tie"] * 8,
        "once_right": ["left"] * 6 + ["right"],
        "too_few": ["left"] * 6,
        "honest": ["left", "right", "right", "tie", "left", "right", "left", "left"],
    }
    out = assess_votes(picks)
    hits = {p for p in picks if FLAG in out.loc[p, "flags"]}
    assert hits == {"always_left", "always_right", "always_tie"}
    assert (
        "chose “about the same” in 8 of 8 comparisons (threshold 100% of at least 7)"
        in out.loc["always_tie", "reasons"]
    )
    assert "the right response (B) in 9 of 9" in out.loc["always_right", "reasons"][0]
    lax = assess_votes(picks, QualityConfig(comparison_straightline_share=0.85, comparison_straightline_min=6))
    assert {p for p in picks if FLAG in lax.loc[p, "flags"]} == {
        "always_left",
        "always_right",
        "always_tie",
        "once_right",
        "too_few",
    }
    # left on one criterion and right on the other in every step is not one side: "mixed"
    two = assess_votes(
        {"split": [("left", "right")] * 8, "both_left": [("left", "left")] * 8}, criteria=("meaningful", "engaging")
    )
    assert FLAG not in two.loc["split", "flags"] and FLAG in two.loc["both_left", "flags"]


def test_rating_straight_lining_ignores_comparisons_and_vice_versa():
    out = assess_votes({"always_left": ["left"] * 8})
    assert "straightliner" not in out.loc["always_left", "flags"]
    assert flags.situations_from_comparisons({}).columns.tolist() == flags.SITUATION_COLUMNS


def test_dialog_level_votes_are_judged_like_response_level_ones(acute_crowd):
    study, storage, who = acute_crowd  # four conversation pairs each: below the default minimum of 7
    t = StudyResults(study, storage.records(study=study.id)).tables
    assert not any(FLAG in f for f in t.flags["flags"])
    four = QualityConfig(comparison_straightline_min=4)
    out = assess_store({"participants": t.participants, "pairwise": t.compare["pairwise.csv"]}, [], four)
    straight = {p for p, s in who.items() if s == "straightliner"} & set(t.compare["pairwise.csv"]["participant"])
    picks = {}
    for r in storage.records(study=study.id):
        if (row := flags.situation_summary(r)) is not None:
            picks.setdefault(r["participant"], []).append(row["choice"])
    # with only four comparisons an honest participant also hits one side by chance (1 in 8)
    one_position = {p for p, c in picks.items() if len(c) >= 4 and len(set(c)) == 1 and c[0] != flags.MIXED}
    assert straight and straight <= one_position and flagged(out) == one_position


@pytest.mark.parametrize(
    "table, key, text",
    [
        ({"comparison_straightline_share": 0}, "quality.comparison_straightline_share", "(0, 1]"),
        ({"comparison_straightline_share": 1.2}, "quality.comparison_straightline_share", "(0, 1]"),
        ({"comparison_straightline_min": 0}, "quality.comparison_straightline_min", "at least 1"),
    ],
)
def test_config_errors_name_the_key(table, key, text):
    with pytest.raises(ConfigError) as e:
        parse_section("quality", table, "study.toml")
    p = e.value.problems[0]
    assert (p.file, p.key) == ("study.toml", key) and text in p.message
