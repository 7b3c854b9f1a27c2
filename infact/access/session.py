"""A researcher's sign-in that survives a reload: a signed, expiring token in a cookie.

Streamlit's session state dies with the browser tab's connection, so F5 on the
dashboard used to sign the researcher out. After sign-in the page stores
`token()` in a cookie (path /, SameSite=Strict, Secure on HTTPS); on a new
connection `valid()` checks it from `st.context.cookies`.

The token is `v1.<expiry, unix seconds>.<HMAC-SHA256>`, keyed by a secret derived
from the researcher password's hash in secrets (or the OIDC cookie secret): it
cannot be made without the server's secrets, changing the password invalidates
every token, and it is never put in a URL (so a shared link signs nobody in).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Any, Mapping

COOKIE = "infact_researcher"
LIFETIME_SECONDS = 8 * 3600  # a working day; then sign in again


def signing_key(secrets: Mapping[str, Any]) -> bytes | None:
    """The server secret tokens are signed with; None when sign-in is not configured."""
    researcher = secrets.get("researcher") or {}
    auth = secrets.get("auth") or {}
    base = researcher.get("password_hash") or auth.get("cookie_secret")
    if not base:
        return None
    return hashlib.sha256(b"infact researcher session v1\0" + str(base).encode()).digest()


def _mac(key: bytes, expires: int) -> str:
    return hmac.new(key, f"researcher:{expires}".encode(), hashlib.sha256).hexdigest()


def token(key: bytes, now: float | None = None, lifetime: int = LIFETIME_SECONDS) -> str:
    expires = int((now if now is not None else time.time()) + lifetime)
    return f"v1.{expires}.{_mac(key, expires)}"


def valid(value: str | None, key: bytes | None, now: float | None = None) -> bool:
    """True for an unexpired token signed with `key`."""
    if not value or key is None:
        return False
    try:
        version, expires_text, mac = value.split(".")
        expires = int(expires_text)
    except ValueError:
        return False
    now = now if now is not None else time.time()
    if version != "v1" or not (now < expires <= now + LIFETIME_SECONDS):
        return False
    return hmac.compare_digest(mac, _mac(key, expires))


def cookie_script(value: str | None, max_age: int = LIFETIME_SECONDS) -> str:
    """JavaScript that sets (or, with None, deletes) the cookie in the browser."""
    if value is None:
        body = f"{COOKIE}=; path=/; max-age=0; SameSite=Strict"
    else:
        assert all(c.isalnum() or c == "." for c in value), "tokens are alphanumeric and dots"
        body = f"{COOKIE}={value}; path=/; max-age={int(max_age)}; SameSite=Strict"
    return ("<script>document.cookie = " + repr(body)
            + " + (location.protocol === 'https:' ? '; Secure' : '');</script>")
