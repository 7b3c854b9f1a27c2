"""The `[platform]` table of study.toml: where participants come from, and the URL names INFACT reads.

The behaviour (reading a study link, the completion target) lives in infact/participation/platforms.py;
this module is only the schema and the names, so the study layer can check a study without it.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, model_validator

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
