"""`[monitoring]` in study.toml: the stopping rule, declared before the study (docs/ranking.md, "Watching a study").

A rule written here before the first participant is what makes stopping early honest: the dashboard watches
the anytime-valid sequences (infact/results/monitoring.py), says when the rule is met, and
`infact prolific pause` pauses the Prolific study then, once. The datasheet and the methods paragraph record
the rule as declared in advance (with the study.toml's last change beside the first answer's time).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class MonitoringConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    stop_when_settled: bool = Field(
        default=False,
        description="Stop recruiting once the order of the systems is settled by the anytime-valid intervals "
        "(every two neighbours separated; for ratings, every two neighbours' mean rating difference).",
    )
    precision: float | None = Field(
        default=None,
        gt=0,
        description="Stop once every two neighbours' anytime-valid interval is at most this wide on each side of "
        "its estimate: a difference in share of votes won (e.g. 0.1) for votes, in scale points for ratings.",
    )
    max_participants: int | None = Field(
        default=None,
        ge=1,
        description="Stop at this many participants whatever the intervals say (the budget).",
    )

    @property
    def declared(self) -> bool:
        """Is any stopping rule declared?"""
        return self.stop_when_settled or self.precision is not None or self.max_participants is not None

    def describe(self) -> str:
        """The rule in words, for the datasheet and the methods paragraph."""
        parts = []
        if self.stop_when_settled:
            parts.append("the order of the systems was settled by anytime-valid confidence sequences")
        if self.precision is not None:
            parts.append(f"every neighbouring pair's anytime-valid interval was within ±{self.precision:g}")
        if self.max_participants is not None:
            parts.append(f"{self.max_participants} participants had taken part")
        return "recruiting stops as soon as " + " or ".join(parts) if parts else "no stopping rule declared"
