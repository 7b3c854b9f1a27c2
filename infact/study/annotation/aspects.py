"""`[[aspects]]` in study.toml: what a conversation study asks about each system turn and the whole dialog.

A conversation study (`[protocol] kind = "conversation"`, docs/protocols.md) shows one system's whole
conversation; under each system turn the participant answers the `level = "turn"` aspects, after the
last turn the `level = "dialogue"` aspects. Every aspect has its own labelled scale, lowest first, and
its own number of points; `first` is the value of the lowest label (0 for CRSArena-Eval's 0–3, 0–2
and 0–4 scales), so stored values are the scale's own numbers, not positions.

    [[aspects]]
    id = "relevance"
    level = "turn"
    question = "How relevant is this response to what the user asked?"
    labels = ["0 Not relevant", "1 Somewhat", "2 Relevant", "3 Very relevant"]
    first = 0
    tolerance = 1      # a gold conversation's answer may differ by this much and still pass
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from infact.values import LETTER_ID, identifier

LEVELS = ("turn", "dialogue")


class Aspect(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="Aspect identifier used in annotations.csv and the aggregated JSON (e.g. `relevance`).")
    level: Literal["turn", "dialogue"] = Field(
        description="`turn`: asked under every system turn; `dialogue`: asked once, after the last turn."
    )
    question: str = Field(min_length=1, description="Question shown with the aspect's scale (Markdown).")
    labels: list[str] = Field(
        min_length=2,
        max_length=11,
        description="Labels of the aspect's scale, lowest first; their number is its number of points.",
    )
    first: int = Field(
        default=1,
        ge=0,
        le=1,
        description="Value of the lowest label: 1 (a 1–k scale) or 0 (a zero-based scale such as CRSArena-Eval's 0–3).",
    )
    tolerance: float = Field(
        default=1, ge=0, description="Gold conversations: an answer within this many points of the gold answer passes."
    )

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        return identifier(
            v, "use letters, digits, '-' or '_', starting with a letter (it becomes a column value)", LETTER_ID
        )

    @model_validator(mode="after")
    def _unique_labels(self):
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"aspect '{self.id}': labels must be unique")
        return self

    @property
    def values(self) -> list[int]:
        return list(range(self.first, self.first + len(self.labels)))

    @property
    def lowest(self) -> int:
        return self.first

    @property
    def highest(self) -> int:
        return self.first + len(self.labels) - 1

    def value_of(self, answer: Any) -> int | None:
        """The stored value of a label as a participant or bot gives it (or of an already numeric value)."""
        if isinstance(answer, bool):
            return None
        if isinstance(answer, int) and self.lowest <= answer <= self.highest:
            return answer
        if isinstance(answer, str) and answer in self.labels:
            return self.first + self.labels.index(answer)
        return None

    def label_of(self, value: Any) -> str | None:
        try:
            v = int(value)
        except (TypeError, ValueError):
            return None
        return self.labels[v - self.first] if self.lowest <= v <= self.highest else None


def of_level(aspects: Sequence[Aspect], level: str) -> list[Aspect]:
    return [a for a in aspects if a.level == level]


def crs_arena_eval_aspects() -> list[Aspect]:
    """CRSArena-Eval's aspects (Joko & Hasibi): relevance 0–3 and interestingness 0–2 per turn; five
    dialogue aspects 0–4. Used by `import annotated` when a file carries no study.toml."""
    five = ["0", "1", "2", "3", "4"]
    return [
        Aspect(id="relevance", level="turn", question="Relevance", labels=["0", "1", "2", "3"], first=0),
        Aspect(id="interestingness", level="turn", question="Interestingness", labels=["0", "1", "2"], first=0),
        *(
            Aspect(id=a, level="dialogue", question=a.replace("_", " ").capitalize(), labels=five, first=0)
            for a in ("understanding", "task_completion", "interest_arousal", "efficiency", "overall_impression")
        ),
    ]


def check_conversation_settings(cfg) -> None:
    """The study.toml settings a conversation study needs (unique aspects, a gold conversation for attention)."""
    ids = [a.id for a in cfg.aspects]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"aspects: ids must be unique; repeated: {', '.join(dupes)}")
    if cfg.protocol.kind != "conversation":
        return
    if not cfg.aspects:
        raise ValueError(
            'aspects: protocol.kind = "conversation" needs at least one [[aspects]] (id, level = '
            '"turn" or "dialogue", question, labels): see docs/protocols.md'
        )
    if cfg.attention_check.enabled:
        raise ValueError(
            "attention_check.enabled: a conversation study checks attention with a gold conversation "
            '([protocol] gold = "gold.jsonl"): set attention_check.enabled = false'
        )
    if cfg.protocol.gold and cfg.study.situations_per_participant < 2:
        raise ValueError("study.situations_per_participant must be at least 2 with a gold conversation (it counts it)")
