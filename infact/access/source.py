"""Which address a connection comes from, for the per-source limits (sign-in throttle, consents).

A client can send any `X-Forwarded-For` it likes, so the header is believed only from a proxy we trust.
Mind that Streamlit's own server (uvicorn) already *replaces* the connection's address with the header's
last entry when the connection comes from loopback (uvicorn's `FORWARDED_ALLOW_IPS`, default
`127.0.0.1,::1`): `peer` below (st.context.ip_address) is then whatever a local client wrote.

* **With a proxy secret** (`INFACT_PROXY_SECRET` in each replica's environment, the value nginx sends in
  `X-Infact-Proxy-Secret`, deploy/nginx.conf): the header is believed only when the request carries that
  secret, wherever the connection comes from. A request with an `X-Forwarded-For` but without the secret
  (straight to a replica, past nginx: a local user, a port exposed by mistake) is counted under one
  shared source, `UNVERIFIED`, whatever address it claims: forging a new address each time gives a
  guesser no new allowance. nginx *sets* both headers itself, so what a client sends in them never
  reaches the app through it.
* **Without one** (the default): by the connection's address: loopback, where nginx on the same machine
  connects from, plus `INFACT_TRUSTED_PROXIES` (comma-separated addresses or networks, e.g. `10.0.0.0/8`,
  for a load balancer on another machine). A replica reachable on loopback without nginx can then still
  be sent a forged header (uvicorn believes it before INFACT sees the request); only the per-source limit
  is dodged, the server-wide limit shared by every replica through the store (shared_throttle.py) holds.

From an untrusted request the header is ignored and the peer's address is the source.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Mapping

TRUSTED_ENV = "INFACT_TRUSTED_PROXIES"
SECRET_ENV = "INFACT_PROXY_SECRET"
SECRET_HEADER = "X-Infact-Proxy-Secret"
LOOPBACK = ("127.0.0.0/8", "::1/128")
UNVERIFIED = "unverified-forwarded"  # the one source of every X-Forwarded-For sent without the secret


def trusted_networks(env: Mapping[str, str] | None = None) -> list:
    env = os.environ if env is None else env
    extra = [part.strip() for part in env.get(TRUSTED_ENV, "").split(",") if part.strip()]
    networks = []
    for text in (*LOOPBACK, *extra):
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            continue  # a typo trusts nothing more
    return networks


def _is_trusted(peer: str | None, networks: list) -> bool:
    try:
        address = ipaddress.ip_address((peer or "").strip())
    except ValueError:
        return False
    return any(address.version == n.version and address in n for n in networks)


def _secret_matches(proxy_secret: str | None, secret: str) -> bool:
    given = proxy_secret.strip() if isinstance(proxy_secret, str) else ""
    return hmac.compare_digest(given.encode(), secret.encode())


def source_address(
    forwarded_for: str | None,
    peer: str | None,
    env: Mapping[str, str] | None = None,
    proxy_secret: str | None = None,
) -> str:
    """The client's address: the last X-Forwarded-For entry when the request comes from a trusted proxy
    (it carries the proxy secret; without a secret configured, `peer` is trusted), else `peer`; with a
    secret configured, a header sent without it is the one source UNVERIFIED, even an empty one.

    `forwarded_for` is the header's values joined by commas (several headers are one list, RFC 9110
    section 5.3), or None when the request has none."""
    env = os.environ if env is None else env
    forwarded_for = forwarded_for if isinstance(forwarded_for, str) else None  # AppTest has no real connection
    peer = peer if isinstance(peer, str) else None
    entries = [part.strip() for part in forwarded_for.split(",")] if forwarded_for is not None else []
    last = next((entry for entry in reversed(entries) if entry), "")
    secret = env.get(SECRET_ENV, "").strip()
    if secret and forwarded_for is not None:  # the secret decides, not where the connection comes from
        # A header that is present but empty counts too: uvicorn may already have put a forged address in `peer`
        # (it reads the *last* of several headers, we would otherwise read the first, empty one).
        return last if last and _secret_matches(proxy_secret, secret) else UNVERIFIED
    if last and _is_trusted(peer, trusted_networks(env)):
        return last
    return peer or "local"


def _all_values(headers: Mapping[str, str], name: str) -> list[str] | None:
    """Every value of a header sent (st.context.headers keeps each one: `get_all`), None when it is absent."""
    get_all = getattr(headers, "get_all", None)
    values = list(get_all(name)) if callable(get_all) else []
    if not values and headers.get(name) is not None:
        values = [headers.get(name)]
    return [v if isinstance(v, str) else "" for v in values] or None


def request_source(headers: Mapping[str, str] | None, peer: str | None, env: Mapping[str, str] | None = None) -> str:
    """`source_address` from a request's headers (st.context.headers). Several X-Forwarded-For headers are
    read as one list; several proxy-secret headers are believed only when every one is the secret."""
    headers = headers or {}
    forwarded = _all_values(headers, "X-Forwarded-For")
    secrets = _all_values(headers, SECRET_HEADER) or []
    secret = secrets[0] if len(set(secrets)) == 1 else None
    return source_address(", ".join(forwarded) if forwarded is not None else None, peer, env, secret)
