"""Report: the same numbers as the JSON result, as Markdown and as HTML with charts."""

import json
import re

import pandas as pd
import pytest

from infact.results.ratings.analysis import analyze
from infact.results.reports.report import fmt, fmt_ci, markdown_to_html, render_html, render_markdown
from simulations.ratings import simulate_ratings


@pytest.fixture(scope="module")
def data():
    df = simulate_ratings(20, 5, (2.0, 3.0, 4.0), seed=2)
    return df, analyze(df, n_boot=300)


def test_markdown_shows_the_result_numbers(data):
    _, r = data
    md = render_markdown(r)
    for name, s in r["systems"].items():
        assert f"| {name} | {s['n']} | {fmt(s['mean'])} {fmt_ci(s['ci95'])} |" in md
    assert f"χ²(2) = {fmt(r['friedman']['statistic'])}" in md
    assert f"Kendall's W = {fmt(r['friedman']['kendall_w'])}" in md
    for p in r["pairwise"]:
        assert f"| {p['a']} | {p['b']} | {p['n_participants']} | {fmt(p['mean_diff'])} {fmt_ci(p['ci95'])} |" in md
    for e in r["mixed_model"]["estimates"]:
        assert f"| {e['term']} | {fmt(e['estimate'], 3)} | {fmt(e['se'], 3)} |" in md
    assert f"pooled over situation × system: {fmt(r['krippendorff_alpha']['pooled'], 3)}" in md
    assert "### Position (order) effect" in md and "Wald χ²(2)" in md
    # per-system α explained next to the pooled one; position tables say they hold counts
    for name, a in r["krippendorff_alpha"]["per_system"].items():
        assert f"Krippendorff's α (ordinal), {name} only: {fmt(a, 3)}" in md
    assert "α is near 0 even though raters agree" in md
    assert "| system | ratings at position 1 |" in md and "Number of ratings of each system at each position" in md


def test_markdown_small_p_values_read_naturally(data):
    md = render_markdown(data[1])
    assert "p < 0.001" in md and "p = < " not in md


def test_markdown_without_model_or_positions():
    df = simulate_ratings(8, 3, seed=1).drop(columns="position")
    md = render_markdown(analyze(df, mixed_model=False, n_boot=50))
    assert "Not fitted for this report" in md and "--no-mixed-model" not in md  # plain words, not a flag
    assert "Position" not in md
    assert "ICC(1)" in md


def test_markdown_reports_model_errors_and_each_criterion():
    a = simulate_ratings(8, 3, seed=1).assign(criterion="meaningful")
    b = simulate_ratings(8, 3, seed=2).assign(criterion="engaging")
    r = analyze(pd.concat([a, b]), mixed_model=False, n_boot=50)
    r["criteria"]["engaging"]["mixed_model"] = {"error": "LinAlgError: Singular matrix"}
    md = render_markdown(r)
    assert "## Criterion: meaningful" in md and "## Criterion: engaging" in md
    assert "Not available: LinAlgError: Singular matrix" in md


def test_html_has_tables_and_embeds_valid_chart_specs(data):
    df, r = data
    page = render_html(r, df)
    assert page.count("<table>") == render_markdown(r).count("\n|---|")
    for s in r["systems"].values():
        assert f"<td>{fmt(s['mean'])} {fmt_ci(s['ci95'])}</td>" in page
    specs = re.findall(r'vegaEmbed\("#chart\d+", (.*?), \{"actions": false\}\)', page)
    assert len(specs) == 3  # means, distribution, position
    major = re.search(r"vega-lite@(\d+)", page).group(1)
    for spec in specs:  # the page loads the Vega-Lite major version the specs were written for
        assert json.loads(spec)["$schema"].startswith(f"https://vega.github.io/schema/vega-lite/v{major}.")


def test_html_escapes_names_and_omits_scripts_without_ratings():
    df = simulate_ratings(8, 3, seed=1)
    df["system"] = df["system"].replace("sys0", "<script>x</script>")
    r = analyze(df, mixed_model=False, n_boot=50)
    page = render_html(r, df)
    assert "<script>x</script>" not in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page
    assert "vegaEmbed" not in render_html(r)


def test_markdown_to_html_converts_our_subset():
    out = markdown_to_html("# T\n\ntext `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n")
    assert out.split("\n") == [
        "<h1>T</h1>",
        "<p>text <code>code</code></p>",
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>",
        "<ul><li>one</li><li>two</li></ul>",
    ]
