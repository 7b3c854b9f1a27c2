"""Reaching a system under test: over HTTP or in process, with every failure typed.

`connect(name, settings)` gives an object with `reply(request) -> Reply` that
raises only `SystemFailure` subclasses (contract.py). An `endpoint` system is an
OpenAI-compatible LLM called through infact.llm (llm_chat.py). The HTTP client uses the
standard library: one short POST per turn needs no extra dependency, and
`urllib` distinguishes refused connections, timeouts and HTTP statuses.
"""

from __future__ import annotations

import importlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from infact.chat.contract import (
    Reply,
    SystemBadReply,
    SystemCrashed,
    SystemHTTPError,
    SystemTimeout,
    SystemUnreachable,
    parse_reply,
)
from infact.chat.llm_chat import LLMSystem
from infact.llm.client import open_client
from infact.study.endpoints import Endpoint, endpoints_from_secrets, merged
from infact.study.live_config import LiveSystem, live_version

MAX_BODY = 1_000_000  # bytes read from a system's answer


class SystemClient(Protocol):
    name: str

    def reply(self, request: dict) -> Reply: ...


class HttpSystem:
    def __init__(self, name: str, url: str, timeout_s: float):
        self.name, self.url, self.timeout_s = name, url, timeout_s

    def reply(self, request: dict) -> Reply:
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        start = time.perf_counter()
        raw = self._post(req)
        latency = (time.perf_counter() - start) * 1000
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SystemBadReply(self.name, f"the answer is not JSON ({exc}); first bytes: {raw[:80]!r}") from None
        return parse_reply(self.name, payload, latency)

    def _post(self, req: urllib.request.Request) -> bytes:
        """The whole answer within `timeout_s`, so the participant hears of a timeout on time.

        urllib's timeout holds for each socket operation: a system that sends its headers at once
        and then its answer slowly would keep the participant waiting far longer. So the request
        runs in a worker thread that the caller waits for at most `timeout_s`; the worker itself
        gives up reading at the deadline, so it ends soon after (one socket operation at most)."""
        deadline = time.monotonic() + self.timeout_s
        done, box = threading.Event(), {}

        def work() -> None:
            try:
                box["raw"] = self._read(req, deadline)
            except BaseException as exc:  # raised again in the caller's thread
                box["error"] = exc
            done.set()

        threading.Thread(target=work, daemon=True, name=f"infact-http-{self.name}").start()
        if not done.wait(self.timeout_s):
            raise SystemTimeout(self.name, f"no whole answer from {self.url} within {self.timeout_s:g} s")
        if "error" in box:
            raise box["error"]
        return box["raw"]

    def _read(self, req: urllib.request.Request, deadline: float) -> bytes:
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                chunks, size = [], 0
                while size < MAX_BODY and time.monotonic() < deadline:
                    chunk = resp.read1(min(65536, MAX_BODY - size))
                    if not chunk:
                        return b"".join(chunks)
                    chunks.append(chunk)
                    size += len(chunk)
                if size >= MAX_BODY:
                    return b"".join(chunks)
                raise TimeoutError
        except urllib.error.HTTPError as exc:
            snippet = exc.read(200).decode("utf-8", "replace") if exc.fp else ""
            raise SystemHTTPError(self.name, f"HTTP {exc.code} from {self.url}: {snippet}".strip(), exc.code) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                raise SystemTimeout(self.name, f"no answer from {self.url} within {self.timeout_s:g} s") from None
            raise SystemUnreachable(self.name, f"cannot reach {self.url}: {exc.reason}") from None
        except TimeoutError:
            raise SystemTimeout(self.name, f"no answer from {self.url} within {self.timeout_s:g} s") from None
        except (ConnectionError, OSError) as exc:  # reset mid-answer, broken pipe, …
            raise SystemUnreachable(self.name, f"connection to {self.url} failed: {exc}") from None


class CallableSystem:
    """A system loaded in the app's process: `function(request: dict) -> dict | str`.

    Each call runs in its own worker thread and the caller waits at most `timeout_s`, so
    the participant gets the timeout message on time. Python cannot stop a thread safely:
    a call that overruns keeps running in the background until it returns, and its answer
    is dropped. At most `MAX_OVERDUE` such calls per system are left running; beyond
    that, new calls fail at once as timeouts instead of piling up threads.
    """

    MAX_OVERDUE = 8

    def __init__(self, name: str, func: Callable[[dict], Any], timeout_s: float):
        self.name, self.func, self.timeout_s = name, func, timeout_s
        self._lock = threading.Lock()
        self.overdue = 0  # calls that overran and are still running

    def reply(self, request: dict) -> Reply:
        with self._lock:
            if self.overdue >= self.MAX_OVERDUE:
                raise SystemTimeout(
                    self.name,
                    f"{self.overdue} earlier calls overran timeout_s = {self.timeout_s:g} and are still running",
                )
        call = _Call(self)
        threading.Thread(target=call.run, args=(request,), daemon=True, name=f"infact-system-{self.name}").start()
        if not call.done.wait(self.timeout_s) and call.abandon():
            raise SystemTimeout(
                self.name,
                f"no answer within timeout_s = {self.timeout_s:g} s "
                "(the call goes on in the background; its answer will be dropped)",
            )
        if call.error is not None:  # the researcher's model code: any failure is the system's
            raise SystemCrashed(self.name, f"{type(call.error).__name__}: {call.error}") from call.error
        return parse_reply(self.name, call.payload, call.latency_ms)


class _Call:
    """One call of a CallableSystem in its worker thread."""

    def __init__(self, system: CallableSystem):
        self.system = system
        self.done = threading.Event()
        self.payload: Any = None
        self.error: BaseException | None = None
        self.latency_ms = 0.0
        self.abandoned = False

    def run(self, request: dict) -> None:
        start = time.perf_counter()
        try:
            self.payload = self.system.func(request)
        except BaseException as exc:
            self.error = exc
        self.latency_ms = (time.perf_counter() - start) * 1000
        with self.system._lock:
            self.done.set()
            if self.abandoned:
                self.system.overdue -= 1

    def abandon(self) -> bool:
        """The caller gives up: True unless the call finished in the meantime."""
        with self.system._lock:
            if self.done.is_set():
                return False
            self.abandoned = True
            self.system.overdue += 1
            return True


def load_callable(spec: str) -> Callable[[dict], Any]:
    """'package.module:function' → the function; ImportError/AttributeError with the spec named."""
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportError(
            f'callable = "{spec}": cannot import module {module_name!r} ({exc}); '
            "check the name and that it is on the app's Python path"
        ) from exc
    func = getattr(module, attr, None)
    if not callable(func):
        raise AttributeError(f'callable = "{spec}": module {module_name!r} has no function {attr!r}')
    return func


def connect(
    name: str, settings: LiveSystem, endpoints: Mapping[str, Endpoint] | None = None, secrets: Mapping | None = None
) -> SystemClient:
    """The client of one system, with its `version` (live_config.live_version: stamped on its chats for the
    ledger); an endpoint system's key is read now (ConfigError naming it when unset)."""
    every = merged(endpoints or {}, endpoints_from_secrets(secrets)) if settings.endpoint else {}
    if settings.url:
        client = HttpSystem(name, settings.url, settings.timeout_s)
    elif settings.endpoint:
        llm = open_client(settings.endpoint, every, secrets=secrets, label=name)
        client = LLMSystem(
            name, llm, system_prompt=settings.system_prompt, sampling=settings.sampling, timeout_s=settings.timeout_s
        )
    else:
        client = CallableSystem(name, load_callable(settings.callable or ""), settings.timeout_s)
    client.version = live_version(settings, every)
    return client


def connect_all(
    systems: dict[str, LiveSystem], endpoints: Mapping[str, Endpoint] | None = None, secrets: Mapping | None = None
) -> dict[str, SystemClient]:
    return {name: connect(name, s, endpoints, secrets) for name, s in systems.items()}
