"""pairwise.csv / best_worst.csv: recognition, checks, win rates, sign tests and reshaping, on hand-computed tables."""

from __future__ import annotations

import pandas as pd
import pytest

from infact.errors import InfactError
from infact.results import kinds
from infact.results.ranking.analysis import analyze_best_worst, analyze_ratings_as_pairwise, left_side
from infact.results.tables import comparisons as pt


def votes(rows):
    return pd.DataFrame(rows, columns=["participant", "system_a", "system_b", "winner"])


def test_tables_are_recognised_by_their_declared_kind_not_their_columns():
    assert kinds.for_file("pairwise.csv").name == "pairwise"
    assert kinds.for_file("out/best_worst.csv").name == "best_worst"
    assert kinds.for_file("ratings.csv").name == "ratings"
    assert kinds.for_file("study-2024_pairwise.csv").name == "pairwise"
    assert kinds.for_file("votes.csv").name == "ratings"  # a file named after no table: ratings, unless told
    assert kinds.for_file("votes.csv", "pairwise").name == "pairwise"  # `analyze --kind pairwise`
    for file, built in (("pairwise.csv", pt.PAIRWISE_COLUMNS), ("best_worst.csv", pt.BEST_WORST_COLUMNS)):
        declared = [c for c in kinds.for_file(file).schema.names if c != "condition"]  # condition: added after
        assert declared[: len(built)] == built
    with pytest.raises(InfactError, match="no table kind 'votes'"):
        kinds.for_file("x.csv", "votes")


def test_win_rates_count_ties_half():
    v = votes(
        [
            ("p1", "A", "B", "A"),
            ("p2", "B", "A", "A"),
            ("p3", "A", "B", "tie"),
            ("p4", "A", "B", "B"),
            ("p1", "A", "C", "C"),
        ]
    )
    wr = pt.win_rates(v)
    assert wr["A"]["B"] == pytest.approx(2.5 / 4)
    assert wr["B"]["A"] == pytest.approx(1.5 / 4)
    assert wr["A"]["C"] == 0.0 and wr["C"]["A"] == 1.0
    assert wr["B"]["C"] is None  # never compared


def test_sign_test_counts_participants_not_votes():
    # p1 votes A three times, p2 once B: two participants, one each way.
    v = votes([("p1", "A", "B", "A")] * 3 + [("p2", "B", "A", "B"), ("p3", "A", "B", "tie")])
    (row,) = pt.sign_tests(v)
    assert (row["a"], row["b"], row["prefer_a"], row["prefer_b"], row["even"]) == ("A", "B", 1, 1, 1)
    assert row["p"] == pytest.approx(1.0)


def test_sign_tests_are_holm_adjusted():
    v = votes(
        [(f"p{i}", "A", "B", "A") for i in range(10)]
        + [(f"p{i}", "A", "C", "A") for i in range(6)]
        + [(f"p{i}", "B", "C", "C" if i % 2 else "B") for i in range(6)]
    )
    rows = {(r["a"], r["b"]): r for r in pt.sign_tests(v)}
    assert rows[("A", "B")]["p"] == pytest.approx(2 / 2**10)
    assert rows[("A", "B")]["p_holm"] == pytest.approx(3 * 2 / 2**10)
    assert rows[("A", "C")]["p_holm"] == pytest.approx(min(1, 2 * 2 / 2**6))
    assert all(r["p_holm"] >= r["p"] for r in rows.values())


def test_bad_votes_are_refused_with_line_and_fix():
    v = votes([("p1", "A", "B", "A"), ("p2", "A", "A", "A"), ("p3", "A", "B", "C")])
    with pytest.raises(InfactError) as e:
        pt.prepare_pairwise(v, "pairwise.csv")
    text = str(e.value)
    assert "pairwise.csv:3: [system_b]" in text
    assert "pairwise.csv:4: [winner] winner 'C' is neither 'A', 'B' nor 'tie'" in text
    with pytest.raises(InfactError, match=r"pairwise.csv:1: \[winner\] missing column"):
        pt.prepare_pairwise(v.drop(columns="winner"), "pairwise.csv")


def test_flagged_participants_are_dropped_unless_asked():
    v = votes([("p1", "A", "B", "A"), ("p2", "A", "B", "B")]).assign(excluded=["False", "True"])
    assert list(pt.prepare_pairwise(v)["participant"]) == ["p1"]
    assert len(pt.prepare_pairwise(v, include_flagged=True)) == 2


def test_ratings_imply_preferences_within_participant_and_situation():
    r = pd.DataFrame(
        {
            "participant": ["p1"] * 3 + ["p2"] * 3,
            "situation_id": ["s1"] * 3 + ["s2"] * 3,
            "system": ["A", "B", "C"] * 2,
            "rating": [5, 3, 3, 1, 2, 2],
        }
    )
    implied = pt.ratings_as_pairwise(r).sort_values(["participant", "system_a", "system_b"])
    assert list(implied["winner"]) == ["A", "A", "tie", "B", "C", "tie"]
    assert set(implied["participant"]) == {"p1", "p2"}


def test_as_pairwise_ranks_a_rating_study():
    from simulations.ratings import simulate_ratings

    df = simulate_ratings(30, 6, (2.0, 3.0, 4.0), seed=2)
    res = analyze_ratings_as_pairwise(df, n_boot=100)
    assert res["as_pairwise"] is True
    assert [r["system"] for r in res["ranking"]] == ["sys2", "sys1", "sys0"]
    assert res["n_votes"] == 30 * 6 * 3


def test_best_worst_scores_and_implied_pairs():
    bw = pd.DataFrame(
        {
            "participant": ["p1", "p1", "p2"],
            "situation_id": ["s1", "s2", "s1"],
            "criterion": "m",
            "systems": ["A|B|C", "A|B|C|D", "B|C|D"],
            "best": ["A", "A", "B"],
            "worst": ["C", "D", "D"],
        }
    )
    prepared = pt.prepare_best_worst(bw)
    scores = {s["system"]: s for s in pt.best_worst_scores(prepared, n_boot=100)}
    assert scores["A"]["score"] == pytest.approx(2 / 2)
    assert scores["D"]["score"] == pytest.approx(-2 / 2)
    assert scores["C"]["score"] == pytest.approx(-1 / 3)
    assert (scores["B"]["n_best"], scores["B"]["n_worst"], scores["B"]["n_shown"]) == (1, 0, 3)
    pairs = pt.best_worst_as_pairwise(prepared.iloc[[1]])
    # best over 3 others, 2 middles over the worst
    assert len(pairs) == 5
    assert set(pairs.loc[pairs["system_a"] == "A", "system_b"]) == {"B", "C", "D"}
    assert set(pairs.loc[pairs["system_b"] == "D", "system_a"]) == {"A", "B", "C"}


def test_best_worst_analysis_orders_systems_and_fits_plackett_luce_on_triples():
    import numpy as np

    rng = np.random.default_rng(0)
    quality = {"A": 2.0, "B": 1.0, "C": 0.0, "D": -1.0}
    rows = []
    for i in range(300):
        shown = list(rng.choice(list(quality), 3, replace=False))
        noisy = sorted(shown, key=lambda s: -(quality[s] + rng.gumbel()))
        rows.append((f"p{i % 30}", f"s{i}", "m", "|".join(shown), noisy[0], noisy[-1]))
    bw = pd.DataFrame(rows, columns=pt.BEST_WORST_COLUMNS)
    res = analyze_best_worst(bw, n_boot=100)
    assert [s["system"] for s in res["scores"]] == ["A", "B", "C", "D"]
    assert [r["system"] for r in res["ranking"]] == ["A", "B", "C", "D"]
    assert [r["system"] for r in res["plackett_luce"]["ranking"]] == ["A", "B", "C", "D"]


def test_plackett_luce_strengths_are_the_maximum_likelihood_ones():
    """The fast spectral fit gives the strengths the direct optimiser (choix.opt_rankings) gives."""
    import choix
    import numpy as np

    from infact.results.ranking.analysis import plackett_luce
    from infact.stats import bradley_terry as ranking

    rng = np.random.default_rng(1)
    quality = {"A": 1.0, "B": 0.5, "C": 0.0, "D": -1.5}
    rows = []
    for i in range(40):
        shown = list(rng.choice(list(quality), 3, replace=False))
        noisy = sorted(shown, key=lambda s: -(quality[s] + rng.gumbel()))
        rows.append((f"p{i}", f"s{i}", "m", "|".join(shown), noisy[0], noisy[-1]))
    bw = pt.prepare_best_worst(pd.DataFrame(rows, columns=pt.BEST_WORST_COLUMNS), "bw.csv", False)
    fast = {r["system"]: r["strength"] for r in plackett_luce(bw)["ranking"]}
    systems = sorted(quality)
    idx = {s: i for i, s in enumerate(systems)}
    rankings = [
        (idx[b], idx[next(s for s in shown if s not in (b, w))], idx[w])
        for shown, b, w in zip(bw["shown"], bw["best"], bw["worst"])
    ]
    direct = choix.opt_rankings(len(systems), rankings, alpha=ranking.RIDGE / len(rankings))
    direct = direct - direct.mean()
    assert [fast[s] for s in systems] == pytest.approx(list(direct), abs=1e-3)


def test_best_worst_rows_are_checked():
    bw = pd.DataFrame(
        {
            "participant": ["p1", "p2"],
            "situation_id": ["s1", "s1"],
            "criterion": "m",
            "systems": ["A|B", "A|B|C"],
            "best": ["A", "Z"],
            "worst": ["B", "C"],
        }
    )
    with pytest.raises(InfactError) as e:
        pt.prepare_best_worst(bw, "bw.csv")
    assert "bw.csv:2: [systems]" in str(e.value) and "bw.csv:3: [best] best 'Z'" in str(e.value)


def test_left_side_share():
    v = votes([("p1", "A", "B", "A"), ("p2", "A", "B", "B"), ("p3", "A", "B", "A"), ("p4", "A", "B", "tie")])
    v["shown_left"] = ["A", "B", "B", "A"]
    res = left_side(v)
    assert res["n_decisive"] == 3 and res["left_wins_share"] == pytest.approx(2 / 3)


def test_same_side_pickers_are_listed():
    rows = [("reader", "A", "B", "A" if i % 2 else "B") for i in range(12)]  # half left, half right
    rows += [("lefty", "A", "B", "A"), ("lefty", "A", "B", "B")] * 3  # always the left one
    rows += [("once", "A", "B", "A")]  # too few votes to judge
    v = votes(rows)
    v["shown_left"] = ["A"] * 12 + ["A", "B"] * 3 + ["A"]
    res = left_side(v)
    assert list(res["same_side"]) == ["lefty"]
    assert res["same_side"]["lefty"] == {"n_decisive": 6, "left_share": 1.0}
