"""`python -m infact analyze`: statistics from ratings.csv or straight from a study's store.

All of analyze's argument wiring is here, so new analyses (pairwise, judges) add their
options in `register` and their dispatch in `run`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from infact.cli.args import add_db, add_study, command, store_target, study_folder
from infact.cli import analyze_ranking
from infact.errors import InfactError, Problem
from infact.stats import N_BOOT

if TYPE_CHECKING:
    import pandas as pd

# Text columns stay text: participant tokens like "007" or situation ids like "1e3".
TEXT_COLUMNS = {**{c: str for c in ("participant", "situation_id", "system", "criterion", "dialog_id", "study",
                                     "conversation_id", "dataset", "aspect", "level")},
                **analyze_ranking.TEXT_COLUMNS}


def register(subparsers) -> None:
    p = command(
        subparsers, "analyze",
        "Analyse the long ratings table (participant, situation_id, system, rating; optional criterion, position, "
        "is_attention_check, excluded), from a ratings.csv or straight from a study's store; or live-chat "
        "transcripts (transcripts.jsonl). See docs/analysis.md.")
    p.add_argument("ratings", nargs="?", metavar="RATINGS.csv",
                   help="ratings.csv from `python -m infact export` (or transcripts.jsonl: live-chat statistics; or give --study)")
    add_study(p, help="read the ratings from this study's store instead of a CSV")
    add_db(p)
    p.add_argument("--criterion", help="analyse only this criterion (default: every criterion)")
    p.add_argument("--include-flagged", action="store_true", help="keep participants flagged for exclusion")
    p.add_argument("--json", action="store_true", help="print the full result as one JSON object")
    p.add_argument("--report", help="also write a report: out.md (Markdown) or out.html (with charts)")
    p.add_argument("--no-mixed-model", action="store_true", help="skip the (slow) crossed random-effects model")
    p.add_argument("--n-boot", type=int, default=N_BOOT, help=f"bootstrap replicates (default {N_BOOT})")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    analyze_ranking.add_arguments(p)
    p.add_argument("--group-by", metavar="COLUMN", help="annotations.csv with --judge: the judges' figures also per "
                   "value of this column (e.g. dataset)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.ratings and Path(args.ratings).suffix.lower() == ".jsonl":  # live chats (docs/live.md)
        from infact.results.live.overview import analyze_transcripts

        return analyze_transcripts(args)
    ratings, source = _load(args)
    from infact.results.conversations import analysis as annotation_analysis

    if annotation_analysis.is_annotations(ratings):  # a conversation study's annotations.csv
        return _annotations(ratings, source, args)
    if args.report and Path(args.report).suffix.lower() not in (".md", ".html", ".htm"):
        raise InfactError(Problem(args.report, "unknown report format; name the file out.md or out.html.", key="--report"))
    if args.n_boot < 100:
        raise InfactError(Problem("--n-boot", f"{args.n_boot} replicates give no stable interval; use 100 or more (default {N_BOOT})."))
    preferences = analyze_ranking.analyze_preferences(ratings, args, source)
    if preferences is not None:
        return analyze_ranking.output(args, preferences)
    from infact.results.ratings.analysis import analyze

    result = analyze(ratings, criterion=args.criterion, include_flagged=args.include_flagged,
                     mixed_model=not args.no_mixed_model, n_boot=args.n_boot, seed=args.seed, source=source)
    if args.study:
        from infact.results.live.overview import live_from_store

        live = live_from_store(args.study, args.db)
        if live is not None:
            result["live"] = live
    analyze_ranking.add_judges(result, ratings, "ratings", args)
    from infact.results.reports import report

    if args.report:
        path = Path(args.report)
        text = report.render_markdown(result) if path.suffix.lower() == ".md" else report.render_html(result, ratings)
        text = analyze_ranking.with_judges(text, result, html=path.suffix.lower() != ".md")
        from infact.cli.results import report_extras
        from infact.fileio import atomic_write_text

        extras = report_extras(args, result, html=path.suffix.lower() != ".md")
        text = text.replace("</body>", extras + "</body>", 1) if "</body>" in text else text + extras

        atomic_write_text(path, text)
    if args.json:
        print(json.dumps(result, allow_nan=False, indent=2))
    else:
        print(report.render_markdown(result) + analyze_ranking.judges_section(result))
        if "live" in result:
            from infact.results.live.analysis import render_markdown as live_markdown

            print(live_markdown(result["live"]))
        if args.report:
            print(f"report written to {args.report}")
    return 0


def _annotations(df: pd.DataFrame, source: str, args: argparse.Namespace) -> int:
    """A conversation study: per aspect and system, α, halo, rankings; FACE run files as --judge."""
    from infact.results.conversations import analysis as aa

    result = aa.analyze_annotations(df, include_flagged=args.include_flagged, n_boot=args.n_boot, seed=args.seed,
                                    source=source)
    if args.judge:
        named = [aa.parse_run_option(v) for v in args.judge]
        result["judges"] = aa.compare_judges(df, named, group_by=args.group_by, include_flagged=args.include_flagged,
                                             source=source)
    text = aa.render_markdown(result)
    if args.report:
        from infact.fileio import atomic_write_text

        atomic_write_text(Path(args.report), text)
    print(json.dumps(result, allow_nan=False, indent=2) if args.json else text)
    return 0


def _load(args) -> tuple[pd.DataFrame, str]:
    if bool(args.ratings) == bool(args.study):
        raise InfactError(Problem("analyze", "give either RATINGS.csv or --study DIR [--db PATH] (not both, not neither)."))
    if args.study:
        from infact.results.tables.export import tables_from_store  # lazily: pulls in the study and storage layers
        from infact.study.loader import load_study

        # The store resolved once (--db, else INFACT_DB, secrets, db/<study id>/); the live-chat analysis reads it too.
        folder = study_folder(args)
        args.study, args.db = str(folder), store_target(args, load_study(folder).id)

        # Always load flagged participants; analyze() drops them unless --include-flagged.
        found = tables_from_store(args.study, args.db, include_flagged=True)
        # a comparison study's votes, else its ratings
        ratings = next((found[k] for k in ("annotations", "pairwise", "best_worst") if k in found and len(found[k])),
                       found["ratings"])
        return ratings, f"{args.study} (store {args.db})"
    import pandas as pd  # only when a CSV is read: keeps every other command's start fast

    path = Path(args.ratings)
    if not path.is_file():
        raise InfactError(Problem(str(path), "file not found; pass the ratings.csv written by `python -m infact export`."))
    try:
        df = pd.read_csv(path, dtype=TEXT_COLUMNS)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InfactError(Problem(str(path), f"not a readable CSV ({type(exc).__name__}: {str(exc).strip()}); "
                                  "save it as UTF-8 comma-separated values with a header row.")) from None
    return df, str(path)
