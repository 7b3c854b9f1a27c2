"""The vote-integrity checks as the dashboard lists them: each flagged vote with its reasons, the anomaly scores,
the ranking with and without the flagged votes, and a note for whatever was skipped."""

from __future__ import annotations

from infact.results.dashboard.integrity import SHOWN_VOTES, integrity_view
from infact.results.ranking.analysis import analyze_votes
from tests.support.votes import honest


def test_flagged_votes_are_listed_with_their_reasons_beside_the_ranking_without_them():
    votes = honest(240)
    votes.loc[votes.index[:6], "seconds"] = 1.0  # faster than the 3 s reading time
    view = integrity_view(analyze_votes(votes, n_boot=100, source="t.csv"))
    assert view["summary"].startswith("Vote integrity: 6 of 240 votes flagged (faster than reading: 6")
    assert [v["line"] for v in view["votes"]] == [2, 3, 4, 5, 6, 7]  # lines of the file (header: line 1)
    assert all(v["reasons"] == "faster than reading" for v in view["votes"])
    assert [r["system"] for r in view["comparison"]] == ["A", "B", "C"]
    assert [r["rank without flagged"] for r in view["comparison"]] == [1, 2, 3] and not view["order_changed"]
    assert view["participants"] and all(0 <= p["p (simulated as unlikely)"] <= 1 for p in view["participants"])
    assert any("bootstrap replicates" in n for n in view["notes"])


def test_what_the_dashboard_skips_is_said_and_a_clean_table_flags_nothing():
    view = integrity_view(analyze_votes(honest(240), n_boot=100, source="t.csv", anomaly_max_participants=10))
    assert view["summary"] == "Vote integrity: no vote flagged among 240."
    assert view["votes"] == [] and view["comparison"] == [] and view["participants"] == []
    assert any(n.startswith("Anomaly score skipped: 20 participants") for n in view["notes"])
    assert SHOWN_VOTES >= 100
