"""The contract between INFACT and a system under test, and its typed failures.

A system receives, for every participant message, one JSON object

    {"study_id": "...", "conversation_id": "...", "turn": 3,
     "messages": [{"role": "user" | "assistant", "text": "..."}, ...]}

(the whole conversation so far, ending with the participant's new message) and
answers `{"text": "...", "items": ["Title (Year)", ...]}`; `items` is optional.
The same shape serves HTTP systems (POSTed as JSON) and in-process callables.

Every way a system can fail becomes one `SystemFailure` subclass (defined in infact/errors.py) with a `kind`
that is stored with the turn, a `detail` for the researcher and a calm
`participant_message` the page shows beside "Try again" and "Skip".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from infact.errors import (
    SystemBadReply,
    SystemCrashed,
    SystemFailure,
    SystemHTTPError,
    SystemTimeout,
    SystemUnreachable,
)
from infact.llm.limits import MAX_TEXT as LLM_MAX_TEXT

# The contract's failures, re-exported: importers of infact.chat.contract keep working.
FAILURES = (SystemFailure, SystemTimeout, SystemUnreachable, SystemHTTPError, SystemBadReply, SystemCrashed)

_BY_KIND = {cls.kind: cls for cls in FAILURES}


def failure_message(error: dict | None) -> str:
    """What the participant reads about a stored failed attempt (`error` as in `as_record`):
    the page is drawn from the records, so a reload shows the same words as the failure did."""
    kind = (error or {}).get("kind")
    return _BY_KIND.get(kind, SystemFailure).participant_message


ROLES = ("user", "assistant")
MAX_TEXT = LLM_MAX_TEXT  # longer replies are cut, as every LLM answer is (infact/llm/limits.py)
MAX_ITEMS = 50


@dataclass(frozen=True)
class Message:
    role: str
    text: str

    def to_dict(self) -> dict:
        return {"role": self.role, "text": self.text}


@dataclass(frozen=True)
class Reply:
    text: str
    items: tuple[str, ...] = ()
    latency_ms: float = 0.0
    extra: dict = field(default_factory=dict)  # anything else the system sent (kept, not shown)


def build_request(study_id: str, conversation_id: str, turn: int, messages: list[Message]) -> dict:
    if not messages or messages[-1].role != "user":
        raise ValueError("a request ends with the participant's (user) message")
    return {
        "study_id": study_id,
        "conversation_id": conversation_id,
        "turn": turn,
        "messages": [m.to_dict() for m in messages],
    }


def parse_reply(system: str, payload: Any, latency_ms: float) -> Reply:
    """Check an answer against the contract; SystemBadReply names what is wrong."""
    if isinstance(payload, str):  # a callable may answer with plain text
        payload = {"text": payload}
    if not isinstance(payload, dict):
        raise SystemBadReply(system, f'expected a JSON object {{"text": ...}}, got {type(payload).__name__}')
    text = payload.get("text")
    if not isinstance(text, str) or not text.strip():
        raise SystemBadReply(system, 'the answer has no non-empty "text" string')
    items = payload.get("items", [])
    if items is None:
        items = []
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise SystemBadReply(system, '"items" must be a list of strings, e.g. ["Up (2009)"]')
    extra = {k: v for k, v in payload.items() if k not in ("text", "items")}
    return Reply(
        text.strip()[:MAX_TEXT], tuple(i.strip() for i in items[:MAX_ITEMS] if i.strip()), round(latency_ms, 1), extra
    )
