"""What the dashboard offers per study (issue 19, point 4): sections, kinds shown, downloads with rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from infact.results.dashboard import comparisons as cr
from infact.results.dashboard import offer
from infact.study.loader import load_study

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    "demo, kinds",
    [
        ("demo", ("ratings",)),
        ("demo-pairwise", ("votes",)),
        ("demo-acute", ("votes",)),
        ("demo-best-worst", ("best_worst",)),
        ("demo-live", ("ratings", "chats", "arena")),  # situations rated, then chats and a vote: one study, mixed
    ],
)
def test_each_demo_collects_what_its_protocols_ask(demo, kinds):
    assert offer.collected(load_study(REPO / "data" / demo).config) == kinds


def test_sections_follow_what_is_collected():
    rating = offer.sections(load_study(REPO / "data" / "demo").config)
    pairwise = offer.sections(load_study(REPO / "data" / "demo-pairwise").config)
    live = offer.sections(load_study(REPO / "data" / "demo-live").config)
    assert "Ranking" not in rating and "Comments" in rating  # the demo asks for a comment
    assert {"Results", "Statistics", "Ranking", "Situations"} <= set(pairwise)
    assert "Comments" not in pairwise and "Prolific" not in pairwise  # no comment asked, no Prolific
    assert {"Results", "Statistics", "Live chats", "Ranking"} <= set(live)
    assert offer.sections(load_study(REPO / "data" / "demo").config, has_judges=True)[-1] == "Judges"


def test_a_comparison_study_offers_no_rating_tables_and_no_header_only_files():
    cfg = load_study(REPO / "data" / "demo-pairwise").config
    files = {
        "ratings.csv": b"participant,rating\n",
        "ratings_wide.csv": b"participant\n",
        "infact_sheets.xlsx": b"PK..",
        "participants.csv": b"participant\np1\n",
        "questionnaire.csv": b"participant,item\n",
        "pairwise.csv": b"participant,winner\np1,A\n",
        "records.json": b"[]",
    }
    offered, empty = offer.offered_files(cfg, files)
    assert set(offered) == {"participants.csv", "pairwise.csv"}
    assert empty == ["questionnaire.csv", "records.json"]
    rating_cfg = load_study(REPO / "data" / "demo").config
    offered, _ = offer.offered_files(rating_cfg, {"ratings.csv": b"a\n1\n", "infact_sheets.xlsx": b"PK"})
    assert set(offered) == {"ratings.csv", "infact_sheets.xlsx"}


def test_vote_counts_count_ties_half_and_rank_by_win_share():
    votes = pd.DataFrame(
        {
            "participant": ["p1", "p1", "p2", "p2"],
            "system_a": ["A", "A", "A", "B"],
            "system_b": ["B", "C", "B", "C"],
            "winner": ["A", "tie", "B", "B"],
            "shown_left": ["A", "C", "A", "B"],
        }
    )
    counts = cr.vote_counts(votes).set_index("system")
    assert counts.loc["A"].to_dict() == {"votes": 3, "won": 1, "lost": 1, "tied": 1, "win_share": 0.5}
    assert counts.loc["B", "win_share"] == pytest.approx(2 / 3) and list(counts.index)[0] == "B"
    assert cr.left_share(votes) == {"n": 3, "left_share": pytest.approx(2 / 3)}


def test_best_worst_counts_score_per_showing():
    choices = pd.DataFrame(
        {"participant": ["p1", "p2"], "systems": ["A|B|C", "A|B|D"], "best": ["A", "A"], "worst": ["C", "B"]}
    )
    counts = cr.best_worst_counts(choices).set_index("system")
    assert counts.loc["A"].to_dict() == {"shown": 2, "best": 2, "worst": 0, "score": 1.0}
    assert counts.loc["B", "score"] == -0.5 and counts.loc["D", "score"] == 0
    assert cr.best_worst_counts(choices.iloc[0:0]).empty


def test_kept_leaves_out_excluded_and_other_criteria():
    df = pd.DataFrame({"criterion": ["x", "y", "x"], "excluded": [False, False, True]})
    assert len(cr.kept(df, "x")) == 1 and len(cr.kept(df, "x", include_flagged=True)) == 2
    assert len(cr.kept(df, None)) == 2 and cr.kept(None).empty
