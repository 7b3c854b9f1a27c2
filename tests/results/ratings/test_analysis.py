"""Statistics: published reference values, planted effects, filters and input errors."""

import json

import numpy as np
import pandas as pd
import pytest

from infact.errors import InfactError
from infact.results.ratings import analysis
from infact.results.ratings.analysis import analyze, friedman_test, krippendorff_ordinal, validate_ratings
from simulations.ratings import simulate_ratings

NAN = np.nan
# Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", example C:
# 4 observers x 12 units, values 1..5, missing data. Published: ordinal alpha = 0.815.
KRIPP_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
# Hollander & Wolfe (1973) base-running times, 22 players x 3 methods (R's friedman.test
# example). Published: Friedman chi-squared = 11.143, df = 2, p-value = 0.003805.
ROUNDING_TIMES = np.array(
    [
        [5.40, 5.50, 5.55],
        [5.85, 5.70, 5.75],
        [5.20, 5.60, 5.50],
        [5.55, 5.50, 5.40],
        [5.90, 5.85, 5.70],
        [5.45, 5.55, 5.60],
        [5.40, 5.40, 5.35],
        [5.45, 5.50, 5.35],
        [5.25, 5.15, 5.00],
        [5.85, 5.80, 5.70],
        [5.25, 5.20, 5.10],
        [5.65, 5.55, 5.45],
        [5.60, 5.35, 5.45],
        [5.05, 5.00, 4.95],
        [5.50, 5.50, 5.40],
        [5.45, 5.55, 5.50],
        [5.55, 5.55, 5.35],
        [5.45, 5.50, 5.55],
        [5.50, 5.45, 5.25],
        [5.65, 5.60, 5.40],
        [5.70, 5.65, 5.55],
        [6.30, 6.30, 6.25],
    ]
)
PLANTED = (2.0, 3.0, 3.5)


def kripp_long():
    rows = [
        {"participant": f"coder{c}", "situation_id": f"u{u}", "system": "A", "rating": int(v)}
        for c, coder in enumerate(KRIPP_2011)
        for u, v in enumerate(coder)
        if not np.isnan(v)
    ]
    return pd.DataFrame(rows)


def test_krippendorff_2011_worked_example_from_long_table():
    df = kripp_long()
    assert krippendorff_ordinal(df, ["situation_id"], 5) == pytest.approx(0.815, abs=5e-4)
    result = analyze(df, mixed_model=False, n_boot=50)
    assert result["krippendorff_alpha"]["per_system"]["A"] == pytest.approx(0.815, abs=5e-4)
    assert result["krippendorff_alpha"]["pooled"] == pytest.approx(0.815, abs=5e-4)


def test_friedman_textbook_example():
    res = friedman_test(ROUNDING_TIMES)
    assert res["statistic"] == pytest.approx(11.143, abs=5e-4)
    assert res["p"] == pytest.approx(0.003805, abs=5e-7)
    assert res["kendall_w"] == pytest.approx(11.143 / (22 * 2), abs=1e-4)


def test_kendall_w_agrees_with_pingouin():
    pg = pytest.importorskip("pingouin")
    long = pd.DataFrame(
        [{"subj": i, "method": j, "t": v} for i, row in enumerate(ROUNDING_TIMES) for j, v in enumerate(row)]
    )
    ref = pg.friedman(long, dv="t", within="method", subject="subj")
    assert friedman_test(ROUNDING_TIMES)["kendall_w"] == pytest.approx(float(ref["W"].iloc[0]), rel=1e-6)


@pytest.fixture(scope="module")
def planted():
    return analyze(simulate_ratings(60, 10, PLANTED, seed=3), n_boot=2000, seed=0)


def test_planted_differences_fall_inside_intervals(planted):
    for pair in planted["pairwise"]:
        a, b = int(pair["a"][-1]), int(pair["b"][-1])
        lo, hi = pair["ci95"]
        assert lo <= PLANTED[a] - PLANTED[b] <= hi, pair
        assert lo <= pair["mean_diff"] <= hi
        assert pair["p_holm"] < 0.001
    assert planted["friedman"]["p"] < 0.001
    assert planted["friedman"]["kendall_w"] > 0.5


def test_planted_system_means_and_mixed_model(planted):
    means = [planted["systems"][f"sys{i}"]["mean"] for i in range(3)]
    assert means == sorted(means)
    for s in planted["systems"].values():
        assert s["ci95"][0] <= s["mean"] <= s["ci95"][1]
        assert sum(s["distribution"].values()) == pytest.approx(1.0)
    mm = planted["mixed_model"]
    assert "error" not in mm, mm
    est = {e["term"]: e for e in mm["estimates"]}
    for i in (1, 2):
        e = est[f"sys{i}".join(["system=", ""])]
        assert abs(e["estimate"] - (PLANTED[i] - PLANTED[0])) < 3 * e["se"] + 0.05
    assert sum(mm["variance_share"].values()) == pytest.approx(1.0)
    assert planted["icc_participant"]["value"] == mm["variance_share"]["participant"]


@pytest.mark.slow
def test_bootstrap_interval_coverage_over_replicates():
    # 95% intervals should cover the planted values in most replicates. No situation
    # effect here: the bootstrap resamples participants only (see docs/analysis.md).
    # A bootstrap over single ratings covers the system means only ~77% of the time
    # on these data (measured), so >= 0.85 tells the two apart.
    sys_hits = pair_hits = n_sys = n_pair = 0
    for rep in range(30):
        r = analyze(
            simulate_ratings(40, 8, (2.5, 3.0, 3.5), sd_participant=0.5, sd_situation=0.0, seed=100 + rep),
            mixed_model=False,
            n_boot=400,
            seed=rep,
        )
        for i, s in enumerate(r["systems"].values()):
            sys_hits += s["ci95"][0] <= 2.5 + 0.5 * i <= s["ci95"][1]
            n_sys += 1
        for pair in r["pairwise"]:
            true = -0.5 * (int(pair["b"][-1]) - int(pair["a"][-1]))
            pair_hits += pair["ci95"][0] <= true <= pair["ci95"][1]
            n_pair += 1
    assert sys_hits / n_sys >= 0.85
    assert pair_hits / n_pair >= 0.85


def test_null_effect_is_not_significant():
    r = analyze(simulate_ratings(60, 10, (3.0, 3.0, 3.0), seed=7), mixed_model=False, n_boot=500)
    assert r["friedman"]["p"] > 0.01
    assert all(p["p_holm"] > 0.01 for p in r["pairwise"])
    assert all(p["ci95"][0] <= 0 <= p["ci95"][1] for p in r["pairwise"])


def test_icc_fallback_without_mixed_model_is_close_to_variance_share(planted):
    df = simulate_ratings(60, 10, PLANTED, seed=3)
    r = analyze(df, mixed_model=False, n_boot=100)
    assert r["mixed_model"] is None
    assert r["icc_participant"]["method"].startswith("ICC(1)")
    assert r["icc_participant"]["value"] == pytest.approx(planted["icc_participant"]["value"], abs=0.05)


def test_holm_adjustment_and_bootstrap_seed():
    df = simulate_ratings(30, 6, (3.0, 3.2, 3.4, 3.6), seed=11)
    r = analyze(df, mixed_model=False, n_boot=300, seed=5)
    ps = [p["p"] for p in r["pairwise"]]
    smallest = min(range(len(ps)), key=ps.__getitem__)
    assert r["pairwise"][smallest]["p_holm"] == pytest.approx(min(1.0, len(ps) * ps[smallest]))
    assert all(p["p_holm"] >= p["p"] for p in r["pairwise"])
    again = analyze(df, mixed_model=False, n_boot=300, seed=5)
    other = analyze(df, mixed_model=False, n_boot=300, seed=6)
    assert again["systems"] == r["systems"]
    assert other["systems"]["sys0"]["ci95"] != r["systems"]["sys0"]["ci95"]


def test_attention_checks_and_flagged_participants_are_filtered():
    df = simulate_ratings(10, 4, (2.0, 4.0, 3.0), seed=1)
    df["is_attention_check"] = df["situation_id"] == "s0"
    df["excluded"] = df["participant"].isin(["p1", "p2"])
    r = analyze(df, mixed_model=False, n_boot=50)
    assert r["n_attention_check_rows_dropped"] == 10 * 3
    assert r["n_flagged_participants"] == 2
    assert r["n_participants"] == 8 and r["n_ratings"] == 8 * 3 * 3
    with_flagged = analyze(df, mixed_model=False, n_boot=50, include_flagged=True)
    assert with_flagged["n_participants"] == 10 and with_flagged["include_flagged"] is True


def test_incomplete_participants_are_dropped_from_friedman_and_counted():
    df = simulate_ratings(20, 4, PLANTED, seed=2)
    df = df[~((df["participant"] == "p0") & (df["system"] == "sys2"))]
    r = analyze(df, mixed_model=False, n_boot=50)
    assert r["friedman"]["n_participants"] == 19
    assert r["friedman"]["n_dropped_incomplete"] == 1
    assert r["n_participants"] == 20


def test_position_bias_detects_planted_order_effect_and_imbalance():
    df = simulate_ratings(60, 10, (3.0, 3.0, 3.0), position_effect=(0.6, 0.0, 0.0), seed=4)
    pb = analyze(df, mixed_model=False, n_boot=50)["position_bias"]
    assert pb["effect"]["p"] < 0.001
    assert pb["effect"]["coefficients"]["2"]["estimate"] == pytest.approx(-0.6, abs=0.15)
    assert pb["balance_chi2"]["p"] > 0.01
    assert pb["mean_by_position"]["1"] > pb["mean_by_position"]["2"]
    skewed = df.assign(position=np.where(df["system"] == "sys0", 1, df["position"]))
    assert analyze(skewed, mixed_model=False, n_boot=50)["position_bias"]["balance_chi2"]["p"] < 1e-6
    assert analyze(df.drop(columns="position"), mixed_model=False, n_boot=50)["position_bias"] is None


def test_several_criteria_are_analysed_separately():
    a = simulate_ratings(10, 4, PLANTED, seed=1).assign(criterion="meaningful")
    b = simulate_ratings(10, 4, PLANTED[::-1], seed=2).assign(criterion="engaging")
    both = pd.concat([a, b], ignore_index=True)
    r = analyze(both, mixed_model=False, n_boot=50)
    assert set(r["criteria"]) == {"meaningful", "engaging"}
    assert r["criteria"]["engaging"]["systems"]["sys0"]["mean"] > r["criteria"]["meaningful"]["systems"]["sys0"]["mean"]
    one = analyze(both, criterion="engaging", mixed_model=False, n_boot=50)
    assert one["criterion"] == "engaging" and one["n_ratings"] == len(b)
    with pytest.raises(InfactError, match="meaningful"):
        analyze(both, criterion="fluency", mixed_model=False)


def test_result_is_strict_json_even_for_degenerate_data():
    df = pd.DataFrame(
        {
            "participant": ["a", "a", "b", "b"],
            "situation_id": ["s"] * 4,
            "system": ["x", "y", "x", "y"],
            "rating": [3, 3, 3, 3],
        }
    )
    r = analyze(df, n_boot=20)
    json.dumps(r, allow_nan=False)
    assert r["friedman"]["statistic"] is None  # two systems: Friedman needs three
    assert r["pairwise"][0]["p"] is None  # no differences at all
    assert r["systems"]["x"]["sd"] == 0.0


def test_mixed_model_failure_and_size_guard_are_reported_not_raised(monkeypatch):
    df = simulate_ratings(10, 4, PLANTED, seed=1)
    import statsmodels.formula.api as smf

    def boom(*a, **k):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(smf, "mixedlm", boom)
    r = analyze(df, n_boot=20)
    assert "Singular matrix" in r["mixed_model"]["error"]
    assert r["icc_participant"]["method"].startswith("ICC(1)")
    monkeypatch.setattr(analysis, "MIXED_MODEL_MAX_CELLS", 10)
    assert "--no-mixed-model" in analyze(df, n_boot=20)["mixed_model"]["error"]


def test_missing_column_names_file_column_and_fix():
    df = pd.DataFrame({"participant": ["a"], "system": ["x"], "rating": [3]})
    with pytest.raises(InfactError) as err:
        validate_ratings(df, "my.csv")
    msg = str(err.value)
    assert "my.csv" in msg and "situation_id" in msg and "export" in msg


@pytest.mark.parametrize(
    "bad, expect", [("3.5", "not a whole number"), ("good", "not a whole number"), ("0", "outside 1..")]
)
def test_bad_rating_names_line(bad, expect):
    df = pd.DataFrame(
        {"participant": ["a", "b", "c"], "situation_id": ["s"] * 3, "system": ["x"] * 3, "rating": ["3", bad, "4"]}
    )
    with pytest.raises(InfactError) as err:
        analyze(df, source="r.csv")
    problem = err.value.problems[0]
    assert (problem.file, problem.line, problem.key) == ("r.csv", 3, "rating")
    assert expect in problem.message


def test_rating_above_declared_scale_is_refused_but_attention_rows_are_not_checked():
    df = pd.DataFrame(
        {
            "participant": ["a", "b"],
            "situation_id": ["s", "s"],
            "system": ["x", "x"],
            "rating": [3, 7],
            "is_attention_check": [False, True],
        }
    )
    validate_ratings(df, scale_points=5)
    with pytest.raises(InfactError, match="outside 1..5"):
        validate_ratings(df.assign(is_attention_check=False), scale_points=5)


def test_bad_position_is_reported_and_missing_positions_are_fine():
    df = simulate_ratings(6, 3, seed=1)
    df["position"] = df["position"].astype(object)
    df.loc[[1, 2], "position"] = None
    assert analyze(df, mixed_model=False, n_boot=50)["position_bias"]["counts"]
    df.loc[4, "position"] = "left"
    with pytest.raises(InfactError) as err:
        analyze(df, mixed_model=False, source="r.csv")
    assert (err.value.problems[0].line, err.value.problems[0].key) == (6, "position")
