"""The `[quality]` table of study.toml: which participants the analysis keeps, as settings.

The checks themselves live in infact/results/quality/; this is the schema the study layer validates.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from infact.errors import Problem
from infact.study.platform_config import PlatformConfig


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

    block_paste: bool = Field(
        False,
        description="Typed fields (live chat messages, justifications, the arena vote's reason) refuse paste and "
        "drop, and say so under the field; attempts are counted (`blocked_pastes`). Off by default: pasting is "
        "recorded and flagged for review instead (docs/quality.md, 'Typed text').",
    )
    pasted_share: float = Field(
        0.5,
        description="Flag `pasted_text` (for review, never for rejection) when at least this share of a typed "
        "answer's characters came by paste or drop.",
    )
    pasted_min_chars: int = Field(
        20,
        description="Typed answers shorter than this many characters are never flagged `pasted_text` or "
        "`typed_too_fast` (a pasted movie title is not an essay).",
    )
    max_typing_chars_per_second: float = Field(
        15.0,
        description="Flag `typed_too_fast` (for review) when the characters of a typed answer that were not "
        "pasted arrived faster than this, from the first to the last change of the field (15/s is 180 words a "
        "minute, beyond sustained human typing).",
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
        "pasted_share",
    )
    @classmethod
    def _share(cls, v: float, info) -> float:
        if not 0 < v <= 1:
            raise ValueError(f"quality.{info.field_name} = {v} must be a share in (0, 1], e.g. 0.8")
        return v

    @field_validator("max_typing_chars_per_second")
    @classmethod
    def _rate(cls, v: float) -> float:
        if not (v > 0 and math.isfinite(v)):
            raise ValueError(f"quality.max_typing_chars_per_second = {v} must be a number above 0, e.g. 15")
        return v

    @field_validator(
        "straightline_min_situations", "comparison_straightline_min", "annotation_straightline_min", "pasted_min_chars"
    )
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
