"""The judge report's verdicts side by side: INFACT's stand-in rule and the Alt-Test (alt_test.py), as Markdown.

Kept apart from alignment_report.render_markdown so that each section can change on its own; the
callers (analyze's report, `llm align`) append this section after the alignment table.
"""

from __future__ import annotations


def _f(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def _verdict(passed) -> str:
    return "not applicable" if passed is None else "pass" if passed else "fail"


def render_verdicts(results: dict) -> str:
    """results = {judge: {criterion: alignment}} as align() returns them ('' when none has an Alt-Test)."""
    rows = [(j, c, a) for j, criteria in results.items() for c, a in criteria.items() if a.get("alt_test")]
    if not rows:
        return ""
    eps = sorted({a["alt_test"]["epsilon"] for _, _, a in rows})
    lines = [
        "",
        "### Verdicts: stand-in rule and Alt-Test",
        "",
        "Alt-Test (Calderon, Reichart & Dror, ACL 2025): leave one annotator out; the judge wins an item when it "
        "aligns with the remaining annotators at least as well as the left-out one (accuracy for preference labels, "
        "minus the RMSE for ratings); per annotator a one-sided paired t-test of ρ_judge > ρ_human − ε, "
        f"Benjamini–Yekutieli FDR q = 0.05; ω = share of annotators beaten, pass when ω ≥ 0.5; ρ = advantage "
        f"probability (for comparing judges). ε = {', '.join(map(str, eps))}.",
        "",
        "| judge | criterion | stand-in rule | Alt-Test | ω | ρ | items | annotators tested | skipped |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for judge, criterion, a in rows:
        t = a["alt_test"]
        lines.append(
            f"| {judge} | {criterion} | {'pass' if a.get('stand_in') else 'fail'} | {_verdict(t['passed'])} | "
            f"{_f(t['winning_rate'])} | {_f(t['advantage_probability'])} | {t['n_items']} | {t['n_annotators']} | "
            f"{len(t['skipped_annotators'])} |"
        )
        notes += [f"- {judge} / {criterion}: {w}." for w in t["warnings"]]
    if notes:
        lines += ["", "Too little data for the Alt-Test to be trusted:", "", *notes]
    return "\n".join(lines) + "\n"
