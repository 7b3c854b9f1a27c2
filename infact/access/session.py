"""A researcher's sign-in that survives a reload: a signed, expiring token in a cookie.

Streamlit's session state dies with the browser tab's connection, so F5 on the
dashboard used to sign the researcher out. After sign-in the page stores
`token()` in a cookie (path /, SameSite=Strict, Secure on HTTPS); on a new
connection `valid()` checks it from `st.context.cookies`.

The token is `v2.<expiry, unix seconds>.<generation>.<HMAC-SHA256>`, keyed by a secret
derived from the researcher password's hash in secrets (or the OIDC cookie secret): it
cannot be made without the server's secrets, changing the password invalidates every
token, and it is never put in a URL (so a shared link signs nobody in).

*Sign out* must end the token on the server too: the page sets the cookie from JavaScript
(Streamlit cannot set one from the server), so it is not HttpOnly and a copy may survive.
The store keeps the deployment's **session generation**: one `signout` record per sign-out
under the researcher name `_researcher` (tables and exports skip `_…` names). A token
carries the generation it was issued in and is valid only while that is still the
current one, so a sign-out revokes every token issued before it, in every browser and in
every app process sharing the store.

When the store cannot record a sign-out (read-only disk, database down) the sign-out still
fails safe, within this process only (`LocalSignOuts`): every token issued before it is
refused here from then on, and the browser deletes its cookie. Another app process sharing
the store (a replica) accepts a kept copy until the token expires (at most `LIFETIME_SECONDS`)
or a sign-out is recorded; a restart of this process forgets it too (docs/deploying.md).
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

COOKIE = "infact_researcher"
LIFETIME_SECONDS = 8 * 3600  # a working day; then sign in again
RESEARCHER = "_researcher"  # the store's name for the researcher's own records (sign-outs)


class Records(Protocol):  # the part of infact.storage.Storage used here
    def records(
        self, *, study: str | None = None, participant: str | None = None, kind: str | None = None
    ) -> list[dict]: ...

    def append(self, record: dict) -> bool: ...


def signing_key(secrets: Mapping[str, Any]) -> bytes | None:
    """The server secret tokens are signed with; None when sign-in is not configured."""
    researcher = secrets.get("researcher") or {}
    auth = secrets.get("auth") or {}
    base = researcher.get("password_hash") or auth.get("cookie_secret")
    if not base:
        return None
    return hashlib.sha256(b"infact researcher session v1\0" + str(base).encode()).digest()


def _mac(key: bytes, expires: int, generation: int) -> str:
    return hmac.new(key, f"researcher:{expires}:{generation}".encode(), hashlib.sha256).hexdigest()


def token(key: bytes, now: float | None = None, lifetime: int = LIFETIME_SECONDS, *, generation: int = 0) -> str:
    """A token valid for `lifetime` seconds while the session generation stays `generation`."""
    expires = int((now if now is not None else time.time()) + lifetime)
    return f"v2.{expires}.{int(generation)}.{_mac(key, expires, int(generation))}"


def valid(value: str | None, key: bytes | None, now: float | None = None, *, generation: int = 0) -> bool:
    """True for an unexpired token signed with `key` in the current session `generation`."""
    if not value or key is None:
        return False
    try:
        version, expires_text, generation_text, mac = value.split(".")
        expires, issued_in = int(expires_text), int(generation_text)
    except ValueError:
        return False
    now = now if now is not None else time.time()
    if version != "v2" or issued_in != generation or not (now < expires <= now + LIFETIME_SECONDS):
        return False
    return hmac.compare_digest(mac, _mac(key, expires, issued_in))


def generation(storage: Records, study_id: str) -> int:
    """The current session generation: how many sign-outs the store holds for this study."""
    return len(storage.records(study=study_id, participant=RESEARCHER, kind="signout"))


def sign_out(storage: Records, study_id: str, at: datetime | None = None) -> int:
    """Revoke every token issued so far (a new generation); returns the new generation.
    Two sign-outs at once store one record (the same key): both end the old tokens."""
    new = generation(storage, study_id) + 1
    at = at or datetime.now(UTC)
    storage.append(
        {
            "key": f"{study_id}/researcher/signout/{new}",
            "study": study_id,
            "participant": RESEARCHER,
            "kind": "signout",
            "at": at.isoformat(),
            "preview": False,
        }
    )
    return generation(storage, study_id)


def issued_at(value: str | None) -> float | None:
    """When a token was issued (to the second): its expiry less `LIFETIME_SECONDS`; None if unreadable."""
    try:
        return int(str(value).split(".")[1]) - LIFETIME_SECONDS
    except (IndexError, ValueError):
        return None


class LocalSignOuts:
    """Sign-outs the store could not record, kept by this process: sign-ins (tokens, sessions)
    from before the latest one are refused here. Thread-safe: one object serves every session."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: float | None = None

    def record(self, at: float | None = None) -> None:
        with self._lock:
            at = time.time() if at is None else at
            self._latest = at if self._latest is None else max(self._latest, at)

    def ends(self, signed_in_at: float | None) -> bool:
        """True if a sign-in made at `signed_in_at` (unix seconds; None: unknown) was ended here."""
        with self._lock:
            latest = self._latest
        return latest is not None and (signed_in_at is None or signed_in_at <= latest)


LOCAL_SIGN_OUTS = LocalSignOuts()  # this process's; the store's generation is every process's


def cookie_script(value: str | None, max_age: int = LIFETIME_SECONDS) -> str:
    """JavaScript that sets (or, with None, deletes) the cookie in the browser."""
    if value is None:
        body = f"{COOKIE}=; path=/; max-age=0; SameSite=Strict"
    else:
        assert all(c.isalnum() or c == "." for c in value), "tokens are alphanumeric and dots"
        body = f"{COOKIE}={value}; path=/; max-age={int(max_age)}; SameSite=Strict"
    return "<script>document.cookie = " + repr(body) + " + (location.protocol === 'https:' ? '; Secure' : '');</script>"
