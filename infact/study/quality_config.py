"""The `[quality]` table of study.toml: which participants the analysis keeps, as settings; and the
`[comprehension]` table: the optional comprehension check after consent (at the end of this module).

The checks themselves live in infact/results/quality/; this is the schema the study layer validates.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from infact.errors import Problem
from infact.study.platform_config import GROUP_VALUE as ID_PATTERN
from infact.study.platform_config import PlatformConfig
from infact.text.catalogue import N_


class QualityConfig(BaseModel, extra="forbid"):
    """The `[quality]` table of study.toml."""

    on_attention_fail: Literal["continue", "screen_out"] = Field(
        "continue",
        description="After a failed attention check: `continue` the study and exclude the participant "
        "afterwards (INFACT's original behaviour), or `screen_out`: end the study at once and show the "
        "screen-out code (Prolific: `platform.screenout_code`).",
    )
    rsi_threshold: float = Field(
        2.0,
        description="Relative speed index above which a participant is a speeder. RSI = mean over pages "
        "of (median page time of all participants / this participant's page time); 2 means twice as "
        "fast as typical. Leiner (2019) suggests 2.0.",
    )
    min_total_fraction_of_median: float = Field(
        0.3,
        description="Flag completed participants whose total time is below this fraction of the median "
        "total time (0 turns the check off).",
    )
    straightline_share: float = Field(
        0.8,
        description="Flag a straight-liner when, in at least this share of situations, every response "
        "got the same rating (per criterion). Attention-check situations are not counted.",
    )
    straightline_min_situations: int = Field(
        3,
        description="Minimum number of rated situations (with two or more responses) before the "
        "straight-lining check applies.",
    )
    comparison_straightline_share: float = Field(
        1.0,
        description="Pairwise and best–worst studies: flag a participant whose picks fall on the same "
        'display position (always the left response, always the right, always "about the same"; '
        "always the N-th shown as best) in at least this share of their compared situations. Sides are "
        "shuffled per situation, so an honest participant picks both: at 1.0 and 7 comparisons one whose "
        "choices have nothing to do with the side is flagged with probability 2/128 (1.6%).",
    )
    comparison_straightline_min: int = Field(
        7,
        description="Minimum number of compared situations (attention check not counted) before the "
        "comparison straight-lining check applies.",
    )
    annotation_straightline_share: float = Field(
        1.0,
        description="Conversation annotation: flag a participant who gave every turn of a conversation the "
        "same answer (per turn-level aspect) in at least this share of their annotated conversations (the "
        "gold conversation not counted). A good system's turns may deserve the same answer, so the default "
        "asks for every conversation.",
    )
    annotation_straightline_min: int = Field(
        3,
        description="Minimum number of annotated conversations (with two or more annotated turns counted "
        "as uniform or not) before the annotation straight-lining check applies.",
    )
    min_situation_seconds: float = Field(
        3.0,
        description="A situation answered faster than this many seconds is implausibly fast "
        "(reading a dialog and rating responses takes longer).",
    )
    max_fast_situations_share: float = Field(
        0.5,
        description="Flag a participant when more than this share of their situations were implausibly fast.",
    )
    min_study_minutes_for_rejection: float = Field(
        5.0,
        description="Prolific's rule: in studies this long or longer, a submission may be rejected only "
        "after two failed attention checks; in shorter ones after one.",
    )
    include_incomplete: bool = Field(
        False,
        description="Use the ratings of participants who have not finished (still in progress or "
        "abandoned). Off by default: an unfinished session is flagged `incomplete` and left out of "
        "the analysis; the ratings still count for coverage.",
    )
    prolific_excluded_action: Literal["approve", "ask_to_return"] = Field(
        "approve",
        description="What to recommend on Prolific for excluded participants who are not eligible for "
        "rejection: `approve` (pay, drop the data) or `ask_to_return` (message them asking to return "
        "the submission; approve if they decline).",
    )

    @field_validator("rsi_threshold")
    @classmethod
    def _rsi(cls, v: float) -> float:
        if not v > 1:
            raise ValueError(f"quality.rsi_threshold = {v} must be above 1 (1 = median speed); Leiner (2019) uses 2.0")
        return v

    @field_validator("min_total_fraction_of_median")
    @classmethod
    def _total(cls, v: float) -> float:
        if not 0 <= v < 1:
            raise ValueError(f"quality.min_total_fraction_of_median = {v} must be in [0, 1), e.g. 0.3; 0 turns it off")
        return v

    @field_validator(
        "straightline_share",
        "max_fast_situations_share",
        "comparison_straightline_share",
        "annotation_straightline_share",
    )
    @classmethod
    def _share(cls, v: float, info) -> float:
        if not 0 < v <= 1:
            raise ValueError(f"quality.{info.field_name} = {v} must be a share in (0, 1], e.g. 0.8")
        return v

    @field_validator("straightline_min_situations", "comparison_straightline_min", "annotation_straightline_min")
    @classmethod
    def _min_sit(cls, v: int, info) -> int:
        if v < 1:
            raise ValueError(f"quality.{info.field_name} = {v} must be at least 1")
        return v

    @field_validator("min_situation_seconds", "min_study_minutes_for_rejection")
    @classmethod
    def _nonneg(cls, v: float, info) -> float:
        if not (v >= 0 and math.isfinite(v)):
            raise ValueError(f"quality.{info.field_name} = {v} must be a number >= 0")
        return v


def cross_check(platform: PlatformConfig, quality: QualityConfig, file: str = "study.toml") -> list[Problem]:
    """Problems that involve both tables (the loader should add them to its list)."""
    if quality.on_attention_fail == "screen_out" and platform.kind == "prolific" and not platform.screenout_code:
        return [
            Problem(
                file,
                'quality.on_attention_fail = "screen_out" on Prolific needs platform.screenout_code: add a '
                "second completion code in Prolific (e.g. with the 'screen-out' action) and put it here, or "
                'set on_attention_fail = "continue"',
                key="platform.screenout_code",
            )
        ]
    return []


# Cross-checks StudyConfig runs once its sections are read (infact/study/config.py): the attention check and the
# questionnaire's instructed item against the study's situations and scales, and ids unique per list.
def situation_checks(cfg) -> None:
    """Situations per participant against live chats and the attention check."""
    n = cfg.study.situations_per_participant
    ac = cfg.attention_check
    if n == 0 and not cfg.live.systems:
        raise ValueError(
            "study.situations_per_participant = 0 leaves nothing to do: rate at least one situation, or add live "
            "chats ([live.systems], docs/live.md)"
        )
    if n == 0 and ac.enabled:
        raise ValueError(
            "study.situations_per_participant = 0 (live chats only) has no situation for the attention check: set "
            "attention_check.enabled = false"
        )
    if ac.enabled:
        lo, hi = ac.positions
        if not (1 <= lo <= hi <= n):
            raise ValueError(
                f"attention_check.positions = [{lo}, {hi}] must satisfy 1 <= first <= second <= "
                f"study.situations_per_participant ({n})"
            )
        unknown = [e for e in ac.expected if e not in cfg.scale.labels]
        if unknown:
            raise ValueError(f"attention_check.expected {unknown} must be labels of [scale] labels: {cfg.scale.labels}")
        if n < 2:
            raise ValueError("study.situations_per_participant must be at least 2 when the attention check is enabled")


def item_checks(cfg) -> None:
    """Questionnaire answers that exist on its scale, and ids that are unique per list."""
    for item in cfg.questionnaire.items:
        if item.expected is not None and item.expected not in cfg.questionnaire.scale:
            raise ValueError(
                f"questionnaire item '{item.id}': expected = {item.expected!r} is not one of questionnaire.scale "
                f"{cfg.questionnaire.scale}"
            )
    for name, ids in (
        ("criteria", [c.id for c in cfg.criteria]),
        ("questionnaire.items", [i.id for i in cfg.questionnaire.items]),
        ("demographics", [d.id for d in cfg.demographics]),
    ):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"{name}: ids must be unique; repeated: {', '.join(dupes)}")


# `[monitoring]`: the stopping rule, declared before the study (docs/ranking.md, "Watching a study"). Written here
# before the first participant, it is what makes stopping early honest: the dashboard watches the anytime-valid
# sequences (infact/results/monitoring/sequences.py) and says when the rule is met, `infact prolific pause` pauses the
# Prolific study then (once), and the datasheet and methods paragraph record the rule as declared in advance.
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


# ---------------------------------------------------------------- [comprehension]
# The `[comprehension]` table of study.toml: an optional comprehension check at the start, by Prolific's rules.
#
# Prolific's attention and comprehension check policy (researcher-help.prolific.com, article fb63bb) allows a
# comprehension check that tests whether participants understood the task's instructions, at the start of the
# study, with at least two chances to answer it. Who fails it is not rejected: they are screened out at once
# and asked to return the submission (or sent off with the screen-out code). INFACT gives exactly two attempts
# (`ATTEMPTS`); the step lives in infact/participation/steps/comprehension.py.
#
#     [comprehension]
#     enabled = true
#     [[comprehension.questions]]
#     id = "task"
#     text = "What will you do in this study?"
#     options = ["Rate chatbot responses", "Write stories", "Chat with other participants"]
#     answer = "Rate chatbot responses"

ATTEMPTS = 2  # Prolific: "at least two chances"; the issue: "at most two attempts"


class ComprehensionQuestion(BaseModel, extra="forbid"):
    id: str = Field(description="Short id (letters, digits, '_' or '-'): the answer's key in the export.")
    text: str = Field(description="The question about the instructions (plain text).")
    options: list[str] = Field(min_length=2, description="The choices, shown in this order.")
    answer: str = Field(description="The one correct choice: one of `options`.")

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ID_PATTERN.match(v):
            raise ValueError(f"comprehension question id {v!r} must be 1-64 letters, digits, '_' or '-'")
        return v

    @model_validator(mode="after")
    def _answer(self):
        if self.answer not in self.options:
            raise ValueError(
                f"comprehension question '{self.id}': answer = {self.answer!r} is not one of its options {self.options}"
            )
        if len(set(self.options)) < len(self.options):
            raise ValueError(f"comprehension question '{self.id}': its options repeat a choice")
        return self


class ComprehensionConfig(BaseModel, extra="forbid"):
    """The `[comprehension]` table of study.toml."""

    enabled: bool = Field(
        False,
        description="Ask the comprehension questions right after consent, with two attempts (Prolific's rule). "
        "Who fails both is screened out at once: the screen-out code (`platform.screenout_code`) or a request "
        "to return the submission; `infact prolific review` asks them to return, never rejects them.",
    )
    intro: str = Field(
        N_("Before you start, please answer a few questions about the instructions above. You have two attempts."),
        description="Shown above the questions (Markdown).",
    )
    retry: str = Field(
        N_(
            "Some answers were not right. Please read the instructions again and answer once more: this is your "
            "last attempt."
        ),
        description="Shown above the questions on the second attempt (plain text).",
    )
    questions: list[ComprehensionQuestion] = Field(
        default_factory=list,
        description="`[[comprehension.questions]]`: id, text, options and the correct answer; at least one "
        "when enabled.",
    )

    @model_validator(mode="after")
    def _questions(self):
        if self.enabled and not self.questions:
            raise ValueError(
                "comprehension.enabled = true needs at least one [[comprehension.questions]] (id, text, options, "
                "answer), or set comprehension.enabled = false"
            )
        ids = [q.id for q in self.questions]
        if dupes := sorted({i for i in ids if ids.count(i) > 1}):
            raise ValueError(f"comprehension.questions: ids must be unique; repeated: {', '.join(dupes)}")
        return self


def comprehension_problem(cfg) -> str | None:
    """What is impossible about the check and `[flow] steps` together (a message starting with the key), or None."""
    steps = cfg.flow.steps
    if not cfg.comprehension.enabled or steps is None:
        return None
    if "comprehension" not in steps or steps.index("comprehension") != 1:
        return (
            'flow.steps: with comprehension.enabled, "comprehension" must come right after "consent" (Prolific: '
            "a comprehension check belongs at the start, before any task)"
        )
    return None
