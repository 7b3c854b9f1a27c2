"""How evenly the votes are spread, and the fit with pairs reweighted inversely to their frequency.

The "Leaderboard Illusion" audit (2025) showed that arenas which show some systems far more
often skew their leaderboards; LMArena now reweights each pair inversely to how often it was
compared. `balance` reports the spread (largest / smallest count over pairs, situations and
systems, and pairs never compared); `reweighted_design` gives every compared pair the same total
weight, keeping the total number of votes, so the fit answers "who wins on a balanced schedule".
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from infact.stats import bradley_terry


def _spread(counts: pd.Series) -> dict:
    counts = counts[counts > 0]
    if counts.empty:
        return {"n": 0, "largest": 0, "smallest": 0, "ratio": None}
    return {
        "n": int(len(counts)),
        "largest": int(counts.max()),
        "smallest": int(counts.min()),
        "ratio": float(counts.max() / counts.min()),
    }


def balance(votes: pd.DataFrame) -> dict:
    """{pairs, situations, systems: {n, largest, smallest, ratio}, pairs_never_compared: [[a, b], …]}."""
    systems = sorted(set(votes["system_a"].unique()) | set(votes["system_b"].unique()))
    a, b = (pd.Categorical(votes[c], categories=systems).codes.astype(np.int64) for c in ("system_a", "system_b"))
    k = len(systems)
    per_pair = np.bincount(np.minimum(a, b) * k + np.maximum(a, b), minlength=k * k)
    out = {
        "pairs": _spread(pd.Series(per_pair)),
        "systems": _spread(pd.Series(np.bincount(a, minlength=k) + np.bincount(b, minlength=k))),
        "pairs_never_compared": [
            [systems[i], systems[j]] for i, j in combinations(range(k), 2) if not per_pair[i * k + j]
        ],
    }
    out["situations"] = (
        _spread(pd.Series(pd.factorize(votes["situation_id"].astype(str))[0]).value_counts())
        if "situation_id" in votes.columns
        else None
    )
    return out


def reweighted_design(d: bradley_terry.Design) -> bradley_terry.Design:
    """The same votes with each pair pattern weighted by (votes / compared pairs) / its count (no covariates)."""
    per_pattern = d.counts.sum(axis=1)
    weights = np.divide(
        per_pattern.sum() / max((per_pattern > 0).sum(), 1),
        per_pattern,
        out=np.zeros_like(per_pattern),
        where=per_pattern > 0,
    )
    scale = sp.diags(np.repeat(weights, 3))
    return replace(d, cluster_counts=sp.csr_matrix(d.cluster_counts @ scale))
