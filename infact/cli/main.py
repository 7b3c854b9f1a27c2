"""`python -m infact …`: a thin command line over the library.

Each feature module exposes `register(subparsers)` adding its own sub-command
with `set_defaults(func=run)`; `run(args) -> int`. Domain errors (InfactError)
become `file:line: message` lines on stderr and exit status 2 — no tracebacks.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from infact.errors import InfactError

# Top-level commands: module path relative to the package.
COMMAND_MODULES = [
    "infact.cli.commands",            # validate, bots, export, migrate
    "infact.cli.analyze",        # analyze
    "infact.results.planner",             # plan
    "infact.stores.migrate",             # migrate
    "infact.auth",                # hash-password
    "infact.study.settings_doc",         # settings-doc
]
# Sub-commands of `python -m infact import …`.
IMPORT_MODULES = [
    "infact.importers.redial",
    "infact.importers.responses",
    "infact.importers.infact_txt",
    "infact.importers.infact_export",
]


def _load(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:  # feature not built yet: leave its command out
        if exc.name == name:
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m infact", description="INFACT: human evaluation studies of conversational recommender systems.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    imp = sub.add_parser("import", help="import a dataset or system outputs into a study folder")
    imp_sub = imp.add_subparsers(dest="format", required=True, metavar="FORMAT")
    for name in IMPORT_MODULES:
        mod = _load(name)
        if mod is not None:
            mod.register(imp_sub)
    for name in COMMAND_MODULES:
        mod = _load(name)
        if mod is not None:
            mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InfactError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
