"""Both-bad rates: per system, the share of its votes where the participant found both responses bad.

A "both bad" vote (winner `both_bad`, offered where `protocol.allow_both_bad` / `live.allow_both_bad` is
set) is a tie in the Davidson fit, as LMArena counts it: it says nothing about which system is better.
It does say something absolute about both systems, so it is reported apart here: per system, both-bad
votes over all the votes it took part in, with a Wilson score interval (Wilson 1927; the interval
treats votes as independent, so with a few heavy voters it is too narrow — docs/ranking.md). The interval is
infact/stats/binomial.py's: importing statsmodels for it cost ~1 s of CPU in every `analyze` of a pairwise table.
"""

from __future__ import annotations

import pandas as pd

from infact.stats.binomial import wilson_interval

BOTH_BAD = "both_bad"


def both_bad_rates(votes: pd.DataFrame, confidence: float = 0.95) -> list[dict] | None:
    """[{system, n_votes, n_both_bad, rate, ci}] highest rate first; None when no vote is both bad."""
    is_bad = votes["winner"] == BOTH_BAD
    if not is_bad.any():
        return None
    shown = pd.concat([votes["system_a"], votes["system_b"]])
    bad = pd.concat([is_bad, is_bad])
    n, k = shown.value_counts(), shown[bad.to_numpy()].value_counts()
    rows = []
    for system in sorted(n.index):
        total, hits = int(n[system]), int(k.get(system, 0))
        lo, hi = wilson_interval(hits, total, confidence)
        rows.append(
            {
                "system": system,
                "n_votes": total,
                "n_both_bad": hits,
                "rate": hits / total,
                "ci": [float(lo), float(hi)],
            }
        )
    return sorted(rows, key=lambda r: -r["rate"])
