"""Per-participant anomaly score: do a participant's votes fit the model the other participants give?

For each participant with at least `MIN_VOTES` votes, the Davidson model is refitted without them
(leave-them-out, so a heavy rigger cannot pull the model towards themself). Their votes' log-likelihood
under that fit is compared with `n_sim` simulated participants who vote on the very same pairs from the
fitted model. `p` is the share of simulated participants whose log-likelihood is as low or lower;
a participant is flagged when `p < 1 − quantile` (default quantile 0.99: about 1 attentive participant
in 100 is flagged by chance). This is the check vote-rigging studies call for (Min et al., ICML 2025:
a few hundred targeted votes move an arena ranking), in its simplest model-based form.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.stats import bradley_terry as bt

MIN_VOTES = 5  # fewer votes say too little about a participant to call them anomalous
ANOMALOUS = "anomalous participant"


def _probs(x: np.ndarray, d: bt.Design) -> np.ndarray:
    """(R, P, 3) Davidson probabilities [a wins, b wins, tie] per pattern, for each row of parameters x."""
    k = len(d.systems)
    diff = x[:, d.a] - x[:, d.b]
    ea, eb, nu = np.exp(diff / 2), np.exp(-diff / 2), np.exp(x[:, k : k + 1])
    den = ea + eb + nu
    return np.clip(np.stack([ea / den, eb / den, np.broadcast_to(nu, ea.shape) / den], axis=-1), 1e-12, 1.0)


def anomaly_scores(votes: pd.DataFrame, *, quantile: float = 0.99, n_sim: int = 500, seed: int = 0) -> list[dict]:
    """[{participant, n_votes, loglik_per_vote, p, flagged}] for participants with ≥ MIN_VOTES votes, lowest p first.

    The leave-them-out fits are one batch of Newton refits on (all counts − the participant's), as the
    cluster bootstrap refits its replicates (infact/stats/bradley_terry.py)."""
    from infact.results.tables.comparisons import votes_design

    d = votes_design(votes)
    per = d.cluster_counts.toarray().reshape(len(d.clusters), -1, 3)  # participant × pattern × outcome
    n = per.sum(axis=(1, 2))
    who = [i for i in range(len(d.clusters)) if n[i] >= MIN_VOTES and n[i] < n.sum()]
    if not who:
        return []
    start = bt.quick_fit(d)
    rest = per.sum(axis=0)[None] - per[who]
    x = np.vstack([bt.newton_refit(d, rest[lo : lo + 256], start) for lo in range(0, len(who), 256)])
    probs = _probs(x, d)
    rng = np.random.default_rng(seed)
    mine = per[who].astype(np.int64)
    logp = np.log(probs)
    observed = (mine * logp).sum(axis=(1, 2))
    share = np.empty(len(who))
    step = max(1, 2_000_000 // (n_sim * per.shape[1] * 3))
    for lo in range(0, len(who), step):  # simulated participants: the very same pairs, as often, from the fit
        block = slice(lo, lo + step)
        drawn = rng.multinomial(mine[block].sum(axis=2), probs[block], size=(n_sim, *mine[block].shape[:2]))
        simulated = (drawn * logp[block][None]).sum(axis=(2, 3))
        share[block] = (simulated <= observed[block][None] + 1e-9).mean(axis=0)
    out = [
        {
            "participant": d.clusters[i],
            "n_votes": int(n[i]),
            "loglik_per_vote": float(observed[row] / n[i]),
            "p": float(share[row]),
            "flagged": bool(share[row] < 1 - quantile),
        }
        for row, i in enumerate(who)
    ]
    return sorted(out, key=lambda r: r["p"])
