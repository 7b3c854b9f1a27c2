"""`python -m infact analyze`: argument parsing only; the analysis is `infact.results.analyze`.

Reads ratings.csv, pairwise.csv, best_worst.csv (or transcripts.jsonl), or a study's store, and prints
the result as Markdown or JSON, optionally writing a report. See docs/analysis.md and docs/ranking.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from infact.cli.args import add_db, add_study, command, store_target, study_folder
from infact.errors import InfactError, OptionError, Problem
from infact.stats import N_BOOT


def register(subparsers) -> None:
    p = command(
        subparsers,
        "analyze",
        "Analyse the long ratings table (participant, situation_id, system, rating; optional criterion, position, "
        "is_attention_check, excluded), from a ratings.csv or straight from a study's store; or live-chat "
        "transcripts (transcripts.jsonl). See docs/analysis.md.",
    )
    p.add_argument(
        "ratings",
        nargs="?",
        metavar="RATINGS.csv",
        help="ratings.csv from `python -m infact export` (or transcripts.jsonl: live-chat statistics; or give --study)",
    )
    add_study(p, help="read the ratings from this study's store instead of a CSV")
    add_db(p)
    p.add_argument(
        "--kind",
        metavar="TABLE",
        help="the table's declared kind: ratings, pairwise, best_worst, annotations, … (default: the file's name; "
        "a file named after no table is read as ratings; with --study: its votes, choices or annotations, "
        "else its ratings)",
    )
    p.add_argument("--criterion", help="analyse only this criterion (default: every criterion)")
    p.add_argument("--include-flagged", action="store_true", help="keep participants flagged for exclusion")
    p.add_argument(
        "--include-bots",
        action="store_true",
        help="keep the bot participants (`infact bots`, the tables' `bot` column), left out by default",
    )
    p.add_argument("--json", action="store_true", help="print the full result as one JSON object")
    p.add_argument("--report", help="also write a report: out.md (Markdown) or out.html (with charts)")
    p.add_argument("--no-mixed-model", action="store_true", help="skip the (slow) crossed random-effects model")
    p.add_argument(
        "--no-ordinal-model", action="store_true", help="skip the ordinal (cumulative-link mixed) model of the ratings"
    )
    p.add_argument("--n-boot", type=int, default=N_BOOT, help=f"bootstrap replicates (default {N_BOOT})")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument(
        "--progress",
        action="store_true",
        help="show progress bars on stderr (the default when stderr is a terminal; large pairwise tables)",
    )
    _preference_arguments(p.add_argument_group("preferences (pairwise.csv, best_worst.csv; see docs/ranking.md)"))
    _judge_and_label_arguments(p)
    p.add_argument(
        "--group-by",
        metavar="COLUMN",
        help="annotations.csv with --judge: the judges' figures also per value of this column (e.g. dataset)",
    )
    p.set_defaults(func=run)


def _preference_arguments(g) -> None:
    g.add_argument(
        "--as-pairwise",
        action="store_true",
        help="rank a ratings table by the preferences implied within each participant × situation",
    )
    g.add_argument(
        "--covariates",
        default="",
        help="style control for pairwise.csv: comma-separated from length,items (e.g. length,items)",
    )
    g.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="NAME=FILE.csv",
        help="compare an automatic judge with the humans (repeatable); for annotations.csv a FACE run "
        "file NAME=RUN.json (docs/protocols.md)",
    )
    g.add_argument(
        "--responses",
        metavar="STUDY_DIR|SITUATIONS.jsonl",
        help="response texts for the judges' length_bias (pairwise.csv exports carry lengths already)",
    )
    g.add_argument(
        "--min-votes",
        type=int,
        default=None,
        metavar="N",
        help="systems with fewer decisive votes are provisional: listed apart, never in 'settled' "
        "(default 30, from bench/min_votes.py; docs/ranking.md)",
    )
    g.add_argument(
        "--max-participants",
        type=int,
        default=None,
        metavar="N",
        help="a table without --study: the maximum of participants declared before the study, so that the "
        "monitoring section uses the finite-horizon boundary (with --study: study.toml [monitoring]; docs/ranking.md)",
    )
    _integrity_arguments(g)
    _anomaly_arguments(g)
    g.add_argument(
        "--reweight",
        action="store_true",
        help="also fit with every pair weighted inversely to how often it was compared (as LMArena)",
    )
    g.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help="confidence of the ranking intervals and of 'settled' (default 0.95)",
    )


def _integrity_arguments(g) -> None:
    """Vote integrity (docs/ranking.md): repeats, vote time and the anomaly score."""
    g.add_argument(
        "--repeat-cap",
        type=int,
        default=1,
        metavar="N",
        help="vote integrity: a participant's votes on one pair and situation (live: one opening) that count; "
        "later ones are flagged and the ranking is also given without them (default 1; docs/ranking.md)",
    )
    g.add_argument(
        "--min-vote-seconds",
        type=float,
        default=None,
        metavar="S",
        help="vote integrity: pairwise votes faster than this are flagged (default: the study's "
        "quality.min_situation_seconds with --study, else 3)",
    )
    g.add_argument(
        "--anomaly-quantile",
        type=float,
        default=0.99,
        metavar="Q",
        help="vote integrity: flag a participant whose votes are less likely, under the fit without them, than "
        "this share of simulated participants' (default 0.99; docs/ranking.md)",
    )


def _anomaly_arguments(g) -> None:
    g.add_argument(
        "--anomaly-max-participants",
        type=int,
        default=500,
        metavar="N",
        help="vote integrity: skip the anomaly score (one refit per participant) above N participants, and say so "
        "(default 500; 0: always compute it)",
    )


def _judge_and_label_arguments(p) -> None:
    p.add_argument(
        "--alt-epsilon",
        type=float,
        default=None,
        metavar="EPS",
        help="with --judge: the Alt-Test's cost-benefit allowance ε (default 0.1, the paper's value for crowd "
        "workers; 0.15 skilled annotators, 0.2 experts; docs/llm.md)",
    )
    p.add_argument(
        "--label-models",
        action="store_true",
        help="ratings: also Dawid-Skene and MACE beside the median, with the least reliable annotators (needs the "
        "optional crowd-kit: pip install 'infact[crowd]'; docs/llm.md)",
    )


# The library's options (`Options` in infact/results/analyze.py, `kind`, and the options its analyses read from
# `Options.extra`) and the flag that sets each: the library names an option it cannot use (`OptionError`), the
# user is told the flag.
FLAGS = {
    "criterion": "--criterion",
    "include_flagged": "--include-flagged",
    "include_bots": "--include-bots",
    "mixed_model": "--no-mixed-model",
    "ordinal_model": "--no-ordinal-model",
    "n_boot": "--n-boot",
    "seed": "--seed",
    "as_pairwise": "--as-pairwise",
    "covariates": "--covariates",
    "confidence": "--confidence",
    "judges": "--judge",
    "responses": "--responses",
    "group_by": "--group-by",
    "min_votes": "--min-votes",
    "reweight": "--reweight",
    "repeat_cap": "--repeat-cap",
    "min_vote_seconds": "--min-vote-seconds",
    "anomaly_max_participants": "--anomaly-max-participants",
    "anomaly_quantile": "--anomaly-quantile",
    "kind": "--kind",
    "alt_epsilon": "--alt-epsilon",
    "label_models": "--label-models",
    "max_participants": "--max-participants",
}


def options(args: argparse.Namespace):
    from infact.results.analyze import Options

    return Options(
        criterion=args.criterion,
        include_flagged=args.include_flagged,
        include_bots=args.include_bots,
        mixed_model=not args.no_mixed_model,
        ordinal_model=not args.no_ordinal_model,
        n_boot=args.n_boot,
        seed=args.seed,
        as_pairwise=args.as_pairwise,
        confidence=args.confidence,
        covariates=tuple(c.strip() for c in args.covariates.split(",") if c.strip()),
        judges=tuple(args.judge),
        responses=args.responses,
        group_by=args.group_by,
        min_votes=args.min_votes,
        reweight=args.reweight,
        repeat_cap=args.repeat_cap,
        min_vote_seconds=args.min_vote_seconds,
        anomaly_quantile=args.anomaly_quantile,
        anomaly_max_participants=args.anomaly_max_participants,
        extra={
            **({} if args.alt_epsilon is None else {"alt_epsilon": args.alt_epsilon}),
            **({"label_models": True} if args.label_models else {}),
            **({} if args.max_participants is None else {"max_participants": args.max_participants}),
        },
    )


def _progress(args: argparse.Namespace):
    """Bars on stderr for the long parts (bootstrap, fragility) when asked or when stderr is a terminal."""
    import contextlib

    if not (getattr(args, "progress", False) or sys.stderr.isatty()):
        return contextlib.nullcontext()
    from infact.cli.progress import StageBars
    from infact.stats.progress import reporting

    return reporting(StageBars("analyze"))


def _transcripts(args: argparse.Namespace) -> bool:
    return bool(args.ratings) and Path(args.ratings).suffix.lower() == ".jsonl"  # live chats (docs/live.md)


def _check_maximum(args: argparse.Namespace) -> None:
    """--max-participants: a count, and only for a bare table (a study declares its own, in advance)."""
    if args.max_participants is None:
        return
    if args.study:
        message = "with --study the maximum is the one study.toml declares ([monitoring] max_participants); drop it."
        raise InfactError(Problem("--max-participants", message))
    if args.max_participants < 1:
        raise InfactError(Problem("--max-participants", f"{args.max_participants} is no number of participants."))


def run(args: argparse.Namespace) -> int:
    try:
        analysis = _analysis(args)
    except OptionError as exc:  # the library names its option; the user gave a flag
        raise exc.named(FLAGS) from None
    if args.report and not _transcripts(args):
        from infact.fileio import atomic_write_text

        path = Path(args.report)
        text = analysis.report("md" if path.suffix.lower() == ".md" else "html")
        atomic_write_text(path, text)
    print(json.dumps(analysis.result, allow_nan=False, indent=2) if args.json else analysis.render("md"))
    if args.report and not args.json and not _transcripts(args):
        print(f"report written to {args.report}")
    return _judges_usable(analysis.result)


def _analysis(args: argparse.Namespace):
    """Every argument read first, once (the study loaded, its store resolved); then the library called once with
    those objects: a transcripts file, a table file, or the study and its store (read once)."""
    from infact.results import analyze

    opts, progress, transcripts = options(args), _progress(args), _transcripts(args)
    if not transcripts:
        _check(args)
    study, target = _study_and_store(args) if args.study and not transcripts else (None, None)
    if transcripts:
        return analyze.analyze_file(args.ratings)
    if study is None:
        with progress:
            return analyze.analyze_file(args.ratings, opts, args.kind)
    from infact.storage import open_storage

    storage = open_storage(target)
    try:
        with progress:
            source = f"{study.folder} (store {shown_target(target)})"  # printed, and written into --report
            return analyze.analyze_study(study, storage, opts, kind=args.kind, source=source)
    finally:
        storage.close()


def shown_target(target: str) -> str:
    """The store as results and reports name it: a database URL's password replaced by ***."""
    if "://" not in str(target):
        return str(target)
    from infact.stores.sql.urls import mask_url

    return mask_url(target)


def _check(args: argparse.Namespace) -> None:
    """The arguments that do not go together, refused before anything is read."""
    if bool(args.ratings) == bool(args.study):
        raise InfactError(
            Problem("analyze", "give either RATINGS.csv or --study DIR [--db PATH] (not both, not neither).")
        )
    if args.report and Path(args.report).suffix.lower() not in (".md", ".html", ".htm"):
        raise InfactError(
            Problem(args.report, "unknown report format; name the file out.md or out.html.", key="--report")
        )
    _check_maximum(args)


def _study_and_store(args: argparse.Namespace):
    """The --study folder loaded (once) and its store resolved (--db, else INFACT_DB, secrets, db/<study id>/)."""
    from infact.study.loader import load_study

    study = load_study(study_folder(args))
    return study, store_target(args, study.id)


def _judges_usable(result: dict) -> int:
    """1 when a compared judge has no usable answer (its table would be empty), else 0."""
    from infact.results.judges.alignment_report import unusable_judges

    empty = unusable_judges(result.get("judge_coverage") or {})
    for name in empty:
        print(f"error: judge {name} has no usable answer (no label): nothing was compared", file=sys.stderr)
    return 1 if empty else 0
