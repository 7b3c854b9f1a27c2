"""The `[quality]` table of study.toml: which participants the analysis keeps, as settings; the `[monitoring]`
table (the stopping rule); and the checks of
study.toml across its sections (the attention check against the situations and scale, the protocol against the
systems, …), each yielding every problem it finds so one `validate` lists them all.

The quality checks of participants live in infact/results/quality/; this is the schema the study layer validates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from infact.errors import Problem
from infact.study.annotation.aspects import check_conversation_settings
from infact.study.endpoints import check_name
from infact.study.platform_config import PlatformConfig, comprehension_problem
from infact.study.protocol_config import PAIRWISE_KINDS, QUESTIONNAIRES, blocks_of, flow_problem


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
# questionnaire's instructed item against the study's situations and scales, and ids unique per list. Each yields
# every problem it finds (`validate` lists them all in one run), and a message about a value the researcher never
# wrote says it is the default, and what to write instead.
def default_note(section, name: str) -> str:
    """' (the default: not in study.toml)' when `name` of `section` was not written."""
    return "" if name in section.model_fields_set else " (the default: not in study.toml)"


def situation_checks(cfg):
    """Situations per participant against live chats and the attention check."""
    n = cfg.study.situations_per_participant
    n_text = f"study.situations_per_participant = {n}{default_note(cfg.study, 'situations_per_participant')}"
    ac = cfg.attention_check
    if n == 0 and not cfg.live.systems:
        yield (
            f"{n_text} leaves nothing to do: rate at least one situation, or add live chats ([live.systems], "
            "docs/live.md)"
        )
    if n == 0 and ac.enabled:
        yield (
            f"{n_text} (live chats only) has no situation for the attention check: set attention_check.enabled = false"
        )
    if not ac.enabled:
        return
    lo, hi = ac.positions
    if n >= 1 and not (1 <= lo <= hi <= n):
        top = min(hi, n)
        fit = [max(1, min(lo, top)), top]
        yield (
            f"attention_check.positions = [{lo}, {hi}]{default_note(ac, 'positions')} must satisfy 1 <= first <= "
            f"second <= study.situations_per_participant ({n}{default_note(cfg.study, 'situations_per_participant')})"
            f": set attention_check.positions = {fit}"
        )
    unknown = [e for e in ac.expected if e not in cfg.scale.labels]
    if unknown:
        label = cfg.scale.labels[1] if len(cfg.scale.labels) > 2 else cfg.scale.labels[0]
        text = (
            ""
            if "text" in ac.model_fields_set
            else f' and attention_check.text to ask for it (the default text asks for "{ac.expected[0]}")'
        )
        yield (
            f"attention_check.expected {unknown}{default_note(ac, 'expected')} must be labels of [scale] labels "
            f'{cfg.scale.labels}: set attention_check.expected = ["{label}"]{text}'
        )
    if n == 1:
        yield f"{n_text} must be at least 2 with the attention check enabled (or set attention_check.enabled = false)"


def _protocol_items(cfg) -> bool:
    """The questionnaire items are the ones a comparison protocol fills in (protocol_config.fill_defaults)."""
    own = QUESTIONNAIRES.get(cfg.protocol.kind)
    return own is not None and [(i.id, i.text, i.expected) for i in cfg.questionnaire.items] == list(own)


def item_checks(cfg):
    """Questionnaire answers that exist on its scale, and ids that are unique per list."""
    q = cfg.questionnaire
    written = "items" in q.model_fields_set and not _protocol_items(cfg)
    for item in q.items:
        if item.expected is not None and item.expected not in q.scale:
            note = "" if written else " (of the default questionnaire: not in study.toml)"
            yield (
                f"questionnaire item '{item.id}'{note}: expected = {item.expected!r} is not one "
                f"of questionnaire.scale {q.scale}{default_note(q, 'scale')}: set expected = {q.scale[-1]!r}"
            )
    for name, ids in (
        ("criteria", [c.id for c in cfg.criteria]),
        ("questionnaire.items", [i.id for i in cfg.questionnaire.items]),
        ("demographics", [d.id for d in cfg.demographics]),
    ):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            yield f"{name}: ids must be unique; repeated: {', '.join(dupes)}"


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
        description="Stop at this many participants whatever the intervals say (the budget). Declared in advance, it "
        "also makes 'settled' use a finite-horizon boundary valid up to this maximum, which settles with fewer votes "
        "than the open-ended sequences: declare what a power analysis gives × 1.06–1.13 (docs/ranking.md).",
    )

    @property
    def declared(self) -> bool:
        """Is any stopping rule declared?"""
        return self.stop_when_settled or self.precision is not None or self.max_participants is not None

    def describe(self) -> str:
        """The rule in words, for the datasheet and the methods paragraph."""
        parts = []
        if self.stop_when_settled and self.max_participants is not None:
            parts.append("the order of the systems was settled within the declared maximum (a finite-horizon boundary)")
        elif self.stop_when_settled:
            parts.append("the order of the systems was settled by anytime-valid confidence sequences")
        if self.precision is not None:
            parts.append(f"every neighbouring pair's anytime-valid interval was within ±{self.precision:g}")
        if self.max_participants is not None:
            parts.append(f"{self.max_participants} participants had taken part")
        return "recruiting stops as soon as " + " or ".join(parts) if parts else "no stopping rule declared"


# ---------------------------------------------------------------- every check across sections, at once
# `study_checks(cfg)` runs them all on a whole StudyConfig (its after-validator) and raises one `CrossProblems`
# holding every message; infact/study/toml_config.py runs the same `messages` on the sections that validated
# when others did not (a check meeting a key that did not validate raises Unknown and is skipped).


class CrossProblems(ValueError):
    """Every cross-section problem of a study.toml: one message each, starting with the key it is about."""

    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("; ".join(messages))


class Unknown(Exception):
    """A check asked for a section or a key that did not validate: the check is skipped."""


def _protocol_checks(cfg) -> Iterator[str]:
    kind = cfg.protocol.kind
    if kind in PAIRWISE_KINDS and len(cfg.study.systems) < 2:
        yield f'protocol.kind = "{kind}" needs at least 2 systems in study.systems'
    if kind == "pairwise_dialog" and cfg.sampling.stratify:
        yield (
            "sampling.stratify needs cut points in a dialog; a pairwise_dialog study compares whole "
            "conversations: remove sampling.stratify"
        )
    need = max(3, cfg.protocol.set_size or 3)
    if kind == "best_worst" and len(cfg.study.systems) < need:
        yield f'protocol.kind = "best_worst" needs at least {need} systems in study.systems (protocol.set_size)'


def _name_checks(cfg) -> Iterator[str]:
    for section, names in (("endpoints", cfg.endpoints), ("judges", cfg.judges)):
        for name in names:
            if (problem := check_name(name)) is not None:
                yield f"{section}.{name}: {problem}"


def _conversation_checks(cfg) -> Iterator[str]:
    try:
        check_conversation_settings(cfg)
    except ValueError as exc:
        yield str(exc)


def _flow_checks(cfg) -> Iterator[str]:
    if (problem := flow_problem(cfg.flow.steps, cfg.protocol.kind) or comprehension_problem(cfg)) is not None:
        yield problem
        return
    blocks = blocks_of(cfg.flow.steps, cfg.protocol.kind)
    if unknown := sorted(set(cfg.texts.blocks) - set(blocks)):
        yield f"texts.blocks.{unknown[0]}: not a block of this study; its blocks are {list(blocks)}"


CHECKS: tuple[Callable[[Any], Iterable[str]], ...] = (
    situation_checks,
    _protocol_checks,
    _name_checks,
    _conversation_checks,
    _flow_checks,
    item_checks,
)


def messages(cfg) -> list[str]:
    """Every check's messages; a check that meets a section or key that did not validate is skipped."""
    found: list[str] = []
    for check in CHECKS:
        try:
            found.extend(check(cfg))
        except Unknown:
            continue
    return found


def study_checks(cfg) -> None:
    if found := messages(cfg):
        raise CrossProblems(found)
