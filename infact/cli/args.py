"""Arguments shared by several commands, defined once: the study folder, the store,
and a help formatter that shows every option's default."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from infact.cli.commands import COMMANDS
from infact.errors import InfactError, Problem

if TYPE_CHECKING:
    from infact.storage import Storage

# The deployment settings and the store (TinyDB, orjson, SQLAlchemy) are imported when a command uses
# them: `infact --help` imports this module and nothing heavy (tests/cli/test_cli_startup.py).

STUDY_HELP = (
    "study folder holding study.toml (default: as the app: INFACT_STUDY, then [study] dir in "
    ".streamlit/secrets.toml, then data/demo)"
)
DB_HELP = (
    "store: a TinyDB directory or a database URL (default: INFACT_DB, then [connections.infact] in "
    ".streamlit/secrets.toml, then db/<study id>/)"
)


PROTOCOL_CHOICES = ("ratings", "pairwise", "best-worst", "acute", "live", "conversations")  # `new --protocol`


class HelpFormatter(argparse.HelpFormatter):
    """Appends `(default: X)` to an option's help unless the text already names its default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        unset = action.default is None or action.default is False or action.default in ([], argparse.SUPPRESS)
        if "default" in text or unset:
            return text
        return f"{text} (default: %(default)s)"


def command(
    sub: argparse._SubParsersAction, name: str, description: str, *, summary: str | None = None
) -> argparse.ArgumentParser:
    """A sub-command with a full description (in its --help) and a one-line summary (in the command list):
    a top-level command's summary is the one in `commands.COMMANDS`, a nested one (`import FORMAT`) passes it."""
    summary = summary if summary is not None else COMMANDS[name].summary
    return sub.add_parser(name, help=summary, description=description, formatter_class=HelpFormatter)


def module_doc(module: str) -> str:
    """A module's docstring read from its file, without importing it (nor what it imports): for a --help text."""
    import ast
    import importlib.util

    origin = importlib.util.find_spec(module).origin
    return ast.get_docstring(ast.parse(Path(origin).read_text(encoding="utf-8")), clean=False) or ""


def add_study(
    parser: argparse.ArgumentParser, *, positional: bool = False, required: bool = False, help: str = STUDY_HELP
) -> None:
    """`--study DIR` (the one way to name a study); `positional` also accepts `COMMAND DIR` as shorthand."""
    parser.add_argument("--study", metavar="DIR", required=required, help=help)
    if positional:
        parser.add_argument("study_arg", nargs="?", metavar="DIR", help="the study folder, same as --study DIR")


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH_OR_URL", help=DB_HELP)


def study_folder(args: argparse.Namespace) -> Path:
    given = {v for v in (getattr(args, "study", None), getattr(args, "study_arg", None)) if v}
    if len(given) > 1:
        folders = ", ".join(sorted(given))
        raise InfactError(Problem("--study", f"two different study folders given ({folders}); give one"))
    if given:
        return Path(given.pop())
    from infact import deployment

    return deployment.study_folder(secrets=deployment.load_secrets())[0]


def store_target(args: argparse.Namespace, study_id: str) -> str:
    from infact import deployment
    from infact.stores.config import check_store_path, resolve_store

    if getattr(args, "db", None):
        return check_store_path(args.db, "--db")
    return resolve_store(study_id, deployment.load_secrets())[0]


def open_store(args: argparse.Namespace, study_id: str) -> Storage:
    from infact.storage import open_storage

    return open_storage(store_target(args, study_id))


def refuse_set_aside_files(storage: Storage) -> None:
    """Stop when the store set unreadable files aside: an export or a copy without them would be silently incomplete."""
    report = getattr(storage, "problems", None)  # TinyDB stores list the damaged files they moved to quarantine/
    found = report() if callable(report) else []
    if found:
        raise InfactError(
            [
                Problem(
                    str(p.get("moved_to") or p.get("file")),
                    f"{p.get('reason', 'unreadable')}: its records are missing. Repair the file and "
                    "move it back into shards/, or delete it to go on without them",
                )
                for p in found
            ]
        )


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
