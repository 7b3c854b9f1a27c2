"""The limits every call to an LLM endpoint keeps, whoever makes it (issue 36, item 12).

A judge (infact/results/judges/runner.py), `generate` (infact/importers/generate.py), a live system and
a simulated participant (infact/chat/llm_chat.py, infact/llm/simulated.py) all call
`LLMClient.complete` (client.py), which keeps these three rules; none of the callers has its own:

* **One time limit.** An attempt ends `timeout_s` after it was sent, whatever the server does: a total
  deadline (`Deadline`), not httpx's timeout, which bounds each read only (an answer trickling in a byte
  at a time never tripped it). The deadline is checked at every piece of the body read and, for a server
  that falls silent mid-answer, a watchdog shuts the connection at the deadline.
* **One cap on what is stored.** `MAX_TEXT` characters of an answer's text, the same cap as a live
  system's reply (infact/chat/contract.py): a longer answer is cut, and its record says how long it was
  (`cut_chars`). A streamed answer is closed once it has that many (the server stops generating); a
  plain answer is read up to `MAX_BODY_BYTES`, beyond which it is refused, not held in memory.
* **One retry rule** (`RETRY_STATUSES`, `worth_retrying`): a timed-out attempt, a dropped connection,
  408/409/429 and 5xx are tried again up to the endpoint's `max_retries`, and never past the caller's
  own deadline (a live chat's participant is waiting).
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable, Iterator

from infact.errors import SystemFailure, SystemHTTPError, SystemTimeout, SystemUnreachable

MAX_TEXT = 4000  # characters of an answer kept: a page cannot show a novel, a judge's label is never this long
MAX_BODY_BYTES = 64 * 2**20  # a plain (not streamed) answer read beyond this is refused
RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
# llama.cpp (and llama-cpp-python) answer 500 to a request they cannot read — a field of the wrong type,
# an unknown grammar — which is the request's fault: asking again gives the same 500. Their bodies say so.
_REQUEST_FAULT = re.compile(
    r"validation error|invalid_request_error|\[json\.exception|invalid argument|"
    r"extra inputs are not permitted|failed to parse grammar|must be (a|an) ",
    re.IGNORECASE,
)


def worth_retrying(failure: SystemFailure) -> bool:
    """The retry rule: timeouts, dropped connections and the statuses a server uses for "not now" (not a 500
    that says the request itself is wrong: asking again gives the same 500)."""
    if isinstance(failure, SystemHTTPError):
        return failure.status in RETRY_STATUSES and not (
            failure.status == 500 and _REQUEST_FAULT.search(failure.detail)
        )
    return isinstance(failure, (SystemTimeout, SystemUnreachable))


def cut(text: str) -> tuple[str, int | None]:
    """The text kept (at most MAX_TEXT characters) and, when it was cut, the length it had."""
    if len(text) <= MAX_TEXT:
        return text, None
    return text[:MAX_TEXT].rstrip(), len(text)


class Deadline:
    """One attempt's total time limit, from the moment it is sent."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.seconds, self.clock = seconds, clock
        self.stop = clock() + seconds

    def passed(self) -> bool:
        return self.clock() > self.stop

    def left(self) -> float:
        return max(0.0, self.stop - self.clock())

    def pieces(self, iter_bytes: Callable[..., Iterator[bytes]], overdue: Exception) -> Callable[..., Iterator[bytes]]:
        """`iter_bytes` cut at the deadline: checked at every piece read, not only at every whole event (a
        server that sends one event slowly, or a plain body, byte by byte)."""

        def pieces(*args, **kw) -> Iterator[bytes]:
            for piece in iter_bytes(*args, **kw):
                if self.passed():
                    raise overdue
                yield piece
            if self.passed():  # the watchdog shut the connection: an end without Content-Length looks like EOF
                raise overdue

        return pieces

    def watch(self, response) -> threading.Timer:
        """Shut `response`'s connection at the deadline, so a read blocked on a silent server returns then
        (closing the response from another thread does not wake it; shutting the socket does). Cancel the
        timer once the answer is read."""
        timer = threading.Timer(self.left(), _shut, args=(response,))
        timer.daemon = True
        timer.start()
        return timer


def _shut(response) -> None:
    try:
        sock = response.extensions["network_stream"].get_extra_info("socket")
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except (KeyError, AttributeError, OSError):
        pass  # already closed, or a transport without a socket (tests' mock transports)


def read_body(pieces: Iterator[bytes], too_big: Callable[[int], Exception]) -> bytes:
    """A plain answer's bytes, refused (`too_big(limit)`) beyond MAX_BODY_BYTES."""
    parts, size = [], 0
    for piece in pieces:
        size += len(piece)
        if size > MAX_BODY_BYTES:
            raise too_big(MAX_BODY_BYTES)
        parts.append(piece)
    return b"".join(parts)
