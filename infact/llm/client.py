"""`LLMClient`: one endpoint, called through the official `openai` package.

The package speaks every OpenAI-compatible server (vLLM, Ollama, llama.cpp, TGI,
LiteLLM, hosted APIs) and parses their answers into typed objects; INFACT adds what a
study needs around it: its own retry loop (so the number of attempts is recorded and a
live chat's deadline is kept), a process-wide concurrency limit, a record per call, and
failures typed as the chat runtime's (`SystemFailure`, infact/errors.py) with every
detail scrubbed of the API key. Every call keeps the limits of infact/llm/limits.py: one total
time limit per attempt, one cap on the text kept, one retry rule.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from infact.errors import (
    ConfigError,
    Problem,
    SystemBadReply,
    SystemFailure,
    SystemHTTPError,
    SystemTimeout,
    SystemUnreachable,
)
from infact.llm.calls import CallRecord, prompt_hash
from infact.llm.keys import read_key, remember, scrub
from infact.llm.limiter import Limiter, limiter_for
from infact.llm.limits import MAX_TEXT, Deadline, cut, read_body, worth_retrying
from infact.study.endpoints import Endpoint, Sampling

BACKOFF_BASE_S, BACKOFF_MAX_S, RETRY_AFTER_MAX_S = 0.5, 8.0, 60.0


def seconds(value: float) -> str:
    """A duration as read by a person: 4.99999 → "5", 0.25 → "0.25"."""
    return f"{round(value, 2):g}"


@dataclass(frozen=True)
class Completion:
    text: str
    record: CallRecord


class _Retry(Exception):
    """One attempt failed in a way worth another (limits.worth_retrying: a timeout, 429, 5xx, a dropped
    connection)."""

    def __init__(self, failure: SystemFailure, wait_s: float | None):
        self.failure, self.wait_s = failure, wait_s


class LLMClient:
    def __init__(
        self,
        name: str,
        endpoint: Endpoint,
        api_key: str | None = None,
        *,
        label: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ):
        # `name` is the endpoint's (records, the limiter); `label` names the caller in failures (a system's name).
        self.name, self.endpoint, self.label = name, endpoint, label or name
        if api_key:
            remember(api_key)
        # A local server needs no key, but the package insists on one; a placeholder (never OPENAI_API_KEY
        # from the environment: a study that names no key must not send the researcher's own).
        import openai  # here, not at the top: it takes seconds to import, and most runs of the app never call an LLM

        self._api = openai.OpenAI(
            base_url=endpoint.base_url, api_key=api_key or "no-key-needed", timeout=endpoint.timeout_s, max_retries=0
        )
        from openai.types.chat import ChatCompletion

        self._completion = ChatCompletion
        self.limiter: Limiter = limiter_for(name, endpoint.base_url, endpoint.max_concurrency)
        self._sleep, self._jitter = sleep, jitter

    def complete(
        self,
        messages: list[dict],
        sampling: Sampling | None = None,
        *,
        deadline_s: float | None = None,
        salt: str = "",
        stream: bool = False,
        extra: dict | None = None,
    ) -> Completion:
        """The answer's text, or a `SystemFailure` (with `.call`, its CallRecord) after the retries.

        `deadline_s` bounds the whole call, waits and retries included (a live chat's participant
        is waiting); without it each attempt may take `timeout_s`. `stream` asks for server-sent
        events and closes the stream once the deadline (or `timeout_s`) has passed: the server then
        stops generating at once (llama.cpp, vLLM), where an abandoned plain call generates on.
        `extra` fields go into the request as they are (a judge's `grammar`, `response_format`) and
        into the record's parameters and the prompt hash.
        """
        params = {**(sampling or Sampling()).over(self.endpoint.sampling).params(), **(extra or {})}
        record = CallRecord(
            self.name, self.endpoint.model, params, prompt_hash(self.endpoint.model, messages, params, salt)
        )
        start = time.monotonic()
        end = None if deadline_s is None else start + deadline_s
        try:
            text = self._attempts(messages, params, record, end, stream)
        except SystemFailure as failure:
            record.error = failure.as_record()
            failure.call = record  # type: ignore[attr-defined]
            raise
        finally:
            record.latency_ms = round((time.monotonic() - start) * 1000, 1)
        return Completion(text, record)

    def _attempts(self, messages: list[dict], params: dict, record: CallRecord, end: float | None, stream: bool) -> str:
        for attempt in range(self.endpoint.max_retries + 1):
            try:
                return self._attempt(messages, params, record, end, stream)
            except _Retry as retry:
                wait = retry.wait_s if retry.wait_s is not None else self._backoff(attempt)
                left = None if end is None else end - time.monotonic()
                if attempt == self.endpoint.max_retries or (left is not None and wait >= left):
                    raise retry.failure from None
                self._sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def model_warning(self, timeout_s: float = 5.0) -> str | None:
        """A warning when the server's `GET /models` does not list the configured `model`, else None.

        llama.cpp (and others) answer under any model name and echo it back, so a typo'd name would be
        recorded as the model that answered. A server without the route (or down) gives no warning here:
        its calls will say what is wrong."""
        import openai

        try:
            names = sorted(m.id for m in self._api.models.list(timeout=timeout_s))
        except (openai.APIError, ValueError, TypeError):
            return None
        if not names or self.endpoint.model in names:
            return None
        return scrub(
            f"endpoint '{self.name}': model = \"{self.endpoint.model}\" is not among the models "
            f"{self.endpoint.base_url}/models lists ({', '.join(names[:10])}); a server that answers under any "
            "name would record this one as the model that answered"
        )

    def _backoff(self, attempt: int) -> float:
        return min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2**attempt) * (0.5 + 0.5 * self._jitter())

    def _attempt(self, messages: list[dict], params: dict, record: CallRecord, end: float | None, stream: bool) -> str:
        left = None if end is None else max(0.0, end - time.monotonic())
        timeout = self.endpoint.timeout_s if left is None else min(self.endpoint.timeout_s, left)
        with self.limiter.slot(left) as got:
            if not got:  # not retried: the caller's deadline has passed
                raise SystemTimeout(
                    self.label,
                    f"all {self.endpoint.max_concurrency} connections to endpoint "
                    f"'{self.name}' stayed busy until the deadline (max_concurrency)",
                )
            record.attempts += 1
            try:
                return self._answer(messages, params, record, Deadline(timeout), stream)
            except SystemFailure as failure:
                if worth_retrying(failure):
                    raise _Retry(failure, getattr(failure, "retry_after", None)) from None
                raise

    def _answer(self, messages: list[dict], params: dict, record: CallRecord, deadline: Deadline, stream: bool) -> str:
        """One attempt's answer, read whole within `deadline` (headers and body, read in the slot), or the
        failure it is (limits.worth_retrying decides whether another attempt is made)."""
        import httpx2
        import openai

        timeout = deadline.seconds
        try:
            return self._read_stream(self._post(messages, params, timeout, stream), record, deadline, stream)
        except openai.APITimeoutError:
            raise SystemTimeout(
                self.label, f"no answer from {self.endpoint.base_url} within {seconds(timeout)} s"
            ) from None
        except httpx2.TimeoutException:  # a silent server mid-answer (each read's own timeout)
            raise self._overdue(timeout) from None
        except (openai.APIConnectionError, httpx2.TransportError) as exc:
            if deadline.passed():  # the watchdog shut the connection at the deadline
                raise self._overdue(timeout) from None
            raise SystemUnreachable(self.label, scrub(f"cannot reach {self.endpoint.base_url}: {exc}")) from None
        except openai.APIStatusError as exc:
            raise self._status_failure(exc) from None
        except (openai.APIResponseValidationError, openai.APIError, httpx2.HTTPError, ValueError) as exc:
            raise SystemBadReply(self.label, scrub(f"the answer is not an OpenAI chat completion: {exc}")) from None

    def _post(self, messages: list[dict], params: dict, timeout: float, stream: bool):
        """The response with its body not yet read (read by `_read_stream` within the deadline, whether the
        server streams or not). `post` with the protocol's own body: `chat.completions.create` would first
        walk the messages through the package's type-directed transform (~3 ms of CPU per call, a bottleneck
        at 16 calls in flight) to rename nothing; the transport, errors and typed parsing are the package's."""
        import openai
        from openai.types.chat import ChatCompletionChunk

        body = {"model": self.endpoint.model, "messages": messages, **params}
        if stream:  # the token counts come last
            body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        return self._api.post(
            "/chat/completions",
            cast_to=ChatCompletionChunk,
            body=body,
            options={"timeout": timeout},
            stream=True,  # the transport's: the body is read by us, piece by piece, against the deadline
            stream_cls=openai.Stream[ChatCompletionChunk],
        )

    def _read_stream(self, events, record: CallRecord, deadline: Deadline, asked_to_stream: bool) -> str:
        """The answer, plain or streamed, the connection closed once `deadline` has passed (each streamed
        event is a token or so: a trickling server is cut within one event of the deadline, and its slot
        comes free) or, for a stream, once MAX_TEXT characters have come (the server stops generating)."""
        events.response.iter_bytes = deadline.pieces(events.response.iter_bytes, self._overdue(deadline.seconds))
        watchdog = deadline.watch(events.response)
        try:
            plain = "json" in events.response.headers.get("content-type", "")  # or a server that ignores "stream"
            if plain or not asked_to_stream:
                body = read_body(events.response.iter_bytes(), self._too_big)
                return self._read(self._completion.model_validate_json(body), record)
            return self._read_events(events, record)
        finally:
            watchdog.cancel()
            events.close()

    def _read_events(self, events, record: CallRecord) -> str:
        parts: list[str] = []
        refusal, finish, size = "", None, 0
        for chunk in events:
            record.response_model = getattr(chunk, "model", None) or record.response_model
            usage = getattr(chunk, "usage", None)
            if usage is not None:
                record.prompt_tokens, record.completion_tokens = usage.prompt_tokens, usage.completion_tokens
            for choice in getattr(chunk, "choices", None) or []:
                delta = choice.delta
                parts.append(getattr(delta, "content", None) or "")
                size += len(parts[-1])
                refusal += getattr(delta, "refusal", None) or ""
                finish = choice.finish_reason or finish
            if size > MAX_TEXT:  # enough: the stream is closed, the server stops generating
                finish = finish or "length"
                break
        record.finish_reason = finish
        return self._text("".join(parts), refusal, finish, record)

    def _too_big(self, limit: int) -> SystemBadReply:
        return SystemBadReply(
            self.label,
            f"the answer from {self.endpoint.base_url} is larger than {limit / 2**20:g} MB: not read further",
        )

    def _overdue(self, timeout: float) -> SystemTimeout:
        return SystemTimeout(
            self.label,
            f"no whole answer from {self.endpoint.base_url} within {seconds(timeout)} s "
            "(the connection was closed at timeout_s, a total limit: a streaming server stops generating)",
        )

    def _status_failure(self, exc) -> Exception:
        status = exc.status_code
        body = scrub(getattr(exc.response, "text", "") or exc.message)[:300]
        failure = SystemHTTPError(self.label, f"HTTP {status} from {self.endpoint.base_url}: {body}", status)
        failure.retry_after = retry_after(exc.response.headers)  # type: ignore[attr-defined]
        return failure

    def _read(self, response, record: CallRecord) -> str:
        usage = getattr(response, "usage", None)
        record.prompt_tokens = getattr(usage, "prompt_tokens", None)
        record.completion_tokens = getattr(usage, "completion_tokens", None)
        record.response_model = getattr(response, "model", None)
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise SystemBadReply(self.label, "the answer has no choices")
        choice = choices[0]
        record.finish_reason = choice.finish_reason
        message = choice.message
        return self._text(message.content or "", getattr(message, "refusal", None), choice.finish_reason, record)

    def _text(self, content: str, refusal: str | None, finish_reason: str | None, record: CallRecord) -> str:
        """The answer's text, scrubbed of the key and cut to MAX_TEXT characters (the record keeps the
        length it had: `cut_chars`)."""
        if refusal or finish_reason == "content_filter":
            raise SystemBadReply(self.label, scrub(f"the model refused: {refusal or 'content filter'}")[:300])
        text = content.strip()
        if not text:
            raise SystemBadReply(self.label, f"empty answer (finish_reason = {finish_reason})")
        kept, was = cut(scrub(text[: 2 * MAX_TEXT]))  # scrubbed before the cut: a key is never cut in two
        record.cut_chars = len(text) if was is not None else None
        return kept


def retry_after(headers) -> float | None:
    """Seconds the server asks us to wait (`retry-after-ms`, or `Retry-After` in seconds or as a date)."""
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return min(RETRY_AFTER_MAX_S, max(0.0, float(ms) / 1000))
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            seconds = float(value)
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            seconds = when.timestamp() - time.time()
        return min(RETRY_AFTER_MAX_S, max(0.0, seconds))
    except (TypeError, ValueError, OverflowError):
        return None


def open_client(name: str, endpoints, env=None, secrets=None, label: str | None = None) -> LLMClient:
    """The client of endpoint `name` (study or deployment), its key read now by its variable's name."""
    endpoint = endpoints.get(name)
    if endpoint is None:
        raise ConfigError(
            Problem(
                "study.toml",
                f"endpoint '{name}' is not declared: add an [endpoints.{name}] "
                f"table (base_url, model); declared: {sorted(endpoints) or 'none'}",
                key=f"endpoints.{name}",
            )
        )
    key = read_key(endpoint.api_key_env, env, secrets)
    if endpoint.api_key_env and key is None:
        raise ConfigError(
            Problem(
                "study.toml",
                f"endpoint '{name}' reads its API key from {endpoint.api_key_env}, "
                "which is not set: export it (or add it to the deployment's "
                "secrets) before starting",
                key=f"endpoints.{name}.api_key_env",
            )
        )
    return LLMClient(name, endpoint, key, label=label)
