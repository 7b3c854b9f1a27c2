"""`new DIR [--protocol …] [--from FILE]`: a working study folder; the table options `import table` shares.

Only arguments and messages: the draft and its files are infact.study.starter's, the table reading
infact.importers.table's (the in-app builder calls the same functions).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from infact.cli.args import command

PROTOCOL_CHOICES = ("ratings", "pairwise", "best-worst", "acute", "live", "conversations")


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "new",
        "Write a new study folder that validates and runs at once: a commented study.toml for the protocol and "
        "sample situations (the protocol's demo), or your own dialogs imported from a table with --from "
        "(CSV, XLSX or JSONL; see `infact import table --help`). Files already in DIR are never replaced "
        "without --force (and then kept as NAME.bak-<time>).",
    )
    p.add_argument("dir", metavar="DIR", help="the study folder to write (created if missing)")
    p.add_argument(
        "--protocol",
        default="ratings",
        choices=PROTOCOL_CHOICES,
        help="what participants do (docs/protocols.md): ratings, pairwise, best-worst, acute (whole "
        "conversations side by side), live (chats with the systems), conversations (turn-by-turn annotation)",
    )
    p.add_argument("--from", dest="source", metavar="FILE", help="your dialogs: a table (CSV, XLSX, JSONL)")
    p.add_argument("--title", help="the study's title shown to participants (default: the protocol's)")
    p.add_argument("--force", action="store_true", help="replace files of DIR that the new study writes")
    add_table_options(p)
    p.set_defaults(func=run_new)


def add_table_options(p: argparse.ArgumentParser) -> None:
    """The column and label overrides of a table (detected when not given)."""
    g = p.add_argument_group("table columns (detected from their names when not given)")
    g.add_argument("--id", dest="id_column", metavar="COLUMN", help="the dialog id column")
    g.add_argument("--context", metavar="COLUMN", help="the column holding the dialog with speaker labels")
    g.add_argument("--turns", type=_names, metavar="COL,COL,…", help="one column per turn, in order")
    g.add_argument("--systems", type=_names, metavar="COL,COL,…", help="the systems' response columns")
    g.add_argument("--system-column", metavar="COLUMN", help="long form: the column naming the system")
    g.add_argument("--response-column", metavar="COLUMN", help="long form: the column with its response")
    g.add_argument("--ignore", type=_names, default=[], metavar="COL,COL,…", help="columns that are not systems")
    g.add_argument(
        "--user-label", action="append", metavar="LABEL", help="the user's speaker label, e.g. Seeker (repeatable)"
    )
    g.add_argument(
        "--bot-label", action="append", metavar="LABEL", help="the chatbot's speaker label, e.g. Agent (repeatable)"
    )
    g.add_argument("--sheet", help="XLSX: the sheet to read (default: the first)")


def _names(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {value!r}")
    return names


def table_options(args):
    from infact.importers.table import TableOptions

    return TableOptions(
        id=args.id_column,
        context=args.context,
        turns=args.turns,
        systems=args.systems,
        system=args.system_column,
        response=args.response_column,
        ignore=args.ignore,
        user_labels=args.user_label,
        bot_labels=args.bot_label,
        sheet=args.sheet,
    )


def read_dialogs(args):
    """The situations of `--from FILE` / `import table FILE`, its warnings printed; an error when none is usable."""
    from infact.errors import DatasetError, Problem
    from infact.importers.table import read_source

    read = read_source(args.source, table_options(args))
    for problem in read.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not read.situations:
        raise DatasetError(Problem(read.file, "no usable row: fix the rows above (each says how) and run again"))
    return read


def run_new(args) -> int:
    from infact.importers.common import study_id
    from infact.study.loader import load_study
    from infact.study.starter import draft_study, study_files, write_study_folder

    folder = Path(args.dir)
    read = read_dialogs(args) if args.source else None
    draft = draft_study(
        args.protocol,
        study_id=study_id(folder.resolve().name),
        title=args.title,
        situations=read.situations if read else None,
        source=Path(args.source).name if read else "",
    )
    written = write_study_folder(folder, study_files(draft), force=args.force)
    study = load_study(folder)  # what `validate` checks: a study `new` wrote always passes
    if read:
        print(f"read {read.file}: {len(read.situations)} situations from {read.rows} rows")
        for line in read.columns.describe():
            print(f"  {line}")
    print(f"wrote a {draft.protocol} study '{study.id}' to {folder}: {', '.join(p.name for p in written)}")
    for note in draft.notes:
        print(f"  {note}")
    print(
        f"next: edit {folder / 'study.toml'} (texts, id), check it with `infact validate {folder}`, and run it with "
        f"`INFACT_STUDY={folder} streamlit run streamlit_app.py`"
    )
    return 0
