"""`export`, `verify-codes`, `plan` and `datasheet`: results out of the store, how many participants to recruit,
and the study's Human Evaluation Datasheet (HEDS 3.0)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from infact.cli.args import add_db, add_study, command, open_store, refuse_set_aside_files, study_folder
from infact.deployment import REPO
from infact.errors import InfactError, OptionError, Problem
from infact.fileio import read_input_text
from infact.table_schema import csv_bytes


def register(sub: argparse._SubParsersAction) -> None:
    _add_export(sub)
    _add_verify_codes(sub)
    _add_plan(sub)
    register_datasheet(sub)


def _add_export(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "export",
        "Write every export (ratings.csv, ratings_wide.csv, participants.csv, questionnaire.csv, "
        "demographics.csv, flags.csv, records.json, infact_sheets.xlsx) into one folder, as a set: the files "
        "are written to a staging folder and swapped in only when all are written. Only files an export wrote "
        "there (listed in the folder's .infact-export.json) are replaced; a folder holding other files is "
        "refused unless --force.",
    )
    add_study(p)
    add_db(p)
    p.add_argument("--out", metavar="DIR", default=str(REPO / "exports"), help="output folder (default: exports/)")
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a folder holding files an export did not write: files with an export's name "
        "(ratings.csv, …) are replaced and listed; the others are left as they are",
    )
    p.add_argument("--include-withdrawn", action="store_true", help="also export participants who withdrew")
    p.add_argument(
        "--label-models",
        action="store_true",
        help="also fit Dawid-Skene and MACE to the ratings: soft_labels.csv and per-participant reliability in "
        "participants.csv (needs the optional crowd-kit: pip install 'infact[crowd]'; docs/llm.md)",
    )
    p.set_defaults(func=run_export)


def _add_verify_codes(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "verify-codes",
        "Read the codes workers submitted, print a CSV saying which match a stored completion of that "
        "worker, and exit 1 if any does not.",
    )
    p.add_argument(
        "codes",
        metavar="CODES",
        help="MTurk batch results CSV (WorkerId + a *code* column), or one `WORKERID,CODE` "
        "per line; bare codes (no worker ID) only for self-hosted studies",
    )
    add_study(p)
    add_db(p)
    p.set_defaults(func=run_verify_codes)


CONDITIONS_HELP = "between-subjects conditions (`[conditions.NAME]`); every figure is then per condition"


def _add_plan(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "plan",
        "How many participants to recruit: with INFACT's balanced assignment (every situation reaches k "
        "ratings), with the original INFACT's random sampling (every situation reaches k ratings with 95% "
        "probability), and optionally for a power target on one pairwise contrast. See docs/planner.md.",
    )
    p.add_argument("--situations", type=int, required=True, metavar="P", help="number of situations to rate")
    p.add_argument(
        "--per-participant",
        type=int,
        required=True,
        metavar="n",
        help="situations each participant sees, attention checks included",
    )
    p.add_argument(
        "--ratings-per-situation",
        type=int,
        required=True,
        metavar="k",
        help="ratings wanted per situation (per system)",
    )
    p.add_argument(
        "--attention-checks", type=int, default=1, metavar="a", help="attention-check situations per participant"
    )
    p.add_argument(
        "--exclusion-rate",
        type=float,
        default=0.0,
        metavar="e",
        help="expected share of excluded participants, e.g. 0.2",
    )
    p.add_argument(
        "--delta",
        type=float,
        help="smallest difference between two systems' mean ratings worth detecting, in scale points "
        "(turns on the power answer)",
    )
    p.add_argument("--sd", type=float, help="SD of a single rating (about 1 on a 5-point scale; needed with --delta)")
    p.add_argument(
        "--icc",
        type=float,
        help="share of rating variance that is the participant's own level, e.g. 0.2 (needed with --delta)",
    )
    p.add_argument(
        "--corr",
        type=float,
        default=0.0,
        help="correlation of two systems' ratings of one situation (0 is conservative)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level")
    p.add_argument("--power", type=float, default=0.8, help="power")
    p.add_argument("--pairs", type=int, default=1, help="number of pairwise contrasts; alpha is split over them")
    p.add_argument("--conditions", type=int, default=1, metavar="C", help=CONDITIONS_HELP)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run_plan)


def run_export(args) -> int:
    from infact.results.export import describe, write_exports  # pandas and openpyxl: only when exporting
    from infact.results.study_results import open_results
    from infact.study.loader import load_study  # here, not at the top: `--help` loads no pydantic

    study = load_study(study_folder(args))
    storage = open_store(args, study.id)
    try:
        # reads every file once: damaged ones are found before anything is written
        results = open_results(study, storage, include_withdrawn=args.include_withdrawn)
        refuse_set_aside_files(storage)
    finally:
        storage.close()
    replaced: list[str] = []
    try:
        written = write_exports(results, args.out, force=args.force, replaced=replaced, label_models=args.label_models)
    except OptionError as exc:  # the library names its option; the user gave this command's flag
        raise exc.named({"label_models": "export --label-models"}) from None
    for name in replaced:
        print(f"warning: {Path(args.out) / name}: replaced (--force): an export had not written it", file=sys.stderr)
    for path in written:
        print(f"{path}  — {describe(path.name)}")
    return 0


def run_verify_codes(args) -> int:
    from infact.participation.codes import read_submissions, verify_codes
    from infact.results.study_results import open_results
    from infact.study.loader import load_study  # here, not at the top: `--help` loads no pydantic

    study = load_study(study_folder(args))
    try:
        codes = read_submissions(read_input_text(args.codes))
    except InfactError as exc:
        raise InfactError(
            [
                Problem(
                    p.file,
                    f"{p.message} (the codes file: one `WORKERID,CODE` or bare code per line, "
                    "or MTurk's batch results CSV)",
                )
                for p in exc.problems
            ]
        ) from None
    storage = open_store(args, study.id)
    try:
        participants = open_results(study, storage, include_withdrawn=True).tables.participants
    finally:
        storage.close()
    result = verify_codes(codes, participants)
    # the submitted codes are what workers typed: written as text that never runs in a spreadsheet (docs/exports.md)
    print(csv_bytes(result).decode("utf-8"), end="")
    unmatched = int((~result["matched"]).sum())
    print(
        f"{len(result) - unmatched} of {len(result)} codes match a stored completion; {unmatched} do not",
        file=sys.stderr,
    )
    return 0 if unmatched == 0 else 1


def run_plan(args) -> int:
    from infact.results.ratings.planner import format_plan, plan  # scipy and statsmodels: only when planning

    result = plan(
        args.situations,
        args.per_participant,
        args.ratings_per_situation,
        args.attention_checks,
        args.exclusion_rate,
        delta=args.delta,
        sd=args.sd,
        icc=args.icc,
        corr=args.corr,
        alpha=args.alpha,
        power=args.power,
        pairs=args.pairs,
        conditions=args.conditions,
    )
    print(json.dumps(result, indent=2) if args.json else format_plan(result))
    return 0


# --------------------------------------------------------------------------- datasheet


def register_datasheet(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "datasheet",
        "Write the Human Evaluation Datasheet (HEDS 3.0: resources, evaluated systems, sample, evaluators, "
        "design, quality criteria, ethics) filled from study.toml and the collected answers, as "
        "datasheet.json and datasheet.md. Fields the study cannot fill are listed as missing. "
        "See docs/analysis.md.",
    )
    add_study(p, required=True)
    add_db(p)
    p.add_argument("--out", metavar="DIR", required=True, help="folder for datasheet.json and datasheet.md")
    p.add_argument(
        "--include-bots",
        action="store_true",
        help="count the bot participants (`infact bots`) as evaluators; left out by default",
    )
    p.set_defaults(func=run_datasheet)


def _datasheet_results(args: argparse.Namespace):
    from infact.results.study_results import open_results
    from infact.study.loader import load_study

    study = load_study(study_folder(args))
    storage = open_store(args, study.id)
    try:
        return open_results(study, storage, include_bots=getattr(args, "include_bots", False))
    finally:
        storage.close()


def run_datasheet(args: argparse.Namespace) -> int:
    from infact.fileio import atomic_write_text
    from infact.results.reports.datasheet import datasheet, render_markdown

    results = _datasheet_results(args)
    sheet = datasheet(results)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "datasheet.json", json.dumps(sheet, indent=2, ensure_ascii=False) + "\n")
    atomic_write_text(out / "datasheet.md", render_markdown(sheet))
    print(f"{out / 'datasheet.json'}  — HEDS {sheet['heds_version']}, {len(sheet['missing'])} field(s) missing")
    print(f"{out / 'datasheet.md'}")
    if results.bots and not results.include_bots:
        print(f"{len(results.bots)} bot participant(s) (`infact bots`) left out; --include-bots counts them")
    return 0
