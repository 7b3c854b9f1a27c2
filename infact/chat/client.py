"""Reaching a system under test: over HTTP or in process, with every failure typed.

`connect(name, settings)` gives an object with `reply(request) -> Reply` that
raises only `SystemFailure` subclasses (contract.py). The HTTP client uses the
standard library: one short POST per turn needs no extra dependency, and
`urllib` distinguishes refused connections, timeouts and HTTP statuses.
"""

from __future__ import annotations

import importlib
import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Protocol

from infact.chat.config import LiveSystem
from infact.chat.contract import (Reply, SystemBadReply, SystemCrashed, SystemHTTPError, SystemTimeout,
                                  SystemUnreachable, parse_reply)

MAX_BODY = 1_000_000   # bytes read from a system's answer


class SystemClient(Protocol):
    name: str

    def reply(self, request: dict) -> Reply: ...


class HttpSystem:
    def __init__(self, name: str, url: str, timeout_s: float):
        self.name, self.url, self.timeout_s = name, url, timeout_s

    def reply(self, request: dict) -> Reply:
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(self.url, data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        start = time.perf_counter()
        raw = self._post(req)
        latency = (time.perf_counter() - start) * 1000
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SystemBadReply(self.name, f"the answer is not JSON ({exc}); first bytes: {raw[:80]!r}") from None
        return parse_reply(self.name, payload, latency)

    def _post(self, req: urllib.request.Request) -> bytes:
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                return resp.read(MAX_BODY)
        except urllib.error.HTTPError as exc:
            snippet = exc.read(200).decode("utf-8", "replace") if exc.fp else ""
            raise SystemHTTPError(self.name, f"HTTP {exc.code} from {self.url}: {snippet}".strip(), exc.code) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                raise SystemTimeout(self.name, f"no answer from {self.url} within {self.timeout_s:g} s") from None
            raise SystemUnreachable(self.name, f"cannot reach {self.url}: {exc.reason}") from None
        except (TimeoutError, socket.timeout):
            raise SystemTimeout(self.name, f"no answer from {self.url} within {self.timeout_s:g} s") from None
        except (ConnectionError, OSError) as exc:   # reset mid-answer, broken pipe, …
            raise SystemUnreachable(self.name, f"connection to {self.url} failed: {exc}") from None


class CallableSystem:
    """A system loaded in the app's process: `function(request: dict) -> dict | str`."""

    def __init__(self, name: str, func: Callable[[dict], Any], timeout_s: float):
        self.name, self.func, self.timeout_s = name, func, timeout_s

    def reply(self, request: dict) -> Reply:
        start = time.perf_counter()
        try:
            payload = self.func(request)
        except Exception as exc:  # the researcher's model code: any failure is the system's
            raise SystemCrashed(self.name, f"{type(exc).__name__}: {exc}") from exc
        latency = (time.perf_counter() - start) * 1000
        # An in-process call cannot be interrupted safely; a slow one is reported, not cut.
        if latency > self.timeout_s * 1000:
            raise SystemTimeout(self.name, f"answered after {latency / 1000:.1f} s, beyond timeout_s = {self.timeout_s:g}")
        return parse_reply(self.name, payload, latency)


def load_callable(spec: str) -> Callable[[dict], Any]:
    """'package.module:function' → the function; ImportError/AttributeError with the spec named."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportError(f"callable = \"{spec}\": cannot import module {module_name!r} ({exc}); "
                          "check the name and that it is on the app's Python path") from exc
    func = getattr(module, attr, None)
    if not callable(func):
        raise AttributeError(f"callable = \"{spec}\": module {module_name!r} has no function {attr!r}")
    return func


def connect(name: str, settings: LiveSystem) -> SystemClient:
    if settings.url:
        return HttpSystem(name, settings.url, settings.timeout_s)
    return CallableSystem(name, load_callable(settings.callable or ""), settings.timeout_s)


def connect_all(systems: dict[str, LiveSystem]) -> dict[str, SystemClient]:
    return {name: connect(name, s) for name, s in systems.items()}
