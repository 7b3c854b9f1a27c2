"""Which address a connection comes from, for the sign-in throttle's per-source limit.

A client can send any `X-Forwarded-For` it likes, so the header is believed only when the
connection itself comes from a proxy we trust: by default the loopback addresses, where nginx on
the same machine connects from (deploy/nginx.conf *replaces* the client's header with the address
it saw, so the one entry is nginx's own observation). `INFACT_TRUSTED_PROXIES` (comma-separated
addresses or networks, e.g. `10.0.0.0/8`) names other proxies, such as a load balancer on another
machine. From any other peer the header is ignored and the peer's address is the source.

What this cannot do: a replica reachable on loopback *without* nginx (a local user, a port
exposed by mistake) can still be sent a forged header. Then only the per-source limit is dodged;
the server-wide limit, shared by every replica through the store (shared_throttle.py), still holds.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping

TRUSTED_ENV = "INFACT_TRUSTED_PROXIES"
LOOPBACK = ("127.0.0.0/8", "::1/128")


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


def source_address(forwarded_for: str | None, peer: str | None, env: Mapping[str, str] | None = None) -> str:
    """The client's address: the last X-Forwarded-For entry when `peer` is a trusted proxy, else `peer`."""
    forwarded_for = forwarded_for if isinstance(forwarded_for, str) else None  # AppTest has no real connection
    peer = peer if isinstance(peer, str) else None
    if forwarded_for and _is_trusted(peer, trusted_networks(env)):
        last = forwarded_for.split(",")[-1].strip()
        if last:
            return last
    return peer or "local"
