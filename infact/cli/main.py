"""`python -m infact …`: a thin command line over the library.

Each command group is a module of this package with `register(subparsers)`, adding
its sub-commands with `set_defaults(func=run)`; `run(args) -> int`. argparse is used
only in this package. Domain errors (InfactError) and file-system errors become
`error: file[:line]: message` lines on stderr and exit status 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from infact.cli import admin, analyze, chat, imports, llm, results, stores, study
from infact.cli.args import HelpFormatter
from infact.errors import InfactError, Problem

COMMAND_GROUPS = (study, imports, results, analyze, stores, admin, chat, llm)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m infact", formatter_class=HelpFormatter,
        description="INFACT: human evaluation studies of conversational recommender systems. "
                    "Run `python -m infact COMMAND --help` for a command's options.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(sub)
    return parser


def problems_of(exc: BaseException) -> list[Problem]:
    """The messages for an error a user can cause; anything else is a bug and keeps its traceback."""
    if isinstance(exc, InfactError):
        return exc.problems
    if isinstance(exc, OSError):
        where = exc.filename or "file system"
        return [Problem(str(where), f"{exc.strerror or exc}: check the path, the permissions and the free disk space")]
    raise exc


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (InfactError, OSError) as exc:
        for problem in problems_of(exc):
            print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
