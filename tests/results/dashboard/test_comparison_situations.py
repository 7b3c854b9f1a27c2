"""Per-situation votes and disagreement for the dashboard's Situations section (comparison studies)."""

import pandas as pd

from infact.results.dashboard.situations import best_worst_overview, pairwise_overview
from infact.study.situations import Situation, Turn


class Study:
    situations = [
        Situation("s1", "d1", (Turn("user", "any horror?"),), {"A": "try X", "B": "hello", "C": "try Y"}),
        Situation("s2", "d2", (), {}, conversations={"A": (), "B": ()}),
    ]


def test_pairwise_counts_each_side_ties_and_the_majority_share():
    rows = [
        ("p1", "s1", "m", "A", "B", "A", "A"),
        ("p2", "s1", "m", "B", "A", "B", "B"),  # 1 : 1 with a tie
        ("p3", "s1", "m", "A", "B", "B", "tie"),
        ("p4", "s2", "m", "A", "B", "A", "A"),  # s2: all agree on A
        ("p5", "s2", "m", "B", "A", "A", "A"),
        ("p6", "s2", "other", "A", "B", "A", "B"),
    ]
    votes = pd.DataFrame(
        rows, columns=["participant", "situation_id", "criterion", "system_a", "system_b", "shown_left", "winner"]
    )
    t = pairwise_overview(votes, Study, "m")
    first, second = t.iloc[0], t.iloc[1]
    assert (first["situation_id"], first["system_a"], first["system_b"]) == ("s1", "A", "B")
    assert (first["n"], first["wins_a"], first["wins_b"], first["ties"]) == (3, 1, 1, 1)
    assert first["majority_share"] == 1 / 3 and first["response_a"] == "try X"
    assert first["last_user_turn"] == "any horror?"
    assert (second["n"], second["wins_a"], second["majority_share"]) == (2, 2, 1.0)
    assert "dialog d2" in second["last_user_turn"]  # dialog level: no cut point to show
    assert pairwise_overview(None, Study, "m").empty


def test_best_worst_counts_shown_best_and_worst_per_system():
    rows = [
        ("p1", "s1", "m", "A|B|C", "A", "C"),
        ("p2", "s1", "m", "C|A|B", "C", "A"),
        ("p3", "s1", "m", "A|B|C", "A", "B"),
    ]
    t = best_worst_overview(
        pd.DataFrame(rows, columns=["participant", "situation_id", "criterion", "systems", "best", "worst"]), Study, "m"
    ).set_index("system")
    assert t.loc["A", ["shown", "best", "worst"]].tolist() == [3, 2, 1]
    assert t.loc["B", ["shown", "best", "worst"]].tolist() == [3, 0, 1]
    assert t.loc["C", "best_minus_worst"] == 0 and t.index[0] == "C"  # the most disputed first
