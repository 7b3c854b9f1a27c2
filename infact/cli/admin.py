"""`hash-password` and `settings-doc`: setting up a deployment and its documentation."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from infact.cli.args import command

MIN_PASSWORD = 10


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "hash-password",
        "Hash the researcher password (scrypt). With --write FILE the [researcher] password_hash in that "
        "secrets.toml is set (the section is replaced, other settings are kept, so running it again is "
        "safe); without it the lines to paste are printed.",
    )
    p.add_argument(
        "--password", help="the password (default: ask without echo; a password given here stays in the shell history)"
    )
    p.add_argument(
        "--write",
        metavar="SECRETS.toml",
        type=Path,
        help="set password_hash in this file's [researcher] section, e.g. .streamlit/secrets.toml (default: print)",
    )
    p.set_defaults(func=run_hash_password)

    p = command(
        sub,
        "settings-doc",
        "The settings references are generated from the settings' single definitions: study.toml settings and "
        "deployment settings (environment and secrets) in docs/settings.md, the [platform] and [quality] "
        "tables in docs/quality.md, every exported table's columns in docs/data-model.md. A test fails when a "
        "document and the code disagree.",
    )
    p.add_argument(
        "--write", action="store_true", help="rewrite the generated blocks in docs/ in place (default: print them)"
    )
    p.set_defaults(func=run_settings_doc)


def run_hash_password(args) -> int:
    from infact.access.auth import hash_password
    from infact.deployment import PASSWORD_HASH, set_secrets_values

    password = args.password if args.password is not None else getpass.getpass("Researcher password: ")
    if len(password) < MIN_PASSWORD:
        print(f"error: use at least {MIN_PASSWORD} characters", file=sys.stderr)
        return 2
    section, key = PASSWORD_HASH.path
    if args.write:
        set_secrets_values(args.write, section, {key: hash_password(password)})
        print(f"set [{section}] {key} in {args.write}")
        return 0
    print(f"[{section}]")
    print(f'{key} = "{hash_password(password)}"')
    return 0


def run_settings_doc(args) -> int:
    from infact.results.kinds import DATA_MODEL_BLOCK
    from infact.study import settings_doc

    blocks = (*settings_doc.BLOCKS, DATA_MODEL_BLOCK)
    if args.write:
        for path in settings_doc.write_blocks(blocks=blocks):
            print(f"updated {path}")
        return 0
    for block in blocks:
        print(block.render())
        print()
    return 0
