"""Which version of a system a participant met: a short hash of what makes its answers, stamped on each vote.

The leaderboard ledger (infact/results/ranking/ledger.py, docs/ranking.md) says which version of each
system a ranking compared. A version is `WHAT-HASH`, the first 12 hex digits of a SHA-256 of:

- `responses-…`  an offline system (pairwise, best–worst, dialog-level studies): its own responses in the
                 study's situations (situation id and text), so adding another system to the file, or
                 editing another system's responses, leaves its version as it was;
- `endpoint-…`   a live LLM system: the endpoint's base URL and model, the system prompt and the sampling
                 settings sent (the system's over its endpoint's; the API key's variable name is no part of it);
- `url-…`        a live HTTP system: its URL (what answers behind it is the system owner's to version);
- `callable-…`   an in-process live system: its `module:function`.

The versions are stamped where the answer is stored from the study as loaded then (the vote record of a
pairwise or best–worst step, every record of a live chat), so the ledger stays true when study.toml or the
situations change mid-study. Records stored before versions were stamped have none: the ledger says
"unknown", never a guess from today's study.toml.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from infact.study.endpoints import Endpoint
    from infact.study.live_config import LiveSystem
    from infact.study.loader import Study

UNKNOWN = "unknown"


def _digest(what: str, payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"{what}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


def live_version(settings: LiveSystem, endpoints: Mapping[str, Endpoint] | None = None) -> str | None:
    """The version of a live system; None for an endpoint system whose endpoint is not in `endpoints`."""
    if settings.url:
        return _digest("url", {"url": settings.url})
    if settings.callable:
        return _digest("callable", {"callable": settings.callable})
    endpoint = (endpoints or {}).get(settings.endpoint or "")
    if endpoint is None:
        return None
    return _digest(
        "endpoint",
        {
            "base_url": endpoint.base_url,
            "model": endpoint.model,
            "system_prompt": settings.system_prompt,
            "sampling": settings.sampling.over(endpoint.sampling).params(),
        },
    )


def response_versions(study: Study) -> dict[str, str]:
    """system -> the version of its responses in the study's situations (computed once per loaded study)."""
    cached = study.__dict__.get("_response_versions")
    if cached is None:
        hashes = {name: hashlib.sha256() for name in study.systems}
        for situation in sorted(study.situations, key=lambda s: s.situation_id):
            for name, h in hashes.items():
                text = situation.responses.get(name)
                if text is not None:
                    h.update(json.dumps([situation.situation_id, text], ensure_ascii=False).encode("utf-8"))
        cached = {name: f"responses-{h.hexdigest()[:12]}" for name, h in hashes.items()}
        study.__dict__["_response_versions"] = cached  # a frozen dataclass: its cache goes in __dict__ directly
    return cached


def shown_versions(study: Study, systems) -> dict[str, str]:
    """The versions of the systems shown in one step, as its record stores them."""
    every = response_versions(study)
    return {s: every[s] for s in systems if s in every}
