"""Preferences of a between-subjects study (pairwise votes, best–worst choices): per condition, and condition × system.

Conditions are between participants (infact/study/conditions/overlay.py), so each condition's votes are fitted on their
own: a Bradley–Terry/Davidson ranking per condition with its participant-cluster bootstrap intervals, as `analyze`
fits the whole study (infact/stats/bradley_terry.py). Whether the conditions change the systems' differences is the
condition × system interaction: in the model with a strength per system and condition, the Wald test that every
system's strength relative to the reference system is the same in every condition. The conditions' fits are
independent, so that test is the heterogeneity statistic

    Q = Σ_c (d_c − d̄)ᵀ V_c⁻¹ (d_c − d̄),  d̄ = (Σ_c V_c⁻¹)⁻¹ Σ_c V_c⁻¹ d_c,  q = (C − 1)(K − 1) degrees of freedom,

d_c the K − 1 differences θ_s − θ_ref of condition c and V_c their participant-cluster (sandwich, infact/stats/
sandwich.py) covariance, scaled by G_c/(G_c − 1) for G_c participants (CR1): a participant's votes are not
independent. Q/q is read against F(q, G − C), G participants in all, not χ²(q): the sandwich is estimated from few
participants, and with χ² the test called equal conditions different 8–12% of the time at 10–30 participants per
condition (bench/ranking_conditions.py measures the rate; with F it is about 5%). The model's own covariance, which
takes every vote as independent, did as badly once participants differ in taste. Only systems compared in every
condition enter the test (`systems`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.results.ratings.conditions import conditions_of
from infact.stats import bradley_terry as ranking
from infact.stats import sandwich

METHOD = (
    "Bradley–Terry/Davidson per condition; condition × system: Wald test that the strengths relative to the "
    "reference system are equal in every condition (participant-cluster sandwich covariance, CR1; F reference)"
)


def by_condition(votes: pd.DataFrame, design, *, n_boot: int, seed: int, confidence: float) -> dict | None:
    """Per condition: votes, participants and the ranking; the condition × system test. None without two conditions.
    `design(part)` makes a condition's design from its rows (a best–worst table: of the pairs its choices imply)."""
    names = conditions_of(votes)
    if not names:
        return None
    key = votes["condition"].astype(str)
    designs = {c: design(votes[key == c]) for c in names}
    per = {}
    for c, d in designs.items():
        res = ranking.rank_systems(d, n_boot=n_boot, seed=seed, confidence=confidence)
        per[c] = {
            "n_votes": res["n_votes"],
            "n_participants": res["n_participants"],
            "ranking": res["ranking"],
            "tie_parameter": res["tie_parameter"],
        }
    return {"method": METHOD, "conditions": per, "reference_condition": names[0], **interaction_test(designs)}


def _differences(d: ranking.Design, systems: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(θ_s − θ_ref for s in systems[1:], their CR1 cluster-robust covariance) of one condition's fit."""
    x = ranking.quick_fit(d)
    _model, robust = sandwich.covariances(d, x)
    g = len(d.clusters)
    robust = robust * g / max(g - 1, 1)
    idx = [d.systems.index(s) for s in systems]
    contrast = np.zeros((len(systems) - 1, len(d.systems)))
    contrast[:, idx[0]] = -1.0
    contrast[np.arange(len(systems) - 1), idx[1:]] = 1.0
    k = len(d.systems)
    return contrast @ x[:k], contrast @ robust @ contrast.T


def interaction_test(designs: dict[str, ranking.Design]) -> dict:
    """{"systems": compared in every condition, "reference_system", "interaction_test": {chi2, df, F,
    df_denominator, p} or {"error": why}}: the Wald test of condition × system (module docstring)."""
    systems = sorted(set.intersection(*(set(d.systems) for d in designs.values())))
    out: dict = {"systems": systems, "reference_system": systems[0] if systems else None}
    if len(systems) < 2:
        return {**out, "interaction_test": {"error": "fewer than two systems were compared in every condition"}}
    try:
        parts = [_differences(d, systems) for d in designs.values()]
        weights = [np.linalg.inv(v) for _d, v in parts]
        pooled = np.linalg.solve(sum(weights), sum(w @ d for w, (d, _v) in zip(weights, parts)))
        stat = float(sum((d - pooled) @ w @ (d - pooled) for w, (d, _v) in zip(weights, parts)))
    except np.linalg.LinAlgError:
        stat = float("nan")
    if not np.isfinite(stat):
        why = "a condition's differences have no finite covariance (a system never won or never lost there)"
        return {**out, "interaction_test": {"error": why}}
    from scipy.stats import f  # here: importing the ranking modules stays free of scipy.stats

    df = (len(designs) - 1) * (len(systems) - 1)
    den = sum(len(d.clusters) for d in designs.values()) - len(designs)  # participants − conditions
    if den < 1:
        return {**out, "interaction_test": {"error": "too few participants to test (one per condition)"}}
    test = {"chi2": stat, "df": df, "F": stat / df, "df_denominator": den, "p": float(f.sf(stat / df, df, den))}
    return {**out, "interaction_test": test}
