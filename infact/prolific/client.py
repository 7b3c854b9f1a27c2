"""A small client for Prolific's public API (docs.prolific.com, API reference), over httpx (openai's own).

Prolific keeps no Python SDK, so this module is the one place that speaks HTTP to it. Every failure
becomes a typed `ProlificError` whose text never holds the token: the token is sent only in the
`Authorization: Token …` header and scrubbed from anything Prolific echoes back.

Retries: 429 (with its Retry-After), 5xx and timeouts are retried with exponential backoff, then
raise `Unavailable`. A call that is not safe to repeat (`safe=False`: the bulk bonus pay call, which
pays again every time it is received) is retried only when the request surely never reached
Prolific (429, or no connection made); a timeout or 5xx there raises `Unavailable` with
`maybe_done=True` instead, and the caller must find out what happened before trying again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx2 as httpx  # openai's own HTTP stack (httpx's successor), installed with it

from infact.errors import InfactError, Problem

API = "Prolific API"
DEFAULT_BASE_URL = "https://api.prolific.com"


class ProlificError(InfactError):
    """Any failure talking to Prolific; `status` is the HTTP status, if there was an answer."""

    status: int | None = None

    def __init__(self, message: str, *, status: int | None = None, key: str | None = None):
        self.status = status
        super().__init__(Problem(API, message, key=key))


class NoToken(ProlificError):
    """No API token in the environment or the secrets."""


class AuthError(ProlificError):
    """401 (the token is wrong) or 403 (it lacks the rights for this call)."""


class NotFound(ProlificError):
    """404: an unknown study, submission or bulk bonus id."""


class WrongState(ProlificError):
    """400/409: Prolific refused the action in the object's current state (e.g. publishing a published study)."""


class Unavailable(ProlificError):
    """429, 5xx or timeouts still failing after the retries; `maybe_done`: the request may have been carried out."""

    def __init__(self, message: str, *, status: int | None = None, maybe_done: bool = False):
        self.maybe_done = maybe_done
        super().__init__(message, status=status)


class MalformedAnswer(ProlificError):
    """An answer that is not the JSON the API reference describes."""


def resolve_token(env_name: str, environ: Mapping[str, str], secrets: Mapping[str, Any]) -> str:
    """The token from the environment, else from Streamlit secrets (top level or `[prolific]`)."""
    value = environ.get(env_name) or secrets.get(env_name)
    if not value and isinstance(secrets.get("prolific"), Mapping):
        value = secrets["prolific"].get(env_name) or secrets["prolific"].get("token")
    if not value or not isinstance(value, str):
        raise NoToken(
            f"no API token: set the environment variable {env_name} (or {env_name} in .streamlit/secrets.toml) "
            "to a token made in Prolific under Settings → API tokens",
            key="prolific.token_env",
        )
    return value.strip()


class ProlificClient:
    """`get`/`post` on Prolific's API with retries and typed errors (one httpx.Client per instance)."""

    def __init__(
        self,
        token: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 20.0,
        retries: int = 4,
        backoff: float = 0.5,
        max_wait: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ):
        if not token:
            raise NoToken("empty API token")
        self._token = token
        self.retries, self.backoff, self.max_wait, self._sleep = retries, backoff, max_wait, sleep
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Token {token}", "User-Agent": "infact"},
            timeout=timeout,
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ProlificClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the calls ------------------------------------------------------------
    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return self.call("GET", path, params=params)

    def post(self, path: str, body: Any = None, *, safe: bool = True) -> Any:
        return self.call("POST", path, body=body, safe=safe)

    def call(self, method: str, path: str, *, body: Any = None, params=None, safe: bool = True) -> Any:
        """The decoded JSON answer (None for an empty one), after retries; raises a ProlificError."""
        attempt = 0
        while True:
            wait, error = self._attempt(method, path, body, params, safe)
            if error is None:
                return wait
            attempt += 1
            if wait is None or attempt > self.retries:
                raise error
            self._sleep(wait(attempt) if callable(wait) else wait)

    def _attempt(self, method, path, body, params, safe):
        """(answer, None) on success; (wait or None, error) on failure: None means do not retry."""
        where = f"{method} {path}"
        try:
            response = self._http.request(method, path, json=body, params=params)
        except httpx.ConnectError as exc:  # nothing was sent: safe to retry any call
            return self._backoff, Unavailable(f"{where}: cannot connect ({self._scrub(str(exc))}); retried")
        except httpx.TimeoutException:
            err = Unavailable(f"{where}: no answer in time; retried", maybe_done=not safe)
            return (self._backoff if safe else None), err
        except httpx.HTTPError as exc:
            err = Unavailable(f"{where}: {type(exc).__name__}: {self._scrub(str(exc))}", maybe_done=not safe)
            return (self._backoff if safe else None), err
        status = response.status_code
        if status < 400:
            return self._decode(where, response), None
        detail = self._detail(response)
        if status == 429:
            return self._retry_after(response), Unavailable(f"{where}: rate limited (429) {detail}", status=429)
        if status >= 500:
            err = Unavailable(f"{where}: Prolific answered {status} {detail}", status=status, maybe_done=not safe)
            return (self._backoff if safe else None), err
        return None, self._client_error(where, status, detail)

    def _client_error(self, where: str, status: int, detail: str) -> ProlificError:
        if status == 401:
            return AuthError(f"{where}: 401 — the API token was refused; make a new one in Prolific", status=401)
        if status == 403:
            return AuthError(f"{where}: 403 — this token lacks the rights for this call {detail}", status=403)
        if status == 404:
            return NotFound(f"{where}: 404 — no such id on Prolific; check the study id {detail}", status=404)
        if status in (400, 409, 422):
            return WrongState(f"{where}: refused ({status}) {detail}", status=status)
        return ProlificError(f"{where}: Prolific answered {status} {detail}", status=status)

    # -- helpers --------------------------------------------------------------
    def _backoff(self, attempt: int) -> float:
        return min(self.max_wait, self.backoff * 2 ** (attempt - 1))

    def _retry_after(self, response: httpx.Response) -> Callable[[int], float] | float:
        text = response.headers.get("Retry-After", "")
        try:
            return min(self.max_wait, max(0.0, float(text)))
        except ValueError:
            return self._backoff  # absent or an HTTP date: back off instead

    def _decode(self, where: str, response: httpx.Response) -> Any:
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            snippet = self._clip(response.text, 120)
            raise MalformedAnswer(
                f"{where}: the answer is not JSON: {snippet!r}", status=response.status_code
            ) from None

    def _detail(self, response: httpx.Response) -> str:
        """Prolific's own explanation, shortened and without the token."""
        try:
            data = response.json()
            if isinstance(data, dict) and isinstance(data.get("error"), dict):
                data = data["error"]
            text = data.get("detail") or data.get("title") or data if isinstance(data, dict) else data
        except ValueError:
            text = response.text
        text = str(text).strip()
        return f"({self._clip(text, 300)})" if text else ""

    def _scrub(self, text: str) -> str:
        return scrub(text, self._token)

    def _clip(self, text: str, limit: int) -> str:
        return clip(text, self._token, limit)


MASK = "<token>"
PIECE = 8  # a run of this many characters of the token, anywhere in a text, is masked
EDGE = 4  # at a text's edge (where someone cut it), a start or end of the token this long is masked


def scrub(text: str, token: str) -> str:
    """`text` without the token and without pieces of it: the whole token, any run of PIECE or more of its
    characters (a server or proxy that echoed it shortened), and a start of it at the text's end or an end of
    it at the text's beginning of EDGE or more characters (the rest fell outside someone's cut)."""
    if not token:
        return text
    text = text.replace(token, MASK)
    if len(token) <= EDGE:
        return text
    out, i, shortest = [], 0, min(PIECE, len(token))
    while i < len(text):
        n = _run_in(text, i, token)
        if n >= shortest:
            out.append(MASK)
            i += n
        else:
            out.append(text[i])
            i += 1
    text = "".join(out)
    for n in range(min(len(token), len(text)), EDGE - 1, -1):
        if text.endswith(token[:n]):
            text = text[:-n] + MASK
            break
    for n in range(min(len(token), len(text)), EDGE - 1, -1):
        if text.startswith(token[-n:]):
            text = MASK + text[n:]
            break
    return text


def _run_in(text: str, i: int, token: str) -> int:
    """The length of the longest run of `text` from `i` that occurs in `token`."""
    n = 0
    while i + n < len(text) and text[i : i + n + 1] in token:
        n += 1
    return n


def clip(text: str, token: str, limit: int) -> str:
    """`text` scrubbed of the token, then cut to about `limit` characters: scrubbing first, so a cut never
    leaves a part of the token; the piece search reads only what is shown (a long body stays cheap)."""
    text = text.replace(token, MASK) if token else text
    shown = scrub(text[: limit + len(token) + len(MASK)], token)
    if len(shown) <= limit:
        return shown
    cut = shown[:limit]
    at = shown.rfind(MASK, 0, limit + len(MASK))
    if at != -1 and at < limit < at + len(MASK):  # the cut fell inside a mask: keep it whole
        cut = shown[: at + len(MASK)]
    return scrub(cut, token) + "…"  # a start of the token that now ends the text is masked too


def expect(answer: Any, fields: tuple[str, ...], where: str) -> dict:
    """`answer` as a dict holding `fields`, else MalformedAnswer (a changed or broken API must not pass silently)."""
    if not isinstance(answer, dict):
        raise MalformedAnswer(f"{where}: expected a JSON object, got {type(answer).__name__}")
    missing = [f for f in fields if f not in answer]
    if missing:
        raise MalformedAnswer(f"{where}: the answer lacks {', '.join(missing)}")
    return answer
