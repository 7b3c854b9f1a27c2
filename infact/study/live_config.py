"""`[live]` in study.toml: how the systems under test are reached and how a live chat runs.

    [live]
    max_turns = 5
    arena = true

    [live.systems.CineMate]
    url = "http://127.0.0.1:9001/chat"
    timeout_s = 10

    [live.systems.GenreBot]
    callable = "infact.chat.demo_systems:genre_recommender"

    [live.systems.Llama]
    endpoint = "local-llama"          # an [endpoints.local-llama] table (docs/llm.md)
    system_prompt = "You recommend movies."
    temperature = 0.7

The names under `[live.systems]` must be the study's `[study] systems` (checked in
infact/study/config.py, which owns the cross-section checks).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from infact.errors import Problem
from infact.study.endpoints import Endpoint, Sampling
from infact.study.situations import version_digest
from infact.text.catalogue import N_
from infact.values import identifier

AGREE = [N_("Strongly disagree"), N_("Disagree"), N_("Neither agree nor disagree"), N_("Agree"), N_("Strongly agree")]
_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Reach(_Section):
    url: str | None = Field(
        default=None,
        description="HTTP endpoint that answers the chat contract (POST JSON; see docs/live.md). Give one of `url`, "
        "`callable` or `endpoint`.",
    )
    callable: str | None = Field(
        default=None,
        description='In-process system as `module:function`, called with the request dict and returning `{"text", '
        '"items"}` (or plain text).',
    )
    endpoint: str | None = Field(
        default=None,
        description="An OpenAI-compatible LLM: the name of an `[endpoints.NAME]` table (docs/llm.md); the conversation "
        "is sent as chat messages.",
    )
    system_prompt: str | None = Field(
        default=None,
        description="Endpoint systems: the system message sent before the conversation (never shown to participants).",
    )
    timeout_s: float = Field(
        default=15.0,
        gt=0,
        le=300,
        description="Seconds to wait for an answer before the participant is offered to try again or skip (an endpoint "
        "system's retries included).",
    )


class LiveSystem(Sampling, _Reach):
    """How one system under test is reached; the sampling settings apply to endpoint systems only."""

    @field_validator("url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^https?://[^\s/]+", v):
            raise ValueError('use an http:// or https:// URL, e.g. "http://127.0.0.1:9001/chat"')
        return v

    @field_validator("callable")
    @classmethod
    def _callable(cls, v: str | None) -> str | None:
        if v is not None and not _CALLABLE.match(v):
            raise ValueError('write it as "package.module:function", e.g. "infact.chat.demo_systems:genre_recommender"')
        return v

    @model_validator(mode="after")
    def _one_way(self):
        if sum(v is not None for v in (self.url, self.callable, self.endpoint)) != 1:
            raise ValueError(
                "give exactly one of `url` (an HTTP system), `callable` (an in-process one) or "
                "`endpoint` (an OpenAI-compatible LLM, [endpoints.NAME])"
            )
        if self.endpoint is None and (self.system_prompt is not None or self.params()):
            raise ValueError(
                "system_prompt and sampling settings (temperature, top_p, max_tokens, seed, stop) "
                "apply to `endpoint` systems only"
            )
        return self


class RubricItem(_Section):
    id: str = Field(description="Item identifier used as the criterion in ratings.csv.")
    question: str = Field(description="Statement about the whole conversation, rated on `live.rubric_scale`.")

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        return identifier(v, "use letters, digits, '-' or '_' (it becomes a column value in exports)")


def _default_rubric() -> list[RubricItem]:
    # INFACT's criteria (meaningful responses; natural, human-like, useful, would use), said of one chat.
    return [
        RubricItem(id="meaningful", question=N_("The chatbot's responses were meaningful.")),
        RubricItem(id="natural", question=N_("The conversation felt natural.")),
        RubricItem(id="human_like", question=N_("The chatbot could have been a human.")),
        RubricItem(id="useful", question=N_("The recommendations were useful to me.")),
        RubricItem(id="would_use", question=N_("I would use this chatbot in the future.")),
    ]


class LiveConfig(_Section):
    systems: dict[str, LiveSystem] = Field(
        default_factory=dict,
        description="How each system under test is reached (`[live.systems.NAME]`); NAME is one of `study.systems`. "
        "Empty: no live chat.",
    )
    max_turns: int = Field(
        default=5,
        ge=1,
        le=50,
        description="Participant messages per conversation; the chat ends after this many answers.",
    )
    min_turns: int = Field(
        default=1,
        ge=1,
        le=50,
        description="Participant messages before the chat can be ended as satisfied or frustrated.",
    )
    arena: bool = Field(
        default=True,
        description="Chat with two systems (A, then B) and vote A / B / tie, as in CRS Arena; false: one system per "
        "participant.",
    )
    allow_tie: bool = Field(default=True, description='Offer "tie" in the arena vote.')
    allow_both_bad: bool = Field(
        default=False,
        description='Offer "both bad" in the arena vote (stored as winner `both_bad`, apart from "tie"; a tie in the '
        "ranking fit, and a both-bad rate per system). See docs/ranking.md.",
    )
    pairs: Literal["balanced", "adaptive"] = Field(
        default="balanced",
        description="Arena: which two systems a participant meets, as `protocol.pairs` for pairwise studies. "
        "`balanced`: every pair equally often; `adaptive`: once every pair has a few votes, the pairs where the "
        "ranking is least certain.",
    )
    vote_reason_min_chars: int = Field(
        default=0,
        ge=0,
        le=2000,
        description="Minimum length of the reason given with the vote (0: the reason is optional).",
    )
    turn_rating: str | None = Field(
        default=N_("Was this answer helpful?"), description='Quick yes/no question after every answer; "" for none.'
    )
    rubric_scale: list[str] = Field(
        default=AGREE,
        min_length=2,
        max_length=11,
        description="Answer options of the end-of-chat rubric, lowest first.",
    )
    rubric: list[RubricItem] = Field(
        default_factory=_default_rubric,
        description="End-of-chat rubric (`[[live.rubric]]`: id, question); INFACT's criteria by default.",
    )
    identity_words: list[str] = Field(
        default_factory=list,
        description="Extra words that give a system away (model or lab names); answers naming one, or a system name, "
        "are flagged `identity_leak` and the vote is marked.",
    )
    task: str = Field(
        default=N_(
            "Imagine you are looking for a movie to watch tonight. Tell the chatbot what you like and find a movie "
            "you would really watch."
        ),
        description="The task shown above the chat (Markdown).",
    )

    @field_validator("turn_rating")
    @classmethod
    def _no_rating(cls, v: str | None) -> str | None:
        return v if v and v.strip() else None

    @model_validator(mode="after")
    def _turns(self):
        if self.min_turns > self.max_turns:
            raise ValueError(f"live.min_turns ({self.min_turns}) must not exceed live.max_turns ({self.max_turns})")
        ids = [r.id for r in self.rubric]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"live.rubric: ids must be unique; repeated: {', '.join(dupes)}")
        return self

    @property
    def enabled(self) -> bool:
        return bool(self.systems)


def _module_exists(spec: str) -> bool:
    """Whether the callable's module can be found, without importing it (a model may be slow to load)."""
    try:
        return importlib.util.find_spec(spec.partition(":")[0]) is not None
    except (ImportError, ValueError):  # a parent package is missing or broken
        return False


def check_systems(live: LiveConfig, systems: list[str], file: str = "study.toml") -> list[Problem]:
    """Problems between `[live.systems]` and `study.systems` (the config loader adds them to its list)."""
    if not live.systems:
        return []
    problems = [
        Problem(
            file,
            f"'{name}' is not one of study.systems {systems}; name each [live.systems.NAME] "
            "after a system of the study",
            key=f"live.systems.{name}",
        )
        for name in live.systems
        if name not in systems
    ]
    problems += [
        Problem(
            file,
            f"system '{name}' has no [live.systems.{name}] table; every system of the study "
            "needs a `url`, a `callable` or an `endpoint`",
            key="live.systems",
        )
        for name in systems
        if name not in live.systems
    ]
    problems += [
        Problem(
            file,
            f"cannot find module '{spec.callable.partition(':')[0]}' for callable = \"{spec.callable}\"; "
            "check the spelling and that it is importable where the app runs",
            key=f"live.systems.{name}.callable",
        )
        for name, spec in live.systems.items()
        if spec.callable and not _module_exists(spec.callable)
    ]
    if live.arena and len(systems) < 2:
        problems.append(
            Problem(
                file,
                "live.arena = true needs at least two study.systems; set arena = false for one system",
                key="live.arena",
            )
        )
    return problems


def live_version(settings: LiveSystem, endpoints: Mapping[str, Endpoint] | None = None) -> str | None:
    """A live system's version (infact/study/situations.py, "A system's version"): `endpoint-…` of the endpoint's
    base URL and model, the system prompt and the sampling sent (the system's over its endpoint's; the API key's
    variable name is no part of it), `url-…` of its URL, `callable-…` of its `module:function`. None for an
    endpoint system whose endpoint is not in `endpoints`."""
    if settings.url:
        return version_digest("url", {"url": settings.url})
    if settings.callable:
        return version_digest("callable", {"callable": settings.callable})
    endpoint = (endpoints or {}).get(settings.endpoint or "")
    if endpoint is None:
        return None
    return version_digest(
        "endpoint",
        {
            "base_url": endpoint.base_url,
            "model": endpoint.model,
            "system_prompt": settings.system_prompt,
            "sampling": settings.sampling.over(endpoint.sampling).params(),
        },
    )
