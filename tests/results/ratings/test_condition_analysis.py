"""`analyze` of a between-subjects study: per condition × system, and both models with condition (issue 41 item 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from infact.results.ratings.analysis import analyze
from infact.results.ratings.conditions import analyze_conditions, design


def _ratings(shift: float, seed: int = 0, per_condition: int = 30) -> pd.DataFrame:
    """Crossed participants × situations × systems A, B; in condition `b` system B is rated `shift` higher."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in ("a", "b"):
        for i in range(per_condition):
            p, lean = f"{c}{i}", rng.normal(0, 0.5)
            for s in rng.choice(20, 6, replace=False):
                for system, base in (("A", 3.4), ("B", 2.6)):
                    latent = base + lean + (shift if (c, system) == ("b", "B") else 0) + rng.normal(0, 0.8)
                    rows.append(
                        {
                            "participant": p,
                            "condition": c,
                            "situation_id": f"s{s}",
                            "system": system,
                            "criterion": "q",
                            "rating": int(np.clip(np.rint(latent), 1, 5)),
                            "is_attention_check": False,
                        }
                    )
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_a_planted_condition_by_system_effect_is_found_by_both_models():
    result = analyze_conditions(_ratings(1.2), ordinal_model=True, n_boot=200)
    assert set(result["conditions"]) == {"a", "b"}
    b = result["conditions"]["b"]["systems"]
    assert b["B"]["mean"] > result["conditions"]["a"]["systems"]["B"]["mean"] + 0.8
    assert b["B"]["ci95"][0] < b["B"]["mean"] < b["B"]["ci95"][1]
    mixed, ordinal = result["mixed_model"], result["ordinal_model"]
    assert mixed["interaction_test"]["p"] < 1e-6 and ordinal["interaction_test"]["p"] < 1e-6
    term = {e["term"]: e for e in mixed["estimates"]}["system=B:condition=b"]
    assert 0.8 < term["estimate"] < 1.6
    assert ordinal["effects"]["system=B:condition=b"]["estimate"] > 1


@pytest.mark.slow
def test_no_planted_effect_no_finding_and_no_conditions_no_section():
    result = analyze_conditions(_ratings(0.0, seed=1), ordinal_model=True, n_boot=200)
    assert result["mixed_model"]["interaction_test"]["p"] > 0.01
    assert result["ordinal_model"]["interaction_test"]["p"] > 0.01
    assert analyze_conditions(_ratings(0.0).drop(columns="condition")) is None


def test_analyze_reports_per_condition_only_for_a_between_subjects_table():
    from infact.results.reports.methods import methods_paragraph

    result = analyze(_ratings(1.2), n_boot=50, mixed_model=False)
    both = result["conditions"]
    assert both["mixed_model"] is None and both["conditions"]["b"]["n_participants"] == 30
    assert "one of 2 between-subjects conditions, balanced by completed participants: a (30" in methods_paragraph(
        result
    )
    assert analyze(_ratings(0.0).assign(condition=None), n_boot=50, mixed_model=False)["conditions"] is None


def test_design_columns_are_system_condition_and_their_products():
    df = pd.DataFrame({"system": ["A", "B", "B", "C"], "condition": ["x", "x", "y", "y"]})
    X, names = design(df, ["A", "B", "C"], ["x", "y"])
    assert names == ["system=B", "system=C", "condition=y", "system=B:condition=y", "system=C:condition=y"]
    assert X.tolist() == [[0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [1, 0, 1, 1, 0], [0, 1, 1, 0, 1]]


def test_plan_gives_every_figure_per_condition_and_recommends_for_all():
    from infact.results.ratings.planner import format_plan, plan

    one = plan(38, 6, 5, 1, 0.2)
    two = plan(38, 6, 5, 1, 0.2, conditions=2)
    assert two["conditions"] == {"conditions": 2, "per_condition": one["recommended"]}
    assert two["recommended"] == 2 * one["recommended"]
    assert "2 between-subjects conditions" in format_plan(two)
