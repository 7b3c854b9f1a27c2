"""The participant-cluster covariance of the strengths in closed form (the sandwich), beside the model's.

The intervals `analyze` reports come from the participant-cluster bootstrap
(infact/stats/bradley_terry.py). For choosing the next pairs, a bootstrap per assignment is slow
and carries its own Monte-Carlo noise; the cluster-robust sandwich H⁻¹ (Σ_g U_g U_gᵀ) H⁻¹
(U_g: participant g's score at the estimate, H: the information) is what that bootstrap
estimates, in one pass. Its ratio to the model covariance H⁻¹ says, per contrast, how much
wider the reported interval is than the model expects: where the votes so far happen to be
less informative than the model assumes, or one participant's taste weighs on a pair.
"""

from __future__ import annotations

import numpy as np

from infact.stats import bradley_terry as ranking


def cluster_scores(d: ranking.Design, x: np.ndarray) -> np.ndarray:
    """(participants, parameters): each participant's gradient of the log-likelihood at x."""
    k = len(d.systems)
    T = ranking.terms(x[None], d.counts[None], d)
    g_h, g_eta = (g[0] for g in ranking.outcome_gradients(d, T))
    X = ranking.design_matrix(d)
    per_outcome = g_h[:, :, None] * X[:, None, :]
    if d.with_ties:
        per_outcome[:, :, k] = g_eta
    return np.asarray(d.cluster_counts @ per_outcome.reshape(-1, X.shape[1]))


def covariances(d: ranking.Design, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(model, cluster-robust) covariance of the centred strengths at the estimate x."""
    k = len(d.systems)
    X = ranking.design_matrix(d)
    h = ranking.hessian(ranking.terms(x[None], d.counts[None], d), X, d)[0]
    h[:k, :k] += 1.0 / k  # fixes the free shift of all strengths (they are centred)
    h_inv = np.linalg.inv(h + 1e-9 * np.eye(len(h)))
    u = cluster_scores(d, x)
    robust = h_inv @ (u.T @ u) @ h_inv
    centre = np.eye(k) - 1.0 / k
    return centre @ h_inv[:k, :k] @ centre, centre @ robust[:k, :k] @ centre
