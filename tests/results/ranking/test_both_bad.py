"""'Both bad' votes: accepted by the table check, a tie in the Davidson fit, and a per-system rate."""

from __future__ import annotations

import pandas as pd
import pytest

from infact.errors import InfactError
from infact.results.dashboard import comparisons as cr
from infact.results.ranking.analysis import analyze_votes
from infact.results.ranking.both_bad import both_bad_rates
from infact.results.reports.preferences import render_markdown
from infact.results.tables import comparisons as pt


def votes(winners: list[str]) -> pd.DataFrame:
    pairs = [("A", "B"), ("A", "C"), ("B", "C")]
    rows = []
    for i, w in enumerate(winners):
        a, b = pairs[i % 3]
        rows.append(
            {
                "participant": f"p{i % 7}",
                "situation_id": f"s{i % 5}",
                "criterion": "",
                "system_a": a,
                "system_b": b,
                "shown_left": a if i % 2 else b,
                "winner": {"a": a, "b": b}.get(w, w),
            }
        )
    return pd.DataFrame(rows)


WINNERS = ["a", "a", "b", "a", "both_bad", "tie", "a", "b", "both_bad", "a", "a", "both_bad"] * 4


def test_both_bad_is_a_tie_in_the_fit_but_kept_apart_in_the_counts():
    with_bad = votes(WINNERS)
    as_ties = with_bad.assign(winner=with_bad["winner"].replace("both_bad", "tie"))
    a = analyze_votes(with_bad, n_boot=50, source="t.csv")
    b = analyze_votes(as_ties, n_boot=50, source="t.csv")
    strengths = lambda r: {x["system"]: x["strength"] for x in r["ranking"]}  # noqa: E731
    assert strengths(a) == pytest.approx(strengths(b))
    assert a["tie_parameter"] == pytest.approx(b["tie_parameter"])
    assert a["win_rates"] == b["win_rates"]
    assert (a["n_ties"], a["n_both_bad"]) == (4, 12) and (b["n_ties"], b["n_both_bad"]) == (16, 0)
    # decisive counts leave both-bad votes out, as ties
    assert [r["n_decisive"] for r in a["ranking"]] == [r["n_decisive"] for r in b["ranking"]]
    assert "both_bad" in a and "both_bad" not in b
    assert "12 both bad" in render_markdown(a) and "Wilson interval" in render_markdown(a)


def test_both_bad_rate_per_system_with_a_wilson_interval():
    rates = {r["system"]: r for r in both_bad_rates(votes(WINNERS))}
    # pair (A,B) rows 0,3,6,9 of each 12: both_bad at none; (A,C) rows 1,4,7,10: one (row 4);
    # (B,C) rows 2,5,8,11: two (rows 8, 11)
    assert (rates["A"]["n_both_bad"], rates["A"]["n_votes"]) == (4, 32)
    assert (rates["B"]["n_both_bad"], rates["B"]["n_votes"]) == (8, 32)
    assert (rates["C"]["n_both_bad"], rates["C"]["n_votes"]) == (12, 32)
    assert rates["C"]["rate"] == pytest.approx(12 / 32)
    # Wilson 95%: p=0.375, n=32 → centre (p + z²/2n)/(1 + z²/n), half-width z√(p(1−p)/n + z²/4n²)/(1 + z²/n)
    z, n, p = 1.959963984540054, 32, 12 / 32
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    assert rates["C"]["ci"] == pytest.approx([centre - half, centre + half])
    assert [r["system"] for r in both_bad_rates(votes(WINNERS))][0] == "C"  # highest rate first
    assert both_bad_rates(votes(["a", "tie", "b"])) is None


def test_the_table_check_accepts_both_bad_and_names_it_in_the_error():
    ok = pt.prepare_pairwise(votes(["a", "both_bad", "tie"]).assign(seconds=1, justification=""), "t.csv")
    assert list(ok["winner"]) == ["A", "both_bad", "tie"]
    with pytest.raises(InfactError, match="'both_bad'"):
        pt.prepare_pairwise(votes(["a", "neither"]).assign(seconds=1, justification=""), "t.csv")


def test_dashboard_vote_counts_show_both_bad_only_when_there_are_any():
    counts = cr.vote_counts(votes(["a", "both_bad", "tie"])).set_index("system")
    assert counts.loc["A"].to_dict() == {"votes": 2, "won": 1, "lost": 0, "tied": 0, "both_bad": 1, "win_share": 0.75}
    assert counts.loc["C", "lost"] == 0 and counts.loc["C", "both_bad"] == 1
    assert "both_bad" not in cr.vote_counts(votes(["a", "tie"])).columns
    # the position effect counts decisive votes only: both bad is not a win for the right side
    assert cr.left_share(votes(["a", "both_bad", "both_bad"]))["n"] == 1


@pytest.mark.slow  # 2.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_pairwise_analysis_with_both_bad_votes_imports_neither_statsmodels_nor_scipy_stats(tmp_path):
    """Their import alone cost ~1 s of CPU per `analyze` (the Wilson interval is infact/stats/binomial.py's)."""
    import subprocess
    import sys

    path = tmp_path / "pairwise.csv"
    votes(WINNERS).to_csv(path, index=False)
    code = (
        "import sys, pandas as pd, infact.kinds; from infact.results.analyze import Options, analyze_table; "
        f"r = analyze_table(pd.read_csv({str(path)!r}), Options(n_boot=100), 'pairwise.csv'); "
        "assert r['both_bad']; print(sorted(m for m in ('statsmodels', 'scipy.stats') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
