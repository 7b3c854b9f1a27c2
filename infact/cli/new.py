"""`new DIR [--protocol …] [--from FILE]`: a working study folder; the table options `import table` shares.

Only arguments and messages: the draft and its files are infact.study.starter's, the table reading
infact.importers.table's (the in-app builder calls the same functions).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from infact.cli.args import PROTOCOL_CHOICES, add_study, add_table_options, command, table_options


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "new",
        "Write a new study folder that validates and runs at once: a commented study.toml for the protocol and "
        "sample situations (the protocol's demo), or your own dialogs imported from a table with --from "
        "(CSV, XLSX or JSONL; see `infact import table --help`). Files already in DIR are never replaced "
        "without --force (and then kept as NAME.bak-<time>).",
    )
    add_study(p, positional=True, help="the study folder to write (created if missing)")
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


def _folder(args) -> Path:
    from infact.cli.args import study_folder
    from infact.errors import InfactError, Problem

    if not (args.study or args.study_arg):
        raise InfactError(Problem("new", "give the folder to write, e.g. `infact new my-study`"))
    return study_folder(args)


def run_new(args) -> int:
    from infact.importers.common import study_id
    from infact.study.loader import load_study
    from infact.study.starter import draft_study, study_files, write_study_folder

    folder = _folder(args)
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
