"""The ordinal model in `analyze`: per criterion, in --json and in the report, like R's ordinal::clmm."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from infact.cli.main import main
from infact.results.ratings.analysis import analyze
from infact.results.ratings.ordinal import compare_orders, fit_ordinal_model
from infact.results.reports.methods import methods_paragraph
from infact.results.reports.report import render_html, render_markdown

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "clmm"
R = json.loads((FIXTURE / "reference.json").read_text())
KEYS = {"reference", "effects", "thresholds", "sd_participant", "sd_situation", "loglik", "converged"}


def fixture(name: str) -> pd.DataFrame:
    return pd.read_csv(FIXTURE / f"{name}.csv")


def quick(df, **kw):
    return analyze(df, n_boot=100, mixed_model=False, **{"ordinal_model": True, **kw})


def flipped() -> pd.DataFrame:
    """Two systems whose means and ordinal effects disagree: `split` rates 2 or 5 (mean 3.34), `steady` mostly 3
    (mean 3.24); the cumulative-logit model puts steady above split (statsmodels' OrderedModel too: +0.57)."""
    rng = np.random.default_rng(4)
    counts = {"split": [8, 100, 40, 3, 50], "steady": [15, 11, 166, 6, 1]}
    rows = []
    for system, c in counts.items():
        ratings = rng.permutation(np.repeat(np.arange(1, 6), c))
        rows += [(f"p{i % 40}", f"s{(i * 7) % 50}", system, int(r)) for i, r in enumerate(ratings)]
    return pd.DataFrame(rows, columns=["participant", "situation_id", "system", "rating"])


def test_analyze_gives_r_s_clmm_estimates():
    om = quick(fixture("infact_shaped"))["ordinal_model"]
    ref = R["infact_shaped"]
    assert KEYS <= set(om) and om["converged"] and om["reference"] == ref["reference"] == "KBRD"
    assert list(om["thresholds"]) == list(ref["thresholds"]) == ["1|2", "2|3", "3|4", "4|5"]
    assert np.allclose(list(om["thresholds"].values()), list(ref["thresholds"].values()), atol=0.01)
    assert list(om["effects"]) == list(ref["effects"])
    for (name, e), se, p in zip(om["effects"].items(), ref["effect_se"], ref["effect_p"]):
        assert e["estimate"] == pytest.approx(ref["effects"][name], abs=0.01)
        assert e["se"] == pytest.approx(se, abs=0.01) and e["p"] == pytest.approx(p, abs=0.01)
    assert om["sd_participant"] == pytest.approx(ref["sd_participant"], abs=0.01)
    assert om["sd_situation"] == pytest.approx(ref["sd_situation"], abs=0.01)
    assert om["loglik"] == pytest.approx(ref["loglik"], abs=0.01)
    assert om["order"] == ["RB-CRS", "KGSF", "KBRD"] and om["order_differs_from_means"] == []


def test_one_model_per_criterion():
    a, b = fixture("infact_shaped"), fixture("seven_points")
    both = pd.concat([a.assign(criterion="fluent"), b.assign(criterion="useful")])
    r = quick(both)["criteria"]
    assert r["fluent"]["ordinal_model"]["loglik"] == pytest.approx(R["infact_shaped"]["loglik"], abs=0.01)
    assert r["useful"]["ordinal_model"]["loglik"] == pytest.approx(R["seven_points"]["loglik"], abs=0.01)
    assert r["useful"]["ordinal_model"]["reference"] == "base"


def test_thresholds_are_named_by_the_ratings_used():
    df = fixture("seven_points")
    df = df[df["rating"] != 4]  # an unused scale point: the model has a threshold 3|5, not 3|4 and 4|5
    om = quick(df, scale_points=7)["ordinal_model"]
    assert list(om["thresholds"]) == ["1|2", "2|3", "3|5", "5|6", "6|7"]


def test_json_has_it_and_it_can_be_switched_off(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    fixture("small_situation_sd").to_csv(path, index=False)
    assert main(["analyze", str(path), "--json", "--no-mixed-model", "--n-boot", "100"]) == 0
    om = json.loads(capsys.readouterr().out)["ordinal_model"]
    assert om["effects"]["B"]["estimate"] == pytest.approx(R["small_situation_sd"]["effects"]["B"], abs=0.01)
    assert om["sd_situation"] < 0.01
    assert main(["analyze", str(path), "--json", "--no-mixed-model", "--no-ordinal-model", "--n-boot", "100"]) == 0
    assert json.loads(capsys.readouterr().out)["ordinal_model"] is None


def test_off_wherever_the_mixed_model_is_by_default():
    """The dashboard and the charts ask for no mixed model: they get no ordinal model either (it takes seconds)."""
    assert analyze(fixture("seven_points"), n_boot=100, mixed_model=False)["ordinal_model"] is None


def test_report_says_when_the_orders_differ():
    r = quick(flipped())
    om = r["ordinal_model"]
    assert r["systems"]["split"]["mean"] > r["systems"]["steady"]["mean"]
    assert om["effects"]["steady"]["estimate"] > 0.3
    assert om["order"] == ["steady", "split"] and om["order_differs_from_means"] == [["steady", "split"]]
    md = render_markdown(r)
    line = next(x for x in md.splitlines() if "order the systems differently" in x)
    assert "the model puts steady above split, the means the other way round" in line
    assert "<p>The ordinal model and the mean ratings order the systems differently: " in render_html(r)


def test_report_shows_the_model_and_agreeing_orders():
    r = quick(fixture("infact_shaped"))
    md = render_markdown(r)
    assert "### Ordinal model" in md and "| KGSF | 0.521 | 0.167 | 0.002 | 1.68 [1.21, 2.34] |" in md
    assert "The ordinal model orders the systems as their mean ratings do (RB-CRS > KGSF > KBRD)." in md
    assert "order the systems differently" not in md
    skipped = render_markdown(analyze(fixture("infact_shaped"), n_boot=100, mixed_model=False))
    assert "### Ordinal model\n\nNot fitted for this report" in skipped


def test_equal_ratings_give_an_error_not_a_crash():
    df = fixture("seven_points").assign(rating=4)
    om = quick(df)["ordinal_model"]
    assert "at least two different ratings" in om["error"]
    assert "Not available: every rating is the same" in render_markdown(quick(df))


def test_ties_are_no_reversal():
    assert compare_orders({"a": 0.0, "b": 0.5}, {"a": 3.0, "b": 3.0})["order_differs_from_means"] == []
    assert compare_orders({"a": 0.0, "b": 0.5, "c": 0.2}, {"a": 3.1, "b": 3.0, "c": 3.2}) == {
        "order": ["b", "c", "a"],
        "order_differs_from_means": [["b", "c"], ["b", "a"]],
    }


def test_separated_ratings_are_called_so():
    """One system always rated 1, another always 5: no finite estimate, and the result says so."""
    df = fixture("infact_shaped")
    df.loc[df["system"] == "KBRD", "rating"] = 1
    df.loc[df["system"] == "RB-CRS", "rating"] = 5
    r = quick(df)
    assert "runs off to infinity" in r["ordinal_model"]["note"] and "RB-CRS" in r["ordinal_model"]["note"]
    assert "Note: the effect of" in render_markdown(r)


def test_one_system_one_situation_two_categories():
    df = fixture("small_situation_sd")
    one = quick(df[df["system"] == "A"])["ordinal_model"]
    assert one["effects"] == {} and one["order"] == ["A"] and one["converged"]
    assert quick(df.assign(situation_id="s0"))["ordinal_model"]["sd_situation"] < 0.01
    binary = quick(df.assign(rating=(df["rating"] > 3) + 1))["ordinal_model"]
    assert list(binary["thresholds"]) == ["1|2"] and binary["converged"]


def test_the_methods_paragraph_names_it_when_fitted():
    fitted = quick(fixture("seven_points"))
    assert "cumulative-link (logit) mixed model" in methods_paragraph(fitted)
    assert "cumulative-link" not in methods_paragraph(quick(fixture("seven_points"), ordinal_model=False))


def test_too_many_levels_on_both_factors_is_skipped_with_the_way_out():
    n = 2501  # both factors above MAX_SCHUR_LEVELS: refused before any fitting
    rows = [(f"p{i}", f"s{(i + d) % n}", sys, 1 + (i + d) % 5) for i in range(n) for d in (0, 1) for sys in "AB"]
    df = pd.DataFrame(rows, columns=["participant", "situation_id", "system", "rating"])
    om = fit_ordinal_model(df)
    assert "skipped" in om["error"] and "--no-ordinal-model" in om["error"]


def test_no_standard_errors_is_explained(monkeypatch):
    """A Hessian that is not positive definite (no covariance) leaves SEs and p empty and says why."""
    import dataclasses

    from infact.results.ratings import ordinal

    real = ordinal.fit_clmm
    monkeypatch.setattr(
        ordinal, "fit_clmm", lambda *a, **k: dataclasses.replace(real(*a, **k), cov=None, converged=False)
    )
    om = quick(fixture("seven_points"))["ordinal_model"]
    assert om["effects"]["new"]["se"] is None and om["effects"]["new"]["p"] is None
    assert not om["converged"] and "no standard errors" in om["note"]
    assert "| new | " in render_markdown(quick(fixture("seven_points")))
