"""The per-participant anomaly score on a planted rigging simulation: riggers found, attentive participants rarely."""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.results.ranking.anomaly import anomaly_scores
from simulations.votes import draw_outcomes

THETA = np.array([1.0, 0.5, 0.0, -0.5, -1.0])
NAMES = [f"S{i + 1}" for i in range(len(THETA))]


def rigged(n_attentive: int = 80, n_riggers: int = 3, per: int = 12, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_attentive + n_riggers):
        rigger = k >= n_attentive
        a = rng.integers(0, len(THETA), per)
        b = (a + rng.integers(1, len(THETA), per)) % len(THETA)
        if rigger:  # a rigger's pairs all include the weakest system, and it always wins
            a, b = np.full(per, len(THETA) - 1), rng.integers(0, len(THETA) - 1, per)
        outcome = np.zeros(per, dtype=int) if rigger else draw_outcomes(THETA[a] - THETA[b], 0.5, rng)
        for i, j, o in zip(a, b, outcome):
            winner = NAMES[i] if o == 0 else NAMES[j] if o == 1 else "tie"
            x, y = sorted((NAMES[i], NAMES[j]))
            rows.append(
                {"participant": f"{'r' if rigger else 'p'}{k:03d}", "system_a": x, "system_b": y, "winner": winner}
            )
    return pd.DataFrame(rows)


def test_the_riggers_are_flagged_and_the_attentive_rarely():
    scores = anomaly_scores(rigged(), quantile=0.99, n_sim=400)
    flagged = {r["participant"] for r in scores if r["flagged"]}
    riggers = {r["participant"] for r in scores if r["participant"].startswith("r")}
    assert len(riggers) == 3 and riggers <= flagged
    attentive_flagged = len(flagged - riggers)
    assert attentive_flagged <= 4  # of 80: about 1% expected at quantile 0.99
    assert {r["participant"] for r in scores[:3]} == riggers  # lowest p first


def test_a_participant_with_few_votes_is_not_scored_and_a_looser_quantile_flags_more():
    votes = rigged(n_riggers=0)
    few = pd.DataFrame([{"participant": "x", "system_a": "S1", "system_b": "S5", "winner": "S5"}] * 3)
    scores = anomaly_scores(pd.concat([votes, few], ignore_index=True), quantile=0.99, n_sim=300)
    assert "x" not in {r["participant"] for r in scores}
    strict = sum(r["flagged"] for r in scores)
    loose = sum(r["flagged"] for r in anomaly_scores(votes, quantile=0.8, n_sim=300))
    assert loose > strict and loose <= 30  # about 20% of 80 expected at quantile 0.8


def test_analyze_flags_the_riggers_votes_and_ranks_without_them():
    from infact.results.ranking.analysis import analyze_votes
    from infact.results.ranking.anomaly import ANOMALOUS

    votes = rigged(n_riggers=3)
    check = analyze_votes(votes, n_boot=100, source="t.csv")["integrity"]
    riggers = {f"r{k:03d}" for k in range(80, 83)}
    mine = [f for f in check["flagged"] if f["participant"] in riggers]
    assert len(mine) == 36 and all(ANOMALOUS in f["reasons"] for f in mine)
    assert {r["participant"] for r in check["participants"] if r["flagged"]} >= riggers
    assert check["without_flagged"]["n_votes"] <= len(votes) - 36
    assert check["without_flagged"]["ranking"][-1]["system"] == "S5"  # the rigged system back last
