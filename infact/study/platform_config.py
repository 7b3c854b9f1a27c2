"""The `[platform]` and `[prolific]` tables of study.toml: where participants come from, the URL names INFACT
reads, and what `infact prolific …` asks Prolific for (the calls: infact/prolific/, docs/prolific.md).

The behaviour (reading a study link, the completion target) lives in infact/participation/platforms.py;
this module is only the schema and the names, so the study layer can check a study without it.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from infact.text.catalogue import N_

PARAMS: dict[str, list[str]] = {
    "prolific": ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"],
    "mturk": ["workerId", "assignmentId", "hitId"],
}
ID_PARAM = {"prolific": "PROLIFIC_PID", "mturk": "workerId"}
# The platform's second, per-session ID: knowing someone's worker ID is not enough to resume them.
SESSION_PARAM = {"prolific": "SESSION_ID", "mturk": "assignmentId"}
TOKEN_PARAM = "p"  # the app's own participant token, see docs/data-model.md
PROLIFIC_COMPLETE_URL = "https://app.prolific.com/submissions/complete?cc={code}"
MTURK_PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"

GROUP_VALUE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_CODE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_PARAM_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")


class PlatformConfig(BaseModel, extra="forbid"):
    """The `[platform]` table of study.toml."""

    kind: Literal["none", "prolific", "mturk"] = Field(
        "none",
        description="Where participants come from: `prolific`, `mturk`, or `none` (own recruitment, "
        "e.g. a mailing list). Decides which URL parameters are read and what the last page shows.",
    )
    completion_code: str | None = Field(
        None,
        description="Prolific's completion code for this study (required for `prolific`). "
        "Participants are redirected to https://app.prolific.com/submissions/complete?cc=CODE, "
        "only after all their answers are saved.",
    )
    screenout_code: str | None = Field(
        None,
        description="Prolific completion code for participants who are ended early (failed attention "
        'check with `quality.on_attention_fail = "screen_out"`). Create it in Prolific as a second '
        "completion code, e.g. with the 'screen-out' action.",
    )
    require_id: bool = Field(
        False,
        description="Refuse arrivals without the platform's participant id (PROLIFIC_PID or workerId). "
        "Turn on for live studies; leave off to try the study from a plain link.",
    )
    group_param: str = Field(
        "q",
        description="Name of the URL parameter that puts a participant into a group/condition (INFACT used `?q=`).",
    )
    group_values: list[str] | None = Field(
        None,
        description="Allowed values of the group parameter; any other value is refused. "
        "Leave unset to accept any value.",
    )

    @model_validator(mode="after")
    def _check(self) -> PlatformConfig:
        where = (
            "In Prolific, open the study, section 'Study completion': the code is the part after "
            "`cc=` in the completion URL (e.g. C1ABCD23)."
        )
        if self.kind == "prolific" and not self.completion_code:
            raise ValueError(f'platform.completion_code is required when platform.kind = "prolific". {where}')
        for key in ("completion_code", "screenout_code"):
            value = getattr(self, key)
            if value is not None and not _CODE.match(value):
                raise ValueError(f"platform.{key} = {value!r} must be 1-64 letters, digits, '_' or '-'. {where}")
        if not _PARAM_NAME.match(self.group_param):
            raise ValueError(
                f"platform.group_param = {self.group_param!r} must be a plain parameter name "
                "(a letter, then letters, digits or '_'), e.g. \"q\"."
            )
        reserved = {TOKEN_PARAM, *PARAMS["prolific"], *PARAMS["mturk"]}
        if self.group_param in reserved:
            raise ValueError(
                f"platform.group_param = {self.group_param!r} is already used by INFACT or a platform; "
                'choose another name, e.g. "q".'
            )
        if self.group_values is not None:
            if not self.group_values:
                raise ValueError("platform.group_values is empty; list the allowed groups or remove the key.")
            bad = [v for v in self.group_values if not GROUP_VALUE.match(v)]
            if bad:
                raise ValueError(
                    f"platform.group_values {bad} must be 1-64 letters, digits, '_' or '-' (they appear in URLs)."
                )
        return self


# Prolific's rejection categories (API reference, submission transition)
REJECTION_CATEGORIES = (
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_DEVICE",
    "OTHER",
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


class ProlificConfig(BaseModel, extra="forbid"):
    """The `[prolific]` table of study.toml (used only by `infact prolific …`)."""

    token_env: str = Field(
        "PROLIFIC_TOKEN",
        description="Name of the environment variable or Streamlit secret holding the Prolific API token "
        "(the token itself never goes in study.toml, the store or any export).",
    )
    base_url: str = Field(
        "https://api.prolific.com",
        description="Prolific's API address; `--base-url` overrides it (the test stub, docs/prolific.md).",
    )
    study_url: str | None = Field(
        None,
        description="Public address of this INFACT study (the app's URL); Prolific appends PROLIFIC_PID, STUDY_ID "
        "and SESSION_ID to it. Required by `infact prolific create`.",
    )
    name: str | None = Field(None, description="Study name shown on Prolific (default: `[study] title`).")
    description: str | None = Field(
        None, description="Study description shown on Prolific (default: the first paragraph of the welcome text)."
    )
    places: int = Field(10, ge=1, description="Number of participants Prolific recruits (total_available_places).")
    reward_cents: int = Field(
        150, ge=1, description="Reward per submission in the workspace currency's cents (e.g. 150 = £1.50)."
    )
    devices: list[Literal["desktop", "tablet", "mobile"]] = Field(
        default_factory=lambda: ["desktop"], min_length=1, description="Devices participants may use."
    )
    rejection_category: Literal[REJECTION_CATEGORIES] = Field(  # type: ignore[valid-type]
        "FAILED_CHECK",
        description="Category of the rejections `infact prolific review --apply` makes (only where INFACT's rules "
        "call a submission eligible for rejection).",
    )
    bonus_per_completed: float | None = Field(
        None,
        gt=0,
        description="Bonus rule for `infact prolific bonus` without `--csv`: this amount (workspace currency, e.g. "
        "0.50) for every completed participant (per completed conversation in a live-chat study).",
    )

    max_bonus: float = Field(
        10.0,
        gt=0,
        description="Most INFACT pays one participant in bonuses in this study, all reasons together (workspace "
        "currency): a line that would exceed it is refused. Guards against typos (Prolific pays 30 as 30.00).",
    )
    currency: Literal["GBP", "USD"] = Field(
        "GBP",
        description="The workspace currency of `reward_cents` and bonuses; picks Prolific's minimum and "
        "recommended hourly rates when they are not set.",
    )
    min_hourly_reward: float | None = Field(
        None,
        gt=0,
        description="Prolific's minimum pay per hour (default by currency: 6.00 GBP, 8.00 USD; Prolific's "
        "payment principles, docs/prolific.md). The dashboard warns while the study pays less.",
    )
    recommended_hourly_reward: float | None = Field(
        None,
        gt=0,
        description="Prolific's recommended pay per hour (default by currency: 9.00 GBP, 12.00 USD).",
    )
    target_hourly_reward: float | None = Field(
        None,
        gt=0,
        description="The rate `infact prolific bonus --top-up` brings approved participants to "
        "(default: the minimum rate).",
    )

    @model_validator(mode="after")
    def _check(self) -> ProlificConfig:
        if not _ENV_NAME.match(self.token_env):
            raise ValueError(
                f"prolific.token_env = {self.token_env!r} must be an environment variable name "
                '(letters, digits, "_"), e.g. "PROLIFIC_TOKEN" — never the token itself.'
            )
        for key in ("bonus_per_completed", "max_bonus"):
            value = getattr(self, key)
            if value is not None and round(value, 2) != value:
                raise ValueError(
                    f"prolific.{key} = {value!r} has more than two decimals: Prolific pays whole pence/cents; "
                    f"write {value:.2f} or the amount you mean."
                )
        for key in ("base_url", "study_url"):
            value = getattr(self, key)
            if value is not None and not re.match(r"^https?://[^\s{}]+$", value):
                raise ValueError(f"prolific.{key} = {value!r} must be an http(s) address without spaces or braces.")
        return self


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
        if not GROUP_VALUE.match(v):
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
