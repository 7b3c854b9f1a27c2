"""`infact …` (or `python -m infact …`): a thin command line over the library.

Each command group is a module of this package with `register(subparsers)`, adding
its sub-commands with `set_defaults(func=run)`; `run(args) -> int`. The commands and
their summaries are listed in `commands.COMMANDS`; only the module of the command
being run is imported, so `infact --help` starts in a few tens of milliseconds.
argparse is used only in this package. Domain errors (InfactError) and file-system
errors become `error: file[:line]: message` lines on stderr and exit status 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable
from pathlib import Path

from infact.cli.args import HelpFormatter
from infact.cli.commands import COMMANDS
from infact.errors import InfactError, Problem


def prog() -> str:
    """The name the user typed: `infact` (the installed command) or `python -m infact`."""
    return "infact" if Path(sys.argv[0]).name == "infact" else "python -m infact"


def build_parser(complete: Iterable[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    """A parser whose `complete` commands (by default all) have their arguments; the others are a name and a summary."""
    name = prog()
    parser = argparse.ArgumentParser(
        prog=name,
        formatter_class=HelpFormatter,
        description="INFACT: human evaluation studies of conversational recommender systems. "
        f"Run `{name} COMMAND --help` for a command's options.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in dict.fromkeys(COMMANDS[c].module for c in complete):
        importlib.import_module(f"infact.cli.{module}").register(sub)
    for cmd, (_, summary) in COMMANDS.items():  # the rest of the command list, without importing their modules
        if cmd not in sub.choices:
            sub.add_parser(cmd, help=summary, add_help=False)
    return parser


def command_of(argv: list[str]) -> str | None:
    """The command word: the first argument that is not an option (the top level has only -h)."""
    return next((a for a in argv if not a.startswith("-")), None)


def problems_of(exc: BaseException) -> list[Problem]:
    """The messages for an error a user can cause; anything else is a bug and keeps its traceback."""
    if isinstance(exc, InfactError):
        return exc.problems
    if isinstance(exc, OSError):
        where = exc.filename or "file system"
        return [Problem(str(where), f"{exc.strerror or exc}: check the path, the permissions and the free disk space")]
    raise exc


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_of(argv)
    args = build_parser([command] if command in COMMANDS else []).parse_args(argv)
    from infact import kinds  # after parsing: `--help` stays quick

    kinds.load_all()  # the built-in kinds (infact/kinds/): every command that reads or runs a study needs them
    try:
        return int(args.func(args) or 0)
    except (InfactError, OSError) as exc:
        for problem in problems_of(exc):
            print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
