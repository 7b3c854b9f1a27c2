"""The preference side of `python -m infact analyze`: pairwise.csv, best_worst.csv,
`--as-pairwise`, `--covariates` and `--judge`. analyze.py calls these few functions."""

from __future__ import annotations

import argparse

import pandas as pd

from infact.errors import InfactError, Problem

TEXT_COLUMNS = {c: str for c in ("system_a", "system_b", "winner", "shown_left", "systems", "best", "worst")}


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("preferences (pairwise.csv, best_worst.csv; see docs/ranking.md)")
    g.add_argument("--as-pairwise", action="store_true",
                   help="rank a ratings table by the preferences implied within each participant × situation")
    g.add_argument("--covariates", default="",
                   help="style control for pairwise.csv: comma-separated from length,items (e.g. length,items)")
    g.add_argument("--judge", action="append", default=[], metavar="NAME=FILE.csv",
                   help="compare an automatic judge with the humans (repeatable); for annotations.csv a FACE run "
                        "file NAME=RUN.json (docs/protocols.md)")
    g.add_argument("--responses", metavar="STUDY_DIR|SITUATIONS.jsonl",
                   help="response texts for the judges' length_bias (pairwise.csv exports carry lengths already)")
    g.add_argument("--min-votes", type=int, default=None, metavar="N",
                   help="systems with fewer decisive votes are provisional: listed apart, never in 'settled' "
                        "(default 30, from bench/min_votes.py; docs/ranking.md)")
    g.add_argument("--reweight", action="store_true",
                   help="also fit with every pair weighted inversely to how often it was compared (as LMArena)")
    g.add_argument("--confidence", type=float, default=0.95,
                   help="confidence of the ranking intervals and of 'settled' (default 0.95)")


def _covariates(value: str) -> tuple[str, ...]:
    from infact.results.tables.comparisons import STYLE_COVARIATES

    names = tuple(c.strip() for c in value.split(",") if c.strip())
    unknown = [c for c in names if c not in STYLE_COVARIATES]
    if unknown:
        raise InfactError(Problem("--covariates", f"unknown covariate {unknown[0]!r}; choose from "
                                  f"{', '.join(STYLE_COVARIATES)}, e.g. --covariates length,items."))
    return names


def analyze_preferences(df: pd.DataFrame, args: argparse.Namespace, source: str) -> dict | None:
    """The result for a pairwise or best–worst table, or for ratings with --as-pairwise; None for plain ratings."""
    from infact.results.ranking import analysis as ra
    from infact.results.tables.comparisons import table_kind

    if not 0.5 <= args.confidence < 1:
        raise InfactError(Problem("--confidence", f"{args.confidence} is not a confidence level; use e.g. 0.95."))
    kind = table_kind(df)
    covariates = _covariates(args.covariates)
    if covariates and kind != "pairwise":
        raise InfactError(Problem("--covariates", "style control needs a pairwise table (pairwise.csv)."))
    from infact.results.ranking.provisional import MIN_VOTES

    min_votes = MIN_VOTES if args.min_votes is None else args.min_votes
    if min_votes < 0:
        raise InfactError(Problem("--min-votes", f"{min_votes} is negative; give 0 (nothing provisional) or more."))
    if args.reweight and kind != "pairwise":
        raise InfactError(Problem("--reweight", "reweighting pairs needs a pairwise table (pairwise.csv)."))
    opts = dict(criterion=args.criterion, include_flagged=args.include_flagged, n_boot=args.n_boot, seed=args.seed,
                confidence=args.confidence, source=source, min_votes=min_votes)
    if kind == "pairwise":
        result = ra.analyze_votes(df, covariates=covariates, reweight=args.reweight, **opts)
    elif kind == "best_worst":
        result = ra.analyze_best_worst(df, **opts)
    elif args.as_pairwise:
        result = ra.analyze_ratings_as_pairwise(df, **opts)
    else:
        return None
    add_judges(result, df, "ratings" if kind == "ratings" else kind, args)
    return result


def add_judges(result: dict, humans: pd.DataFrame, kind: str, args: argparse.Namespace) -> None:
    """result["judges"] = {NAME: agreement with the humans} for every --judge."""
    if not args.judge:
        return
    from infact.results.judges import agreement as judges
    from infact.results.ratings.analysis import _clean, _prepare
    from infact.results.tables.comparisons import prepare_pairwise
    from infact.results.ranking.features import features_from_path

    if kind == "best_worst":
        raise InfactError(Problem("--judge", "judges are compared with ratings or pairwise votes, not best–worst choices."))
    if kind == "ratings":
        data, _ = _prepare(humans, args.include_flagged)
    else:
        data = prepare_pairwise(humans, include_flagged=args.include_flagged)
    if args.criterion and "criterion" in data.columns:
        data = data[data["criterion"].astype(str) == args.criterion]
    features = features_from_path(args.responses) if args.responses else (
        judges.features_from_votes(data) if kind == "pairwise" else None)
    named = [judges.parse_judge_option(value) for value in args.judge]
    result["judges"] = _clean(judges.compare_files(data, kind, named, args.criterion, features))
    from infact.results.judges.alignment_report import align_files, situation_features_from_path

    where = args.responses or getattr(args, "study", None)
    result["judge_alignment"] = _clean(align_files(
        data, kind, named, args.criterion, features=features, n_boot=min(args.n_boot, 500), seed=args.seed,
        situation_features=situation_features_from_path(where) if where else None))


def output(args: argparse.Namespace, result: dict) -> int:
    """Print (JSON or Markdown) and write --report for a preference result."""
    import json
    from pathlib import Path

    from infact.fileio import atomic_write_text
    from infact.results.reports.preferences import render_markdown

    text = render_markdown(result) + alignment_section(result)
    if args.report:
        from infact.cli.results import report_extras

        path = Path(args.report)
        md = path.suffix.lower() == ".md"
        extras = report_extras(args, result, html=not md)
        atomic_write_text(path, text + extras if md else
                          f"<!doctype html><meta charset=\"utf-8\"><title>INFACT preference analysis</title>\n"
                          f"{_html(text)}{extras}")
    print(json.dumps(result, allow_nan=False, indent=2) if args.json else text)
    if args.report and not args.json:
        print(f"report written to {args.report}")
    return 0


def with_judges(report: str, result: dict, *, html: bool) -> str:
    """The report with the judges' table beside the human results (inside the HTML body)."""
    section = judges_section(result, html=html)
    if html and "</body>" in report:
        return report.replace("</body>", section + "</body>", 1)
    return report + section


def judges_section(result: dict, html: bool = False) -> str:
    """The judges' table to append to a ratings report ('' without --judge)."""
    if not result.get("judges"):
        return ""
    from infact.results.reports.preferences import render_judges

    text = "\n" + render_judges(result["judges"]) + alignment_section(result)
    return _html(text) if html else text


def _html(markdown: str) -> str:
    # Preference reports are tables of numbers; preformatted Markdown keeps every one readable.
    import html

    return f"<pre style=\"font-family:ui-monospace,monospace\">{html.escape(markdown)}</pre>\n"


def alignment_section(result: dict) -> str:
    """The judges' alignment report (docs/llm.md), '' without --judge."""
    if not result.get("judge_alignment"):
        return ""
    from infact.results.judges.alignment_report import render_markdown

    return "\n" + render_markdown(result["judge_alignment"])
