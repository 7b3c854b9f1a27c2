"""`[endpoints.NAME]`: OpenAI-compatible servers a study may use (docs/llm.md).

    [endpoints.local-llama]
    base_url = "http://127.0.0.1:8000/v1"
    model = "llama-3.1-8b-instruct"
    api_key_env = "LOCAL_LLAMA_KEY"   # the key's NAME; the key itself is never written down
    max_concurrency = 8
    timeout_s = 30

One endpoint can serve a system under test (`[live.systems.NAME] endpoint = …`),
generated responses (`infact generate`), a judge (`[judges.NAME] endpoint = …`)
and simulated participants (`infact bots --strategy llm`). A deployment may declare
more endpoints under `[endpoints.NAME]` in its secrets (same fields); a study's own
table of the same name wins. Only the key's variable name is ever stored: the key
comes from the environment or a top-level secret of that name at call time.

`[judges.NAME]` (endpoint, samples, sampling) names the endpoint that judges, at the end.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from infact.errors import ConfigError, Problem

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sampling(_Section):
    """Sampling parameters sent with every call; unset ones are left to the server."""

    temperature: float | None = Field(
        default=None,
        ge=0,
        le=2,
        description="Sampling temperature (0: the most likely answer; the server's default when unset).",
    )
    top_p: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="Nucleus sampling: keep the smallest set of tokens whose probability sums to `top_p`.",
    )
    max_tokens: int | None = Field(default=None, ge=1, le=100_000, description="Longest answer, in tokens.")
    seed: int | None = Field(
        default=None, description="Seed for servers that support reproducible sampling (vLLM, OpenAI)."
    )
    stop: list[str] | None = Field(
        default=None, max_length=4, description="Strings at which the server stops the answer."
    )

    def params(self) -> dict[str, Any]:
        """The sampling settings that are set (a subclass's other fields left out)."""
        return {k: getattr(self, k) for k in Sampling.model_fields if getattr(self, k) is not None}

    @property
    def sampling(self) -> Sampling:
        return Sampling(**self.params())

    def over(self, base: Sampling) -> Sampling:
        """These settings where set, `base`'s elsewhere (a system's or judge's own over its endpoint's)."""
        return Sampling(**{**base.params(), **self.params()})


# Batch callers bound every answer, so a model that rambles (or never stops: a random-weight model)
# cannot hold the server for minutes per call. A judge answers one label; a generated response is a
# chatbot's turn. Set `max_tokens` on the judge, the system or the endpoint to change them.
JUDGE_MAX_TOKENS, GENERATE_MAX_TOKENS = 64, 512


def capped(own: Sampling | None, base: Sampling, default_max_tokens: int) -> Sampling:
    """`own`'s settings over `base`'s, with `max_tokens = default_max_tokens` when neither sets it."""
    both = (own or Sampling()).over(base)
    return both if both.max_tokens is not None else Sampling(**{**both.params(), "max_tokens": default_max_tokens})


class _Connection(_Section):
    base_url: str = Field(
        description="The server's OpenAI-compatible API root, e.g. `http://127.0.0.1:8000/v1` (vLLM), "
        "`http://127.0.0.1:11434/v1` (Ollama) or `https://api.openai.com/v1`."
    )
    model: str = Field(min_length=1, description="Model name as the server knows it (`GET /v1/models` lists them).")
    api_key_env: str | None = Field(
        default=None,
        description="NAME of the environment variable (or top-level secret) holding the API key; the key itself is "
        "never written to study.toml, the store, exports or logs. Unset: no key (local servers).",
    )
    max_concurrency: int = Field(
        default=4,
        ge=1,
        le=256,
        description="Calls in flight to this endpoint at once, across all chats, judges and generators of the process; "
        "more wait their turn.",
    )
    timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="Seconds one attempt may take in all, its whole answer read (a total deadline, not per read), "
        "before it fails as a timeout and is retried (`max_retries`).",
    )
    max_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Retries after a timeout, HTTP 429 or 5xx (or a dropped connection), with exponential backoff that "
        "honours `Retry-After`.",
    )

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not re.match(r"^https?://[^\s/]+", v):
            raise ValueError('use an http:// or https:// URL ending in the API root, e.g. "http://127.0.0.1:8000/v1"')
        return v.rstrip("/")

    @field_validator("api_key_env")
    @classmethod
    def _env(cls, v: str | None) -> str | None:
        if v is not None and (v.startswith(("sk-", "hf_", "gsk_")) or len(v) > 60):
            raise ValueError(
                "this looks like a key, not a variable name: put the key in the environment or the "
                "deployment's secrets and write its NAME here"
            )
        if v is not None and not _ENV.match(v):
            raise ValueError(
                "give the NAME of an environment variable (letters, digits, '_'), "
                'e.g. "LOCAL_LLAMA_KEY" — never the key itself'
            )
        return v


class Endpoint(Sampling, _Connection):
    """One server: how it is reached (listed first in the settings reference), then its sampling defaults."""


def check_name(name: str) -> str | None:
    """A problem with an endpoint's name, or None."""
    if not _NAME.match(name):
        return "endpoint names use 1-64 letters, digits, '.', '-' or '_'"
    return None


def endpoints_from_secrets(secrets: Mapping | None, file: str = "secrets.toml") -> dict[str, Endpoint]:
    """The deployment's `[endpoints.NAME]` tables (ConfigError naming the table and field when invalid)."""
    try:
        raw = (secrets or {}).get("endpoints") or {}
    except (FileNotFoundError, KeyError, TypeError):  # st.secrets without a secrets.toml
        return {}
    out: dict[str, Endpoint] = {}
    problems: list[Problem] = []
    for name, table in dict(raw).items():
        try:
            out[name] = Endpoint.model_validate(dict(table))
        except ValidationError as exc:
            problems += [
                Problem(
                    file,
                    f"{e['msg'].removeprefix('Value error, ')}",
                    key=".".join(["endpoints", name, *map(str, e["loc"])]),
                )
                for e in exc.errors()
            ]
        except (TypeError, ValueError):
            problems.append(Problem(file, "must be a table of settings", key=f"endpoints.{name}"))
    if problems:
        raise ConfigError(problems)
    return out


def merged(study: Mapping[str, Endpoint], deployment: Mapping[str, Endpoint]) -> dict[str, Endpoint]:
    """Every endpoint the study can use: the deployment's, with the study's own tables winning."""
    return {**deployment, **study}


# `[judges.NAME]`: an LLM that answers the study's own items, run by `python -m infact judge`
# (infact/results/judges/runner.py); it is given the study's own instructions, criteria and scale.


class JudgeSettings(Sampling):
    endpoint: str = Field(
        description="The `[endpoints.NAME]` table (study or deployment secrets) that answers as the judge."
    )
    samples: int = Field(
        default=1,
        ge=1,
        le=20,
        description="Answers drawn per item (each its own call, its own row in judges/NAME.csv); use temperature > 0 "
        "for samples > 1.",
    )
    preamble: str | None = Field(
        default=None,
        description="Extra text put before the study's instructions in the judge's system message (e.g. a persona); "
        "the instructions, criteria and scale are always the study's own.",
    )
    constrain: Literal["grammar", "json_schema", "json_object"] | None = Field(
        default=None,
        description="Constrain each answer to the item's labels: `grammar` (a GBNF grammar of the labels: llama.cpp), "
        '`json_schema` (`response_format` with an enum of the labels, answered as `{"label": …}`: OpenAI, vLLM, '
        "llama.cpp) or `json_object` (any JSON object, the labels asked for in the prompt). Recorded in the calls' "
        "parameters and prompt hash. Unset: free text, re-asked once when it is not a label.",
    )
    request: dict[str, Any] = Field(
        default_factory=dict,
        description='Extra fields sent as they are in every request body (e.g. `{ grammar = "root ::= ..." }`, '
        "`{ top_k = 1 }`); recorded in the calls' parameters and prompt hash. Must not repeat `model`, `messages`, "
        "`stream` or a sampling setting.",
    )

    @field_validator("request")
    @classmethod
    def _request(cls, v: dict[str, Any]) -> dict[str, Any]:
        taken = sorted(set(v) & ({"model", "messages", "stream", "stream_options"} | set(Sampling.model_fields)))
        if taken:
            raise ValueError(f"{', '.join(taken)} cannot be set here: set sampling settings on the judge itself")
        return v
