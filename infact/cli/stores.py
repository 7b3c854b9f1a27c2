"""`migrate`: copy records between stores, then verify the copy."""

from __future__ import annotations

import argparse

from infact.cli.args import command, refuse_set_aside_files
from infact.stores.config import URL, check_store_path


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "migrate",
        "Copy records between stores and verify the counts per kind. Safe to re-run: records already in the "
        "target are skipped. PATH_OR_URL: a TinyDB store directory, a postgresql:// URL, or a secrets.toml "
        "whose [connections.infact] url names the database (keeps the password out of shell history).",
    )
    p.add_argument("--from", dest="source", required=True, metavar="PATH_OR_URL", help="store to copy from")
    p.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="PATH_OR_URL",
        help="store to copy into (a directory is created if missing)",
    )
    p.add_argument(
        "--study-id", default=None, metavar="ID", help="copy only the records of this study id (default: every record)"
    )
    p.set_defaults(func=run)


def label(spec: str) -> str:
    """A store as printed: database URLs without their password."""
    if URL.match(spec):
        from infact.stores.sql.store import mask_url

        return mask_url(spec)
    return spec


def run(args) -> int:
    for spec, option in ((args.source, "--from"), (args.target, "--to")):
        if not str(spec).strip().endswith(".toml"):
            check_store_path(spec, option)
    # here, not at the top: `migrate --help` loads no store
    from infact.migrate import migrate
    from infact.storage import open_storage

    result = migrate(args.source, args.target, study=args.study_id)
    if not args.source.strip().endswith(".toml") and not URL.match(args.source.strip()):
        source = open_storage(args.source)  # files it could not read were set aside while copying: say so
        try:
            refuse_set_aside_files(source)
        finally:
            source.close()
    scope = f"study {result['study']}" if result["study"] else "all studies"
    print(
        f"migrated {scope}: {result['source_records']} records from {label(args.source)} to {label(args.target)} "
        f"({result['copied']} copied, {result['already_present']} already there)"
    )
    print(f"  {'kind':<14}{'source':>8}{'target':>8}")
    for kind, n in result["per_kind"].items():
        print(f"  {kind:<14}{n['source']:>8}{n['target']:>8}")
    print("verified: every source record is in the target, unchanged")
    return 0
