"""Dashboard charts: valid Vega-Lite specs with the expected encodings and aggregated data."""

import json

import pandas as pd
import pytest

from infact.errors import InfactError
from infact.results.ratings.analysis import analyze
from infact.results.reports import charts
from simulations.ratings import simulate_ratings


def spec_and_rows(chart):
    spec = chart.to_dict()  # validates against the Vega-Lite schema
    json.dumps(spec, allow_nan=False)
    return spec, spec["datasets"][spec["data"]["name"]]


def encoding(spec, layer=0):
    inner = spec.get("spec", spec)
    return inner["layer"][layer]["encoding"] if "layer" in inner else inner["encoding"]


@pytest.fixture(scope="module")
def ratings():
    df = simulate_ratings(12, 4, (2.0, 3.0, 4.0), seed=1)
    df["is_attention_check"] = df["situation_id"] == "s0"
    return df


@pytest.mark.slow  # 1.7 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_mean_chart_uses_the_analysis_intervals(ratings):
    result = analyze(ratings, mixed_model=False, n_boot=200)
    spec, rows = spec_and_rows(charts.mean_ratings_chart(ratings, result))
    bars, points = encoding(spec, 0), encoding(spec, 1)
    assert bars["x"]["field"] == "ci_low" and bars["x2"]["field"] == "ci_high"
    assert points["x"]["field"] == "mean" and spec["layer"][0]["mark"]["type"] == "errorbar"
    assert "facet" not in spec and spec["width"] == "container"  # one criterion: one full-width panel
    # axis titles are words, never column names (was "ci_low, Mean rating (95% CI)")
    assert bars["x"]["title"] == points["x"]["title"] == "Mean rating with 95% confidence interval"
    by_system = {r["system"]: r for r in rows}
    assert set(by_system) == {"sys0", "sys1", "sys2"}
    for name, s in result["systems"].items():
        assert by_system[name]["mean"] == s["mean"]
        assert [by_system[name]["ci_low"], by_system[name]["ci_high"]] == s["ci95"]


def test_mean_chart_without_result_computes_it_and_facets_criteria(ratings):
    two = pd.concat([ratings.assign(criterion="meaningful"), ratings.assign(criterion="engaging")])
    spec, rows = spec_and_rows(charts.mean_ratings_chart(two))
    assert spec["facet"]["row"]["field"] == "criterion"
    assert {r["criterion"] for r in rows} == {"meaningful", "engaging"}
    assert len(rows) == 6
    assert all(r["ci_low"] <= r["mean"] <= r["ci_high"] for r in rows)


# a study's own scale, as the caller passes it (cfg.scale.labels)
LABELS = ["Entirely meaningless", "Rather meaningless", "Neutral", "Rather meaningful", "Perfectly meaningful"]


def test_distribution_chart_shares_and_labels(ratings):
    spec, rows = spec_and_rows(charts.distribution_chart(ratings, LABELS))
    enc = encoding(spec)
    assert enc["x"]["stack"] == "normalize"
    assert enc["color"]["scale"]["domain"][0] == "1 Entirely meaningless"
    assert enc["color"]["scale"]["domain"][-1] == "5 Perfectly meaningful"
    assert enc["color"]["scale"]["scheme"] == charts.DIVERGING and enc["order"]["field"] == "rating"
    usable = ratings[~ratings["is_attention_check"]]
    for system in ("sys0", "sys2"):
        got = {r["rating"]: r["share"] for r in rows if r["system"] == system}
        want = usable[usable["system"] == system]["rating"].value_counts(normalize=True)
        assert got == pytest.approx(want.to_dict())
    assert sum(r["count"] for r in rows) == len(usable)


def test_distribution_labels_from_mapping(ratings):
    spec, _ = spec_and_rows(charts.distribution_chart(ratings, {1: "bad", 5: "good"}))
    assert encoding(spec)["color"]["scale"]["domain"] == ["1 bad", "2", "3", "4", "5 good"]


def test_position_chart_means_per_position(ratings):
    spec, rows = spec_and_rows(charts.position_chart(ratings))
    enc = encoding(spec)
    assert (enc["x"]["field"], enc["y"]["field"], enc["color"]["field"]) == ("position", "mean", "system")
    assert enc["xOffset"]["field"] == "system" and enc["x"]["title"].startswith("Position on the page")
    usable = ratings[~ratings["is_attention_check"]]
    want = usable.groupby(["system", "position"])["rating"].mean()
    assert {(r["system"], r["position"]): r["mean"] for r in rows} == pytest.approx(want.to_dict())


def test_position_chart_without_positions_says_so(ratings):
    spec = charts.position_chart(ratings.drop(columns="position")).to_dict()
    assert spec["mark"]["type"] == "text"


def test_completion_time_histogram_is_prebinned():
    participants = pd.DataFrame({"total_seconds": [60, 120, 125, 600, None, 1200]})
    spec, rows = spec_and_rows(charts.completion_time_chart(participants, bins=4))
    assert spec["encoding"]["x"]["bin"] == "binned"
    assert sum(r["participants"] for r in rows) == 5
    assert rows[0]["start"] == pytest.approx(1.0) and rows[-1]["end"] == pytest.approx(20.0)


def test_questionnaire_chart_orders_numeric_answers():
    q = pd.DataFrame({"participant": list("abcab"), "item": ["ease"] * 3 + ["fun"] * 2, "answer": [10, 2, 2, 1, None]})
    spec, rows = spec_and_rows(charts.questionnaire_chart(q))
    assert spec["encoding"]["color"]["scale"]["domain"] == ["1", "2", "10"]
    shares = {(r["item"], r["answer"]): r["share"] for r in rows}
    assert shares[("ease", "2")] == pytest.approx(2 / 3) and shares[("fun", "1")] == 1.0


def test_missing_columns_raise_infact_error_not_keyerror():
    with pytest.raises(InfactError, match="total_seconds"):
        charts.completion_time_chart(pd.DataFrame({"participant": ["a"]}))
    with pytest.raises(InfactError, match="answer"):
        charts.questionnaire_chart(pd.DataFrame({"participant": ["a"], "item": ["x"]}))


def test_empty_inputs_give_a_placeholder():
    empty = pd.DataFrame(columns=["participant", "situation_id", "system", "rating"])
    for chart in (charts.mean_ratings_chart(empty), charts.distribution_chart(empty), charts.position_chart(empty)):
        assert chart.to_dict()["mark"]["type"] == "text"


def test_questionnaire_chart_in_scale_order_with_a_diverging_palette():
    scale = ["Strongly disagree", "Disagree", "Neutral", "Agree", "Strongly agree"]
    q = pd.DataFrame(
        {
            "participant": list("abcd") + ["a"],
            "item": ["natural"] * 4 + ["comment"],
            "answer": ["Agree", "Strongly disagree", "Agree", "Neutral", "some free text"],
        }
    )
    spec, rows = spec_and_rows(charts.questionnaire_chart(q, scale))
    color = spec["encoding"]["color"]
    assert color["scale"]["domain"] == scale and color["scale"]["scheme"] == charts.DIVERGING  # not alphabetical
    assert {r["item"] for r in rows} == {"natural"}  # the free-text comment is not a scale answer
    assert {r["answer"]: r["share"] for r in rows}["Agree"] == pytest.approx(0.5)


def test_attention_check_given_as_yes_is_left_out_by_charts_and_analysis(ratings):
    """CSV files say yes/no in many ways: charts and analysis use the same word list."""
    text = ratings.assign(is_attention_check=ratings["is_attention_check"].map({True: "yes", False: "no"}))
    _, rows = spec_and_rows(charts.distribution_chart(text))
    usable = ratings[~ratings["is_attention_check"]]
    assert sum(r["count"] for r in rows) == len(usable)
    result = analyze(text, mixed_model=False, n_boot=50)
    assert result["n_attention_check_rows_dropped"] == int(ratings["is_attention_check"].sum())
    assert result["n_ratings"] == len(usable)


def test_completions_chart_counts_up_over_time():
    done = pd.DataFrame(
        {
            "ended_at": pd.to_datetime(["2026-03-02T09:00Z", "2026-03-02T09:30Z", "2026-03-02T10:00Z"]),
            "outcome": ["completed", "screened_out", "completed"],
        }
    )
    done["completed"] = (done["outcome"] == "completed").cumsum()
    spec, rows = spec_and_rows(charts.completions_chart(done))
    assert [r["completed"] for r in rows] == [1, 2]
    assert spec["encoding"]["x"]["title"] == "Time (UTC)"


def test_completion_time_chart_marks_the_stated_estimate():
    spec = charts.completion_time_chart(pd.DataFrame({"total_seconds": [600, 700, 900]}), expected_minutes=12).to_dict()
    assert spec["layer"][1]["mark"]["type"] == "rule"


def test_questionnaire_chart_shows_statements_not_item_ids():
    scale = ["Disagree", "Agree"]
    q = pd.DataFrame({"participant": list("ab"), "item": ["human_like", "human_like"], "answer": ["Agree", "Disagree"]})
    _, rows = spec_and_rows(charts.questionnaire_chart(q, scale, {"human_like": "The responses sounded human."}))
    assert {r["item"] for r in rows} == {"The responses sounded human."}


def test_without_the_study_s_labels_a_chart_shows_the_table_s_labels_or_bare_numbers(ratings):
    """No built-in scale is ever drawn: labels a participant never saw cannot reach a chart."""
    assert not hasattr(charts, "DEFAULT_LABELS")
    spec, _ = spec_and_rows(charts.distribution_chart(ratings))
    assert encoding(spec)["color"]["scale"]["domain"] == ["1", "2", "3", "4", "5"]
    shown = ratings.assign(rating_label=ratings["rating"].map(lambda v: f"point {v}"))
    spec, _ = spec_and_rows(charts.distribution_chart(shown))
    assert encoding(spec)["color"]["scale"]["domain"][0] == "1 point 1"


def test_a_chart_given_a_table_without_its_columns_names_the_column_and_its_meaning(ratings):
    with pytest.raises(InfactError) as err:
        charts.distribution_chart(ratings.drop(columns=["rating"]))
    [problem] = err.value.problems
    assert (problem.file, problem.key) == ("ratings table", "rating")
    assert problem.message.startswith("missing column: ratings.csv needs `rating` (the point chosen")
