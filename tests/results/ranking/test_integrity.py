"""Vote integrity: repeated situations / openings beyond the cap, votes faster than reading, each flagged
with its reason, and the ranking with and without them."""

from __future__ import annotations

import pandas as pd

from infact.results.ranking.analysis import analyze_votes
from infact.results.ranking.anomaly import ANOMALOUS
from infact.results.ranking.integrity import REPEATED_OPENING, REPEATED_SITUATION, TOO_FAST, flag_votes
from tests.support.votes import honest

SYSTEMS = ("A", "B", "C")


def test_a_repeated_situation_beyond_the_cap_is_flagged_and_only_the_repeats():
    votes = honest(30)
    again = votes.iloc[[0, 0, 3]].assign(step_index=99)  # p0 votes s0 twice more, p3 s3 once more
    votes = pd.concat([votes, again], ignore_index=True)
    flags = flag_votes(votes)
    assert list(flags.index) == [30, 31, 32] and set(flags["reasons"]) == {REPEATED_SITUATION}
    assert flag_votes(votes, repeat_cap=2).index.tolist() == [31]  # the third vote on s0 only
    # another participant on the same situation is no repeat; nor is another criterion
    other = votes.iloc[[0]].assign(participant="p19")
    crit = votes.iloc[[0]].assign(criterion="fluent")
    assert flag_votes(pd.concat([honest(30), other, crit], ignore_index=True)).empty


def test_fast_votes_are_flagged_but_live_votes_are_not_timed():
    votes = honest(12)
    votes.loc[[2, 5], "seconds"] = 1.5
    votes["conversation_a"] = None
    votes.loc[5, "conversation_a"] = "c5"  # a live vote: its reading was in the chats
    flags = flag_votes(votes, min_seconds=3.0)
    assert flags.index.tolist() == [2] and flags.loc[2, "reasons"] == TOO_FAST
    assert flag_votes(votes, min_seconds=1.0).empty


def test_repeated_openings_are_capped_per_participant():
    votes = honest(6).assign(participant="p0", situation_id=None, conversation_a=[f"c{i}" for i in range(6)])
    openings = {"c0": "A funny movie please", "c1": "a  funny movie PLEASE", "c2": "something scary"}
    flags = flag_votes(votes, openings=openings)
    assert flags.index.tolist() == [1] and flags.loc[1, "reasons"] == REPEATED_OPENING


def test_the_ranking_is_given_with_and_without_the_flagged_votes():
    votes = honest()
    # one participant votes C over A on the same situation twenty times, quickly: rigging by repetition
    rig = pd.DataFrame(
        [
            {**votes.iloc[1].to_dict(), "participant": "rigger", "winner": "C", "seconds": 1.0, "step_index": k}
            for k in range(150)
        ]
    )
    # (the anomaly score is off here: a rigger this heavy distorts everyone's leave-them-out fit; test_anomaly.py)
    res = analyze_votes(pd.concat([votes, rig], ignore_index=True), n_boot=100, source="t.csv", anomaly_quantile=None)
    check = res["integrity"]
    assert check["n_flagged"] == 150
    assert check["reasons"] == {REPEATED_SITUATION: 149, REPEATED_OPENING: 0, TOO_FAST: 150, ANOMALOUS: 0}
    first = check["flagged"][0]
    assert first["participant"] == "rigger" and first["line"] == len(votes) + 2 and TOO_FAST in first["reasons"]
    assert [r["system"] for r in res["ranking"]][0] == "C"  # the rigged fit
    assert [r["system"] for r in check["without_flagged"]["ranking"]] == ["A", "B", "C"]
    assert check["order_changed"] is True and check["without_flagged"]["n_votes"] == len(votes)
    clean = analyze_votes(votes, n_boot=100, source="t.csv", anomaly_quantile=None)["integrity"]
    assert clean["n_flagged"] == 0 and clean["without_flagged"] is None and clean["order_changed"] is False


def test_the_report_and_the_cli_options_carry_the_integrity_checks():
    from infact.results.analyze import Options, analysis_of, analyze_table
    from infact.results.ranking.integrity import openings_from_records

    votes = honest(60)
    votes.loc[[0, 1, 2, 3], "seconds"] = 4.0
    again = votes.iloc[[4]].assign(step_index=99)
    votes = pd.concat([votes, again], ignore_index=True)
    analysis = analysis_of(votes, Options(n_boot=100, min_vote_seconds=5.0), "pairwise.csv")
    res = analysis.result
    assert res["integrity"]["reasons"][ANOMALOUS] == 0  # honest participants (the chance of one: ~1 in 5)
    assert res["integrity"]["reasons"][TOO_FAST] == 4 and res["integrity"]["reasons"][REPEATED_SITUATION] == 1
    text = analysis.render()
    assert "Vote integrity: 5 vote(s) flagged" in text and "Without them (56 votes" in text
    assert analyze_table(votes, Options(n_boot=100, repeat_cap=2), "pairwise.csv")["integrity"]["n_flagged"] == 0
    records = [
        {"kind": "chat_message", "role": "user", "conversation_id": "c1", "turn": 2, "text": "later"},
        {"kind": "chat_message", "role": "assistant", "conversation_id": "c1", "turn": 1, "text": "hello"},
        {"kind": "chat_message", "role": "user", "conversation_id": "c1", "turn": 1, "text": "first"},
    ]
    assert openings_from_records(records) == {"c1": "first"}


def test_the_refit_without_flagged_votes_subtracts_counts_and_equals_a_rebuilt_design():
    """The ranking without the flagged votes reuses the full design less their counts (no rebuild from the
    table): the same design and the same fit as building it from the kept votes, or no shortcut at all."""
    from infact.results.ranking.analysis import _fit
    from infact.results.ranking.integrity import design_without
    from infact.results.tables.comparisons import votes_design

    votes = honest(300).assign(winner=lambda v: v["winner"].mask(v.index % 17 == 0, "tie"))
    d = votes_design(votes)
    drop = (votes.index % 7 == 0) | (votes["participant"] == "p3") & (votes.index > 100)
    kept = votes[~drop]
    shortcut, rebuilt = design_without(d, votes[drop]), votes_design(kept)
    assert shortcut.clusters == rebuilt.clusters and list(shortcut.a) == list(rebuilt.a)
    assert (shortcut.cluster_counts != rebuilt.cluster_counts).nnz == 0 and shortcut.with_ties == rebuilt.with_ties
    opts = {"n_boot": 100, "seed": 0, "confidence": 0.95}
    assert _fit(kept, 5, opts, (d, votes)) == _fit(kept, 5, opts)
    # a participant whose every vote is removed: the kept votes' design has one cluster fewer
    assert design_without(d, votes[votes["participant"] == "p3"]) is None
    without_c = votes["system_a"].eq("C") | votes["system_b"].eq("C")
    assert design_without(d, votes[without_c]) is None  # a system left without a vote
