"""What one call to an endpoint was, as stored with its result (never the API key).

`prompt_hash` identifies a call by what was asked: the model, the messages and the
sampling parameters (plus a caller's `salt`, e.g. a judge's sample number). Judges and
generators use it as their cache key, so a rerun never repeats a finished call.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime


def prompt_hash(model: str, messages: list[dict], params: dict, salt: str = "") -> str:
    canonical = json.dumps(
        {"model": model, "messages": messages, "params": params, "salt": salt},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def utc_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class CallRecord:
    endpoint: str
    model: str
    params: dict
    prompt_hash: str
    at: str = field(default_factory=utc_iso)
    latency_ms: float | None = None  # first attempt sent → answer read (retries and waits included)
    attempts: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    response_model: str | None = None  # the model the server says answered
    cut_chars: int | None = None  # the answer's length when it was cut to limits.MAX_TEXT (a stream: what had come)
    error: dict | None = None  # {kind, detail, status?} when the call failed

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @property
    def tokens(self) -> int:
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)
