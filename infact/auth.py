"""Researcher sign-in: a password whose scrypt hash lives in secrets.

`python -m infact hash-password` prints the line to paste into
`.streamlit/secrets.toml`:

    [researcher]
    password_hash = "scrypt$16384$8$1$<salt hex>$<hash hex>"

Only the hash is stored; comparison is constant-time (hmac.compare_digest).
Optionally, Streamlit's OIDC login (`st.login`) with `allowed_emails`.
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import hmac
import os
import sys
from typing import Mapping

N, R, P = 2**14, 8, 1


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P, dklen=32)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, expected = stored.split("$")
        if scheme != "scrypt":
            return False
        digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=len(bytes.fromhex(expected)))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(digest.hex(), expected)


def researcher_settings(secrets: Mapping | None) -> dict:
    """The [researcher] table of secrets (empty if absent)."""
    try:
        section = secrets.get("researcher") if secrets is not None else None
    except Exception:  # st.secrets raises when no secrets.toml exists at all
        section = None
    return dict(section or {})


def email_allowed(email: str | None, settings: Mapping) -> bool:
    allowed = [e.strip().lower() for e in settings.get("allowed_emails", [])]
    return bool(email) and email.strip().lower() in allowed


def run(args) -> int:
    password = args.password if args.password is not None else getpass.getpass("Researcher password: ")
    if len(password) < 10:
        print("error: use at least 10 characters", file=sys.stderr)
        return 2
    print("[researcher]")
    print(f'password_hash = "{hash_password(password)}"')
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hash-password", help="print the secrets.toml line for the researcher password")
    p.add_argument("--password", help="the password (default: ask without echo)")
    p.set_defaults(func=run)
