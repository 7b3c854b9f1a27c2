"""Researcher sign-in: a password whose scrypt hash lives in secrets.

`python -m infact hash-password` prints the lines to paste into `.streamlit/secrets.toml`
(or, with `--write FILE`, sets them there):

    [researcher]
    password_hash = "scrypt$131072$8$1$<salt hex>$<hash hex>"

Only the hash is stored; comparison is constant-time (hmac.compare_digest).
New hashes use OWASP's scrypt parameters (N=2^17, r=8, p=1: 128 MiB and about half
a second per check); the hash string carries its parameters, so hashes made with
older ones (N=2^14) still verify, and `needs_rehash` says when to make a new one.
At most two checks run at once, so a burst of sign-in attempts cannot exhaust
memory. Repeated wrong passwords are slowed down by `infact.access.throttle`.
Optionally, Streamlit's OIDC login (`st.login`) with `allowed_emails` and a
provider-verified email (`oidc_refusal`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from collections.abc import Mapping
from typing import Any, NamedTuple

from infact.deployment import researcher

N, R, P = 2**17, 8, 1  # OWASP Password Storage Cheat Sheet (scrypt)
MAX_MEMORY, MAX_P = 2**30, 16  # refuse a mistyped hash that would need gigabytes
_CHECKS = threading.BoundedSemaphore(2)  # each check holds 128 * N * r bytes


class ScryptHash(NamedTuple):
    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes


def parse_hash(stored: str) -> ScryptHash:
    """The parameters of a stored hash; ValueError says what is wrong with it."""
    parts = str(stored).strip().split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        raise ValueError("expected scrypt$N$r$p$<salt hex>$<hash hex> as printed by `python -m infact hash-password`")
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, digest = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        raise ValueError("N, r and p must be integers and the salt and hash hexadecimal") from None
    if n < 2 or n & (n - 1) or r < 1 or 128 * n * r > MAX_MEMORY or not 1 <= p <= MAX_P:
        raise ValueError(f"unsupported scrypt parameters N={n}, r={r}, p={p}")
    if not salt or len(digest) < 16:
        raise ValueError("salt or hash is too short")
    return ScryptHash(n, r, p, salt, digest)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    with _CHECKS:
        return hashlib.scrypt(
            password.encode(), salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=128 * r * (n + p + 2) + 2**20
        )


def hash_password(password: str, salt: bytes | None = None, *, n: int = N) -> str:
    """A new hash string (`n` lower than N only for fast tests)."""
    salt = salt or os.urandom(16)
    digest = _scrypt(password, salt, n, R, P, 32)
    return f"scrypt${n}${R}${P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        h = parse_hash(stored)
    except ValueError:
        return False
    digest = _scrypt(password, h.salt, h.n, h.r, h.p, len(h.digest))
    return hmac.compare_digest(digest, h.digest)


def needs_rehash(stored: str) -> bool:
    """True when a stored hash is weaker than today's parameters."""
    h = parse_hash(stored)
    return h.n < N or h.r < R


def researcher_settings(secrets: Mapping | None) -> dict:
    """The [researcher] settings of secrets (defined in infact/deployment.py)."""
    return researcher(secrets)


def email_allowed(email: str | None, settings: Mapping) -> bool:
    allowed = [e.strip().lower() for e in settings.get("allowed_emails", [])]
    return bool(email) and email.strip().lower() in allowed


def oidc_refusal(claims: Mapping[str, Any], settings: Mapping) -> str | None:
    """Why an OIDC user may not sign in, or None if they may.

    The email must be on the allow-list and confirmed by the identity provider
    (`email_verified`): an unverified address proves nothing about its owner.
    """
    email = claims.get("email")
    if not email_allowed(email, settings):
        return "This account is not on the researcher allow-list."
    verified = claims.get("email_verified")
    if verified is not True and str(verified).lower() != "true":  # some providers send "true"
        return (
            f"Your identity provider has not verified the email address {email}; "
            "verify it with the provider, or ask for another account to be allowed."
        )
    return None
