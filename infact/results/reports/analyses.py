"""The report of one analysis, as its kind writes it: each kind of answer names its report function (its
`report` hook, infact/hookspecs.py) and `Analysis.render` (infact/results/analyze.py) calls it.

A report function is `report(result, fmt, table) -> str`: Markdown (`fmt="md"`) or a standalone HTML page
(`"html"`); `table` is the analysed table (ratings: the HTML report's charts), or None. A kind without one
gets `table_report`, the default analysis's counts (`hookspecs.describe`).
"""

from __future__ import annotations

import html as _html

import pandas as pd


def ratings_report(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    """Ratings: the statistics (HTML: with charts), the judges, the label models and the simulated participants;
    ratings read as preferences (`as_pairwise`) are reported as a ranking."""
    from infact.results.reports import report

    if result.get("as_pairwise"):
        return preferences_report(result, fmt, table)
    html = fmt != "md"
    text = report.render_markdown(result) if not html else report.render_html(result, table)
    section = judges_section(result, html=html)
    if result.get("label_models"):
        from infact.results.crowd.report import render_markdown as label_models_markdown

        models = label_models_markdown(result["label_models"])
        section += _pre(models) if html else models
    if result.get("simulated_alignment"):
        section += _pre(simulated_section(result)) if html else simulated_section(result)
    if html and "</body>" in text:
        return text.replace("</body>", section + "</body>", 1)
    return text + section


def preferences_report(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    """Votes and best–worst choices: the ranking, the judges' alignment, the simulated participants (HTML: the
    same Markdown, preformatted: tables of numbers stay readable)."""
    from infact.results.reports import preferences

    text = preferences.render_markdown(result) + alignment_section(result) + simulated_section(result)
    if fmt != "md":
        text = f'<!doctype html><meta charset="utf-8"><title>INFACT preference analysis</title>\n{_pre(text)}'
    return text


def annotations_report(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    """Conversation annotations: per aspect and system, with the FACE judges, and the simulated participants."""
    from infact.results.conversations.analysis import render_markdown

    return render_markdown(result) + simulated_section(result)


def table_report(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    """The default analysis's report (a kind with no analysis of its own): rows, participants, systems and how
    filled each column is."""
    lines = [f"# {result.get('source', 'table')}", "", f"{result.get('rows', 0)} rows"]
    if "participants" in result:
        lines[-1] += f" from {result['participants']} participants"
    for system, n in (result.get("per_system") or {}).items():
        lines.append(f"- {system}: {n} rows")
    lines += ["", "| column | filled | distinct |", "|---|---|---|"]
    lines += [f"| {c} | {v['filled']} | {v['distinct']} |" for c, v in (result.get("columns") or {}).items()]
    text = "\n".join(lines) + "\n"
    if fmt == "md":
        return text
    return f'<!doctype html><meta charset="utf-8"><title>INFACT table</title>\n{_pre(text)}'


def with_bots_note(text: str, result: dict, fmt: str) -> str:
    """The report with the line saying how many bot participants were left out (unchanged when none were)."""
    note = bots_note(result)
    if not note:
        return text
    if fmt == "md":
        return f"{text.rstrip()}\n\n{note}\n"
    note = f"<p>{_html.escape(note)}</p>"
    return text.replace("</body>", note + "</body>", 1) if "</body>" in text else text + note


def bots_note(result: dict) -> str:
    """The line a report gets when bot participants were left out of it."""
    n = result.get("bots_left_out")
    if not n:
        return ""
    return f"{n} bot participant(s) (`infact bots`) are left out of this analysis; --include-bots includes them."


def with_methods(text: str, result: dict, sheet: dict | None, fmt: str) -> str:
    """A written report (`analyze --report`): the quotable methods paragraph and, for a study, its datasheet."""
    from infact.results.reports.methods import report_section

    extras = report_section(result, sheet)
    if fmt != "md":
        extras = f'<pre style="font-family:ui-monospace,monospace;white-space:pre-wrap">{_html.escape(extras)}</pre>\n'
    return text.replace("</body>", extras + "</body>", 1) if "</body>" in text else text + extras


def judges_section(result: dict, html: bool = False) -> str:
    """The judges' table for a ratings report ('' when no judge was compared)."""
    if not result.get("judges"):
        return ""
    from infact.results.reports.preferences import render_judges

    text = "\n" + render_judges(result["judges"]) + alignment_section(result)
    return _pre(text) if html else text


def simulated_section(result: dict) -> str:
    """Simulated participants vs the humans (docs/llm.md), '' when the study has none."""
    if not result.get("simulated_alignment"):
        return ""
    from infact.results.judges.simulators import render_markdown

    return "\n" + render_markdown(result["simulated_alignment"])


def alignment_section(result: dict) -> str:
    """The judges' alignment report (docs/llm.md), '' when no judge was compared."""
    if not result.get("judge_alignment"):
        return ""
    from infact.results.judges.alignment_report import render_markdown
    from infact.results.judges.alt_report import render_verdicts

    return (
        "\n"
        + render_markdown(result["judge_alignment"], result.get("judge_coverage"))
        + render_verdicts(result["judge_alignment"])
    )


def _pre(markdown: str) -> str:
    # Preference reports are tables of numbers; preformatted Markdown keeps every one readable.
    return f'<pre style="font-family:ui-monospace,monospace">{_html.escape(markdown)}</pre>\n'
