"""Human-readable report from an `analysis.analyze` result.

Markdown is the source; HTML is the same Markdown converted line by line (we only emit
headings, paragraphs, bullet lists and tables) plus the charts as Vega-Lite specs drawn
by vega-embed. Offline, the charts stay blank but every number is in the tables.
"""

from __future__ import annotations

import html
import json
import math

import altair as alt
import pandas as pd

from infact.values import bool_column


def _major(version: str) -> str:
    return str(version).lstrip("v").split(".")[0]


# The runtime must match the Vega-Lite version Altair writes (Altair 6 -> Vega-Lite 6).
VEGA_SCRIPTS = [
    f"https://cdn.jsdelivr.net/npm/vega@{_major(alt.VEGA_VERSION)}",
    f"https://cdn.jsdelivr.net/npm/vega-lite@{_major(alt.VEGALITE_VERSION)}",
    f"https://cdn.jsdelivr.net/npm/vega-embed@{_major(alt.VEGAEMBED_VERSION)}",
]


def fmt(x, nd: int = 2) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def fmt_p(p) -> str:
    if p is None:
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def p_eq(p) -> str:
    """'p = 0.014' or 'p < 0.001' for running text."""
    text = fmt_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def fmt_ci(ci, nd: int = 2) -> str:
    return f"[{fmt(ci[0], nd)}, {fmt(ci[1], nd)}]"


def _table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out + [""]


def render_markdown(result: dict) -> str:
    lines = ["# INFACT analysis", ""]
    per = result.get("criteria") or {result.get("criterion"): result}
    for name, r in per.items():
        lines += _criterion(name, r)
    lines += _methods()
    return "\n".join(lines)


def _criterion(name, r: dict) -> list[str]:
    h = "##"  # sub-sections are ### under the per-criterion ##
    lines = [f"## Criterion: {name}" if name else "## Results", ""]
    flagged = "included" if r.get("include_flagged") else "excluded"
    lines += [
        f"{r['n_ratings']} ratings from {r['n_participants']} participants on {r['n_situations']} situations "
        f"(scale 1–{r['scale_points']}). Flagged participants {flagged} "
        f"({r.get('n_flagged_participants', 0)} flagged); "
        f"{r.get('n_attention_check_rows_dropped', 0)} attention-check rows left out.",
        "",
    ]
    k = r["scale_points"]
    lines += [f"{h}# Ratings per system", ""]
    lines += _table(
        ["system", "n", "mean [95% CI]", "median", "sd"] + [f"% {v}" for v in range(1, k + 1)],
        [
            [s, v["n"], f"{fmt(v['mean'])} {fmt_ci(v['ci95'])}", fmt(v["median"], 1), fmt(v["sd"])]
            + [fmt(100 * (v["distribution"][str(i)] or 0), 0) for i in range(1, k + 1)]
            for s, v in r["systems"].items()
        ],
    )
    lines += _friedman(r["friedman"], h)
    lines += [f"{h}# Pairwise comparisons", ""]
    lines += _table(
        ["a", "b", "n", "mean diff a−b [95% CI]", "p (Wilcoxon)", "p (Holm)"],
        [
            [
                p["a"],
                p["b"],
                p["n_participants"],
                f"{fmt(p['mean_diff'])} {fmt_ci(p['ci95'])}",
                fmt_p(p["p"]),
                fmt_p(p["p_holm"]),
            ]
            for p in r["pairwise"]
        ],
    )
    lines += _mixed(r.get("mixed_model"), h)
    lines += _ordinal(r.get("ordinal_model"), h)
    lines += _conditions(r.get("conditions"), h)
    lines += _agreement(r, h)
    lines += _position(r.get("position_bias"), h)
    return lines


def _conditions(c, h) -> list[str]:
    """A between-subjects study: per condition × system, and the models with condition (ratings/conditions.py)."""
    if not c:
        return []
    names = list(c["conditions"])
    systems = list(next(iter(c["conditions"].values()))["systems"])
    lines = [f"{h}# Per condition", ""]
    lines += _table(
        ["condition", "participants", "ratings", "mean"] + [f"{s} mean [95% CI]" for s in systems],
        [
            [n, v["n_participants"], v["n_ratings"], fmt(v["mean"])]
            + [f"{fmt(v['systems'][s]['mean'])} {fmt_ci(v['systems'][s]['ci95'])}" for s in systems]
            for n, v in c["conditions"].items()
        ],
    )
    for label, model in (("Mixed model", c.get("mixed_model")), ("Ordinal model", c.get("ordinal_model"))):
        if not model:
            continue
        lines += [f"{h}# {label} with condition", ""]
        if "error" in model:
            lines += [f"Not available: {model['error']}", ""]
            continue
        rows = model.get("estimates") or [{"term": t, **e} for t, e in model["effects"].items()]
        lines += [f"`{model['formula']}`; reference system {c['reference_system']}, condition {names[0]}.", ""]
        lines += _table(
            ["term", "estimate", "SE", "p"],
            [[e["term"], fmt(e["estimate"], 3), fmt(e["se"], 3), fmt_p(e["p"])] for e in rows],
        )
        for what, test in (
            ("condition", model.get("condition_test")),
            ("condition × system", model.get("interaction_test")),
        ):
            if test:
                lines.append(f"- Wald test of {what}: χ²({test['df']}) = {fmt(test['chi2'])}, {p_eq(test['p'])}")
        lines.append("")
    return lines


def _friedman(fr, h) -> list[str]:
    lines = [f"{h}# Friedman test", ""]
    if fr and fr["statistic"] is not None:
        return lines + [
            f"χ²({fr['k'] - 1}) = {fmt(fr['statistic'])}, {p_eq(fr['p'])}, Kendall's W = {fmt(fr['kendall_w'])} "
            f"on {fr['n_participants']} participants who rated every system "
            f"({fr['n_dropped_incomplete']} incomplete left out).",
            "",
        ]
    return lines + [f"Not computed: {(fr or {}).get('note', 'no data')}.", ""]


def _agreement(r: dict, h) -> list[str]:
    icc = r["icc_participant"]
    ka = r["krippendorff_alpha"]
    lines = [
        f"{h}# Agreement",
        "",
        f"- Share of rating variance between participants (ICC): {fmt(icc['value'])} ({icc['method']})",
        f"- Krippendorff's α (ordinal), pooled over situation × system: {fmt(ka['pooled'], 3)}",
    ]
    lines += [f"- Krippendorff's α (ordinal), {s} only: {fmt(a, 3)}" for s, a in ka["per_system"].items()] + [""]
    lines += [
        "The pooled α asks whether raters agree on which *responses* are better, across systems and "
        "situations. α for one system asks only whether they agree on which of that system's situations "
        "went better: when a system is about equally good everywhere there is little to agree on, and its "
        "α is near 0 even though raters agree on its level. A high pooled α next to low per-system values "
        "means raters agree mostly about the differences between systems.",
        "",
    ]
    return lines


def _mixed(mm, h) -> list[str]:
    lines = [f"{h}# Mixed model", ""]
    if mm is None:
        return lines + [
            "Not fitted for this report: the mixed model was switched off to keep it quick "
            "(the command-line `analyze` fits it by default).",
            "",
        ]
    if "error" in mm:
        return lines + [f"Not available: {mm['error']}", ""]
    lines += [
        f"`{mm['formula']}` ({mm['method']}), reference system {mm['reference_system']}; "
        f"log-likelihood {fmt(mm['loglik'])}{'' if mm['converged'] else ' — did NOT converge'}.",
        "",
    ]
    lines += _table(
        ["term", "estimate", "SE", "p"],
        [[e["term"], fmt(e["estimate"], 3), fmt(e["se"], 3), fmt_p(e["p"])] for e in mm["estimates"]],
    )
    lines += ["Variance shares: " + ", ".join(f"{k} {fmt(v)}" for k, v in mm["variance_share"].items()) + ".", ""]
    lines += [f"- warning: {w}" for w in mm.get("warnings", [])] + ([""] if mm.get("warnings") else [])
    return lines


def _ordinal(om, h) -> list[str]:
    lines = [f"{h}# Ordinal model", ""]
    if om is None:
        return lines + ["Not fitted for this report (the command-line `analyze` fits it by default).", ""]
    if "error" in om:
        return lines + [f"Not available: {om['error']}", ""]
    lines += [
        f"`{om['formula']}`, cumulative {om['link']} link, {om['method']} approximation (as R's `ordinal::clmm`); "
        f"estimates are log-odds of a higher rating than {om['reference']}. "
        f"SD participant {fmt(om['sd_participant'])}, SD situation {fmt(om['sd_situation'])}; "
        f"log-likelihood {fmt(om['loglik'])}{'' if om['converged'] else ' — did NOT converge'}.",
        "",
    ]
    lines += _table(
        ["system", "estimate", "SE", "p", "odds ratio [95% CI]"],
        [[s, fmt(e["estimate"], 3), fmt(e["se"], 3), fmt_p(e["p"]), _odds(e)] for s, e in om["effects"].items()],
    )
    lines += ["Thresholds: " + ", ".join(f"{k} {fmt(v)}" for k, v in om["thresholds"].items()) + ".", ""]
    lines += [f"Note: {om['note']}.", ""] if om.get("note") else []
    order = " > ".join(om["order"])
    pairs = om["order_differs_from_means"]
    if pairs:
        flips = "; ".join(f"{a} above {b}" for a, b in pairs)
        lines += [
            f"The ordinal model and the mean ratings order the systems differently: the model puts {flips}, "
            f"the means the other way round (model order {order}).",
            "",
        ]
    else:
        lines += [f"The ordinal model orders the systems as their mean ratings do ({order}).", ""]
    return lines


def _odds(e: dict) -> str:
    """exp(estimate) with its Wald 95% interval: the odds of a higher rating than the reference, at every cut."""
    b, se = e["estimate"], e["se"]
    if se is None or abs(b) > 30:
        return "–"
    return f"{fmt(math.exp(b))} {fmt_ci([math.exp(b - 1.96 * se), math.exp(min(b + 1.96 * se, 700))])}"


def _position(pb, h) -> list[str]:
    if not pb:
        return []
    lines = [f"{h}# Position (order) effect", ""]
    positions = sorted({c for row in pb["counts"].values() for c in row}, key=int)
    lines += [
        "Number of ratings of each system at each position on the page (1 = shown first); "
        "balanced counts mean the random order did its job.",
        "",
    ]
    lines += _table(
        ["system"] + [f"ratings at position {c}" for c in positions],
        [[s] + [row.get(c, 0) for c in positions] for s, row in pb["counts"].items()],
    )
    bal = pb["balance_chi2"]
    if bal["statistic"] is not None:
        lines += [
            f"Balance of systems over positions: χ²({bal['dof']}) = {fmt(bal['statistic'])}, {p_eq(bal['p'])}.",
            "",
        ]
    lines += [
        "Mean rating by position: " + ", ".join(f"{p}: {fmt(m)}" for p, m in pb["mean_by_position"].items()) + ".",
        "",
    ]
    eff = pb.get("effect")
    if eff and "error" not in eff:
        lines += [
            f"Position effect ({eff['model']}): Wald χ²({eff['df']}) = {fmt(eff['wald_chi2'])}, {p_eq(eff['p'])}; "
            + ", ".join(
                f"position {p} vs {eff['reference_position']}: {fmt(c['estimate'])} (SE {fmt(c['se'])})"
                for p, c in eff["coefficients"].items()
            )
            + ".",
            "",
        ]
    elif eff:
        lines += [f"Position effect not available: {eff['error']}", ""]
    return lines


def _methods() -> list[str]:
    return [
        "## Methods",
        "",
        "Intervals are 95% percentile intervals from a bootstrap that resamples whole participants. "
        "Friedman and Wilcoxon signed-rank tests use each participant's mean rating per system; "
        "pairwise p-values are Holm-adjusted. The mixed model has crossed random intercepts for "
        "participant and situation; the ordinal model is a cumulative-logit mixed model with the same random "
        "intercepts, fitted like R's ordinal::clmm (Laplace). See docs/analysis.md.",
        "",
    ]


# --------------------------------------------------------------------------- HTML


def render_html(result: dict, ratings: pd.DataFrame | None = None) -> str:
    """Self-contained page: the Markdown tables as HTML, plus charts when online."""
    charts = _chart_specs(result, ratings) if ratings is not None else []
    body = markdown_to_html(render_markdown(result))
    divs, calls = [], []
    for i, (title, spec) in enumerate(charts):
        divs.append(f'<h3>{html.escape(title)}</h3><div id="chart{i}"></div>')
        payload = json.dumps(spec, allow_nan=False).replace("</", "<\\/")
        calls.append(f'vegaEmbed("#chart{i}", {payload}, {{"actions": false}}).catch(function(){{}});')
    scripts = "".join(f'<script src="{u}"></script>' for u in VEGA_SCRIPTS) if charts else ""
    chart_html = ("<h2>Charts</h2>" + "".join(divs) + f"<script>{''.join(calls)}</script>") if charts else ""
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>INFACT analysis</title>'
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
        "td:first-child,th:first-child{text-align:left}</style>"
        f"{scripts}</head><body>{body}{chart_html}</body></html>"
    )


def _chart_specs(result: dict, ratings: pd.DataFrame) -> list[tuple[str, dict]]:
    from infact.results.reports import charts

    labels = None
    if "rating_label" in ratings.columns:
        pairs = ratings.dropna(subset=["rating_label"]).drop_duplicates("rating")
        labels = {int(r): str(t) for r, t in zip(pairs["rating"], pairs["rating_label"])}
    shown = (
        ratings
        if result.get("include_flagged") or "excluded" not in ratings.columns
        else ratings[~bool_column(ratings["excluded"])]
    )
    out = [
        ("Mean rating per system (95% CI)", charts.mean_ratings_chart(shown, result).to_dict()),
        ("Distribution of ratings", charts.distribution_chart(shown, labels).to_dict()),
    ]
    if "position" in ratings.columns:
        out.append(("Mean rating by display position", charts.position_chart(shown).to_dict()))
    return out


def markdown_to_html(md: str) -> str:
    out, table, items = [], [], []

    def flush():
        if table:
            rows = [r for r in table if not set(r.replace("|", "").strip()) <= {"-"}]
            cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
            out.append(
                "<table><tr>"
                + "".join(f"<th>{_inline(c)}</th>" for c in cells[0])
                + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in cells[1:])
                + "</table>"
            )
            table.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        if line.startswith("- "):
            items.append(line[2:])
            continue
        flush()
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{_inline(line[level:].strip())}</h{level}>")
        elif line.strip():
            out.append(f"<p>{_inline(line)}</p>")
    flush()
    return "\n".join(out)


def _inline(text: str) -> str:
    parts = html.escape(text).split("`")  # `code` spans only
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
