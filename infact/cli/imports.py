"""`import redial | responses | infact-txt | infact-export | transcripts | conversations | crs-arena | annotated`:
real data into a study folder or tables.

The study folder is `--study DIR` here as everywhere (`--out` is kept as an alias for
the importers that create a study); each import writes to a staging folder and moves
its files into place only on success (importers/common.write_study, fileio.swap_in): all or nothing.
One `_add_FORMAT` function per format declares its options; FORMATS lists them. An importer is imported by its
`run_FORMAT` only (crs_arena and annotated bring pandas): `import --help` reads their docstrings from the files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from infact.cli.args import PROTOCOL_CHOICES, add_table_options, command, module_doc, table_options
from infact.importers.common import HUMAN_SYSTEM, SITUATIONS_FILE
from infact.study.dialogs import DIALOGS_FILE

NEW_STUDY_HELP = "study folder to create or update (its study.toml and other files are kept)"


def register(sub: argparse._SubParsersAction) -> None:
    imp = command(
        sub,
        "import",
        "Import real data: ReDial dialogs, a system's outputs, or the original INFACT files. "
        "Problems are printed as `warning: FILE:LINE: …`. Formats: docs/importing.md.",
    )
    formats = imp.add_subparsers(dest="format", required=True, metavar="FORMAT")
    for add in FORMATS:
        add(formats)


def _format(
    formats: argparse._SubParsersAction,
    name: str,
    importer: str,
    summary: str,
    file: tuple[str, str, str] | None,
    run,
    *,
    whole_doc: bool = False,
    out_or_study: bool = False,
) -> argparse.ArgumentParser:
    """`import NAME`: its --help is the second paragraph of its importer module's docstring (`whole_doc`: all after
    the first), read from the file; `file` is its positional argument (dest, metavar, help); `run` runs it;
    `out_or_study`: it writes into `--out DIR` or `--study DIR`."""
    doc = module_doc(f"infact.importers.{importer}").split("\n\n")
    p = command(formats, name, "\n\n".join(doc[1:]) if whole_doc else doc[1], summary=summary)
    if file is not None:
        dest, metavar, help_ = file
        p.add_argument(dest, metavar=metavar, help=help_)
    if out_or_study:
        where = p.add_mutually_exclusive_group(required=True)
        where.add_argument("--out", metavar="DIR", help="folder for the files only")
        where.add_argument("--study", metavar="DIR", help="a study folder: the files go into it")
    p.set_defaults(func=run)
    return p


def _new_study(p: argparse.ArgumentParser) -> None:
    """`--study DIR` (alias `--out`) for an importer that creates or updates a study folder."""
    p.add_argument("--study", "--out", dest="study", required=True, metavar="DIR", help=NEW_STUDY_HELP)


def _add_redial(formats: argparse._SubParsersAction) -> None:
    summary = "ReDial raw JSONL (one dialog per line) -> study situations"
    p = _format(
        formats, "redial", "redial", summary, ("file", "FILE.jsonl", "ReDial JSONL, e.g. test_data.jsonl"), run_redial
    )
    _new_study(p)
    p.add_argument(
        "--movies", metavar="CSV", help="movies_with_mentions.csv, for @ids missing from a dialog's movieMentions"
    )
    p.add_argument(
        "--system", default=HUMAN_SYSTEM, help="name of the ground-truth system (the recommender's actual reply)"
    )


def _add_responses(formats: argparse._SubParsersAction) -> None:
    what = "JSONL or CSV: {dialog_id, turn, response} or {dialog_id, context, response}"
    summary = "merge one system's outputs (JSONL/CSV) into a study"
    p = _format(formats, "responses", "responses", summary, ("file", "FILE", what), run_responses)
    p.add_argument(
        "--study", required=True, metavar="DIR", help="study folder (from `import redial` or `import infact-txt`)"
    )
    p.add_argument("--system", required=True, help="system name shown in results, e.g. KBRD")
    p.add_argument("--situations", default=SITUATIONS_FILE, help="situations file in the study")
    p.add_argument("--movies", metavar="CSV", help="movies_with_mentions.csv, to turn @ids in responses into titles")


def _add_infact_txt(formats: argparse._SubParsersAction) -> None:
    summary = "the original INFACT app's evaluation files -> study situations"
    p = _format(formats, "infact-txt", "infact_txt", summary, None, run_infact_txt)
    p.add_argument("--dialogs", required=True, metavar="FILE", help="dialogue_data.txt (USER:/CHAT-BOT: lines)")
    p.add_argument(
        "--system",
        action="append",
        type=system_file,
        default=[],
        metavar="NAME=FILE",
        help="a system's file, e.g. KBRD=KBRD.txt (repeat for each system)",
    )
    p.add_argument(
        "--ground-truth", metavar="NAME", help="also add the dialog's actual next CHAT-BOT turn as system NAME"
    )
    _new_study(p)


def _add_transcripts(formats: argparse._SubParsersAction) -> None:
    what = "transcripts.jsonl from `python -m infact export` (docs/live.md)"
    summary = "live-chat transcripts.jsonl -> situations (one system's answers)"
    p = _format(formats, "transcripts", "transcripts", summary, ("file", "FILE.jsonl", what), run_transcripts)
    _new_study(p)
    p.add_argument("--system", help="the system whose chats to import (required when the file holds several)")


def _add_conversations(formats: argparse._SubParsersAction) -> None:
    what = "{dialog_id, turns: [{role, text}], topic?} per line, or a live study's transcripts.jsonl"
    summary = "one system's whole conversations (JSONL) -> a dialog-level (ACUTE-style) study"
    p = _format(formats, "conversations", "conversations", summary, ("file", "FILE.jsonl", what), run_conversations)
    _new_study(p)
    p.add_argument("--system", required=True, help="system name shown in results, e.g. BlenderBot")
    p.add_argument("--dialogs", default=DIALOGS_FILE, help="dialogs file in the study")


def _add_crs_arena(formats: argparse._SubParsersAction) -> None:
    what = "CRSArena-Dial's crs_arena_dial_*.json, or its votes_*.csv"
    summary = "CRS Arena's dialogues JSON -> conversations/<system>.jsonl; its votes CSV -> pairwise.csv"
    file = ("file", "FILE", what)
    _format(formats, "crs-arena", "crs_arena", summary, file, run_crs_arena, whole_doc=True, out_or_study=True)


def _add_annotated(formats: argparse._SubParsersAction) -> None:
    what = "CRSArena-Eval's aggregated JSON or INFACT's annotations_aggregated.json"
    summary = "aggregated conversation annotations (CRSArena-Eval's JSON) -> annotations.csv"
    file = ("file", "FILE.json", what)
    _format(formats, "annotated", "annotated", summary, file, run_annotated, whole_doc=True, out_or_study=True)


def _add_infact_export(formats: argparse._SubParsersAction) -> None:
    p = command(
        formats,
        "infact-export",
        'Read the Firebase export of the original INFACT app ({"CRS_Study": {participant: {trials…, '
        '"Questionnaire": …}}}) into the long tables of docs/data-model.md plus INFACT\'s Excel sheets, '
        "ready for `python -m infact analyze`. See docs/migration.md.",
        summary="the original INFACT's Firebase export (CRS_Study) -> ratings tables and INFACT sheets",
    )
    p.add_argument("file", type=Path, metavar="FILE.json", help="the Firebase export of the original INFACT app")
    p.add_argument(
        "--systems",
        default="",
        help="KEY=NAME pairs mapping response keys to system names, e.g. Our=RB-CRS,Deep_crs=KGSF,Kbrd=KBRD "
        "(required when the export has responses)",
    )
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder for ratings.csv, participants.csv, questionnaire.csv, demographics.csv, infact_sheets.xlsx",
    )
    p.add_argument("--exclude", type=Path, metavar="FILE", help="file with participant ids to exclude, one per line")
    p.add_argument(
        "--exclude-incomplete", action="store_true", help="also exclude participants without a questionnaire"
    )
    p.add_argument(
        "--check-rule",
        type=Path,
        metavar="RULE.json",
        help='JSON rule {"dialog_id", "responses": {KEY: text}, "rated", "max_rating"} (default: INFACT\'s)',
    )
    p.add_argument(
        "--check-dialog-id",
        type=int,
        help="Dialog_ID of the attention-check trial (default: INFACT's, 6, or the --check-rule's)",
    )
    p.add_argument(
        "--check-max-rating",
        type=int,
        help="highest rating that passes the check (default: INFACT's, 2, or the --check-rule's)",
    )
    p.set_defaults(func=run_infact_export)


def _add_table(formats: argparse._SubParsersAction) -> None:
    summary = "your own dialogs and responses from a table (CSV, XLSX, JSONL) -> study situations"
    what = "a CSV, TSV, XLSX or JSONL table (or a situations.jsonl)"
    p = _format(formats, "table", "table", summary, ("source", "FILE", what), run_table, whole_doc=True)
    _new_study(p)
    p.add_argument("--situations", default=SITUATIONS_FILE, help="situations file in the study")
    p.add_argument(
        "--protocol",
        default="ratings",
        choices=PROTOCOL_CHOICES[:3],
        help="the protocol of the starter study.toml written when the folder has none",
    )
    p.add_argument("--force", action="store_true", help="replace the study's situations file (kept as .bak-<time>)")
    add_table_options(p)


def run_table(args) -> int:
    from infact.importers import table
    from infact.importers.common import study_id
    from infact.study.starter import checked_files, draft_study

    def starter(situations):
        draft = draft_study(args.protocol, study_id=study_id(Path(args.study).resolve().name), situations=situations)
        return {"study.toml": checked_files(draft)["study.toml"]}

    report = table.import_table(
        args.source,
        args.study,
        table_options(args),
        situations_file=args.situations,
        force=args.force,
        starter=starter,
    )
    report.print(f"imported {args.source}")
    return 0


FORMATS = (
    _add_table,
    _add_redial,
    _add_responses,
    _add_infact_txt,
    _add_transcripts,
    _add_conversations,
    _add_crs_arena,
    _add_annotated,
    _add_infact_export,
)  # the order of `import --help`


def run_crs_arena(args) -> int:
    from infact.importers import crs_arena

    report = crs_arena.import_crs_arena(args.file, args.out or args.study, study=bool(args.study))
    report.print(f"imported {args.file}")
    return 0


def run_annotated(args) -> int:
    from infact.importers import annotated

    annotated.import_annotated(args.file, args.out or args.study).print(f"imported {args.file}")
    return 0


def system_file(value: str) -> tuple[str, str]:
    """`NAME=FILE` of `--system`."""
    name, sep, path = value.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=FILE, e.g. KBRD=KBRD.txt, got {value!r}")
    return name.strip(), path.strip()


def run_redial(args) -> int:
    from infact.importers import redial

    redial.import_redial(args.file, args.study, args.movies, args.system).print(f"imported {args.file}")
    return 0


def run_transcripts(args) -> int:
    from infact.importers import transcripts

    transcripts.import_transcripts(args.file, args.study, args.system).print(f"imported {args.file}")
    return 0


def run_conversations(args) -> int:
    from infact.importers import conversations

    report = conversations.import_conversations(args.file, args.study, args.system, args.dialogs)
    report.print(f"imported {args.system} conversations from {args.file}")
    return 0


def run_responses(args) -> int:
    from infact.importers import responses

    report = responses.import_responses(args.study, args.system, args.file, args.situations, args.movies)
    report.print(f"imported {args.system} responses from {args.file}")
    return 0


def run_infact_txt(args) -> int:
    from infact.importers import infact_txt

    infact_txt.import_infact_txt(args.dialogs, args.system, args.study, args.ground_truth).print(
        f"imported {args.dialogs}"
    )
    return 0


def run_infact_export(args) -> int:
    from infact.importers import infact_export  # pandas and openpyxl: only for this import

    rule = infact_export.CheckRule.from_json(args.check_rule) if args.check_rule else infact_export.DEFAULT_RULE
    if args.check_dialog_id is not None or args.check_max_rating is not None:
        rule = infact_export.CheckRule(
            args.check_dialog_id if args.check_dialog_id is not None else rule.dialog_id,
            rule.responses,
            rule.rated,
            args.check_max_rating if args.check_max_rating is not None else rule.max_rating,
        )
    exclude = infact_export.read_exclude_list(args.exclude) if args.exclude else set()
    tables = infact_export.import_infact_export(
        args.file,
        infact_export.parse_systems(args.systems),
        exclude=exclude,
        check_rule=rule,
        exclude_incomplete=args.exclude_incomplete,
    )
    infact_export.write_tables(args.out, tables)
    infact_export.summary(args.out, tables).print(f"imported {args.file}")
    return 0
