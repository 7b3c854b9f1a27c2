"""Crowdsourcing platforms: the URL handshake on arrival and the code on completion.

Prolific appends `PROLIFIC_PID`, `STUDY_ID` and `SESSION_ID` to the study URL;
MTurk appends `workerId`, `assignmentId` and `hitId`. `capture` validates them
(a broken link must not silently create an anonymous participant) and returns
what the flow stores in the `arrival` record. `completion_target` says what a
participant gets at the end: Prolific's redirect with the study's completion
code, or a per-participant code for MTurk and self-hosted studies, which the
researcher checks with `verify_codes`. See docs/quality.md.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from dataclasses import dataclass, field
from typing import Literal, Mapping

import pandas as pd
import pydantic
from pydantic import BaseModel, Field, model_validator

from infact.errors import ConfigError, InfactError, Problem

PARAMS: dict[str, list[str]] = {
    "prolific": ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"],
    "mturk": ["workerId", "assignmentId", "hitId"],
}
ID_PARAM = {"prolific": "PROLIFIC_PID", "mturk": "workerId"}
TOKEN_PARAM = "p"  # the app's own participant token, see docs/data-model.md
PROLIFIC_COMPLETE_URL = "https://app.prolific.com/submissions/complete?cc={code}"
MTURK_PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"

# Tolerant on purpose: a real id that is merely unusual must not lock a paid worker out.
_PROLIFIC_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")
_PROLIFIC_ID_USUAL = re.compile(r"^[0-9a-f]{24}$")  # what Prolific issues today
_MTURK_ID = re.compile(r"^[A-Z0-9]{1,64}$")
_GROUP = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{1,80}$")  # also a storage shard name
_CODE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_PARAM_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")

# No 0/O, 1/I/L, U: a code read aloud or copied by hand survives.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
CODE_LENGTH = 10


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
        "check with `quality.on_attention_fail = \"screen_out\"`). Create it in Prolific as a second "
        "completion code, e.g. with the 'screen-out' action.",
    )
    require_id: bool = Field(
        False,
        description="Refuse arrivals without the platform's participant id (PROLIFIC_PID or workerId). "
        "Turn on for live studies; leave off to try the study from a plain link.",
    )
    group_param: str = Field(
        "q",
        description="Name of the URL parameter that puts a participant into a group/condition "
        "(INFACT used `?q=`).",
    )
    group_values: list[str] | None = Field(
        None,
        description="Allowed values of the group parameter; any other value is refused. "
        "Leave unset to accept any value.",
    )

    @model_validator(mode="after")
    def _check(self) -> "PlatformConfig":
        where = (
            "In Prolific, open the study, section 'Study completion': the code is the part after "
            "`cc=` in the completion URL (e.g. C1ABCD23)."
        )
        if self.kind == "prolific" and not self.completion_code:
            raise ValueError(f"platform.completion_code is required when platform.kind = \"prolific\". {where}")
        for key in ("completion_code", "screenout_code"):
            value = getattr(self, key)
            if value is not None and not _CODE.match(value):
                raise ValueError(
                    f"platform.{key} = {value!r} must be 1-64 letters, digits, '_' or '-'. {where}"
                )
        if not _PARAM_NAME.match(self.group_param):
            raise ValueError(
                f"platform.group_param = {self.group_param!r} must be a plain parameter name "
                "(a letter, then letters, digits or '_'), e.g. \"q\"."
            )
        reserved = {TOKEN_PARAM, *PARAMS["prolific"], *PARAMS["mturk"]}
        if self.group_param in reserved:
            raise ValueError(
                f"platform.group_param = {self.group_param!r} is already used by INFACT or a platform; "
                "choose another name, e.g. \"q\"."
            )
        if self.group_values is not None:
            if not self.group_values:
                raise ValueError("platform.group_values is empty; list the allowed groups or remove the key.")
            bad = [v for v in self.group_values if not _GROUP.match(v)]
            if bad:
                raise ValueError(
                    f"platform.group_values {bad} must be 1-64 letters, digits, '_' or '-' "
                    "(they appear in URLs)."
                )
        return self


def pydantic_problems(err: pydantic.ValidationError, file: str, section: str) -> list[Problem]:
    """One Problem per pydantic error, keyed like `platform.kind`."""
    problems = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"])
        key = f"{section}.{loc}" if loc else section
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = f"unknown setting {key}; check the spelling (docs/quality.md lists all settings)"
        elif e["type"] == "literal_error":
            msg = f"{key}: {msg}"
        problems.append(Problem(file, msg, key=key))
    return problems


def settings_markdown(model: type[BaseModel], section: str) -> str:
    """The settings table for the docs, generated from the field descriptions."""
    lines = ["| setting | default | meaning |", "|---|---|---|"]
    for name, f in model.model_fields.items():
        default = "(none)" if f.default is None else repr(f.default).replace("'", '"')
        if isinstance(f.default, bool):
            default = str(f.default).lower()
        lines.append(f"| `{section}.{name}` | `{default}` | {f.description} |")
    return "\n".join(lines)


def load_platform(table: Mapping | None, file: str = "study.toml") -> PlatformConfig:
    """Build the config from the `[platform]` table, or raise ConfigError naming the keys."""
    try:
        return PlatformConfig.model_validate(dict(table or {}))
    except pydantic.ValidationError as err:
        raise ConfigError(pydantic_problems(err, file, "platform")) from None


# ---------------------------------------------------------------- arrival


class PlatformError(InfactError):
    """A study link with missing or malformed platform parameters.

    `participant_message` is safe to show; `reason` is for logs and the researcher.
    """

    def __init__(self, participant_message: str, reason: str, param: str | None = None):
        self.participant_message = participant_message
        self.reason = reason
        self.param = param
        super().__init__(Problem("study URL", reason, key=param))


@dataclass
class Arrival:
    platform: str
    params: dict[str, str] = field(default_factory=dict)
    platform_id: str | None = None
    group: str | None = None
    token: str | None = None  # ?p=, the app's own participant token
    mturk_preview: bool = False  # HIT preview: the worker has not accepted it yet
    warnings: list[str] = field(default_factory=list)  # unusual but accepted values

    def record_fields(self) -> dict:
        """The fields of the `arrival` record (docs/data-model.md)."""
        return {
            "platform": self.platform,
            "platform_params": dict(self.params),
            "platform_id": self.platform_id,
            "group": self.group,
        }


_BROKEN_LINK = (
    "This study link seems to be incomplete or damaged. Please open the study again from {where}; "
    "if this keeps happening, contact the researcher."
)


def _where(kind: str) -> str:
    return {"prolific": "Prolific", "mturk": "the HIT on Mechanical Turk"}.get(kind, "the link you were given")


def _single(value: str | list[str] | None) -> str | None:
    # Streamlit gives the last value of a repeated parameter; do the same for lists.
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    return None if value is None else str(value).strip()


def _fail(kind: str, param: str, reason: str) -> PlatformError:
    return PlatformError(_BROKEN_LINK.format(where=_where(kind)), f"{param}: {reason}", param)


def _check_value(kind: str, param: str, value: str, pattern: re.Pattern, rule: str) -> None:
    if value == "":
        raise _fail(kind, param, "is empty")
    if "{" in value or "%" in value:
        raise _fail(
            kind, param,
            f"is the unfilled placeholder {value!r}: the link was opened outside {_where(kind)}, "
            "or the study URL there is mistyped",
        )
    if len(value) > 64:
        raise _fail(kind, param, f"is {len(value)} characters long (at most 64 expected)")
    if not pattern.match(value):
        raise _fail(kind, param, f"{value!r} is not {rule}")


def capture(query: Mapping[str, str | list[str]], cfg: PlatformConfig) -> Arrival:
    """Read and validate the platform parameters of a study URL.

    Only the platform's own parameters, the group parameter and the token `p`
    are kept; anything else in the URL is ignored and never stored.
    """
    kind = cfg.kind
    arrival = Arrival(platform=kind)

    token = _single(query.get(TOKEN_PARAM))
    if token:
        if not _TOKEN.match(token):
            raise PlatformError(
                "This personal study link is damaged. Please use the exact link you were given.",
                f"{TOKEN_PARAM}: {token[:100]!r} is not 1-80 letters, digits, '_' or '-'",
                TOKEN_PARAM,
            )
        arrival.token = token

    if kind == "prolific":
        for name in PARAMS["prolific"]:
            value = _single(query.get(name))
            if value is None:
                continue
            _check_value(kind, name, value, _PROLIFIC_ID, "letters and digits only")
            if not _PROLIFIC_ID_USUAL.match(value):
                arrival.warnings.append(f"{name} {value!r} is not the usual 24-character Prolific id")
            arrival.params[name] = value
    elif kind == "mturk":
        for name in PARAMS["mturk"]:
            value = _single(query.get(name))
            if value is None:
                continue
            if name == "assignmentId" and value == MTURK_PREVIEW_ASSIGNMENT:
                arrival.mturk_preview = True
            else:
                _check_value(kind, name, value, _MTURK_ID, "upper-case letters and digits only")
            arrival.params[name] = value

    if kind in ID_PARAM:
        arrival.platform_id = arrival.params.get(ID_PARAM[kind])
        # A HIT preview never carries a workerId, so it cannot be refused for lacking one.
        if cfg.require_id and arrival.platform_id is None and not arrival.mturk_preview:
            raise _fail(kind, ID_PARAM[kind], "is missing and platform.require_id is on")

    group = _single(query.get(cfg.group_param))
    if group:
        if not _GROUP.match(group):
            raise _fail(kind, cfg.group_param, f"{group[:100]!r} is not 1-64 letters, digits, '_' or '-'")
        if cfg.group_values is not None and group not in cfg.group_values:
            raise _fail(kind, cfg.group_param, f"{group!r} is not one of platform.group_values {cfg.group_values}")
        arrival.group = group
    return arrival


# ---------------------------------------------------------------- completion


@dataclass(frozen=True)
class Completion:
    code: str | None  # what the participant sees (and may need to copy)
    redirect_url: str | None  # where to send the browser, if anywhere
    text: str  # one-line instruction for the last page


def completion_target(
    cfg: PlatformConfig, outcome: Literal["completed", "screened_out"], participant_code: str
) -> Completion:
    """What to show (and where to redirect) once all of a participant's data is saved."""
    if outcome not in ("completed", "screened_out"):
        raise ValueError(f"outcome must be 'completed' or 'screened_out', not {outcome!r}")
    if cfg.kind == "prolific":
        code = cfg.completion_code if outcome == "completed" else cfg.screenout_code
        if code is None:
            # No screen-out code configured: Prolific's way out is returning the submission.
            return Completion(
                None, None,
                "Thank you. This study has ended early for you; please return your submission on Prolific.",
            )
        return Completion(
            code,
            PROLIFIC_COMPLETE_URL.format(code=code),
            f"You will be sent back to Prolific. If that does not happen, enter the code {code} on Prolific.",
        )
    where = "in the HIT on Mechanical Turk" if cfg.kind == "mturk" else "where the researcher asks for it"
    return Completion(
        participant_code, None, f"Your completion code is {participant_code}. Please enter it {where}."
    )


def make_participant_code(rng_or_secret: str | bytes | random.Random, participant: str) -> str:
    """A hard-to-guess code like "ABCD-EFGH-JK" (~49 bits).

    With a secret (str/bytes) the code is an HMAC of the participant token, so
    it is the same on every rerun and can be recomputed; with a Random it is drawn.
    """
    if isinstance(rng_or_secret, random.Random):
        chars = [rng_or_secret.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)]
    else:
        secret = rng_or_secret.encode() if isinstance(rng_or_secret, str) else bytes(rng_or_secret)
        if not secret:
            raise ValueError("make_participant_code needs a non-empty secret")
        n = int.from_bytes(hmac.new(secret, participant.encode(), hashlib.sha256).digest(), "big")
        chars = []
        for _ in range(CODE_LENGTH):
            n, i = divmod(n, len(CODE_ALPHABET))
            chars.append(CODE_ALPHABET[i])
    s = "".join(chars)
    return f"{s[:4]}-{s[4:8]}-{s[8:]}"


def normalize_code(code: str) -> str:
    """Upper-case, without spaces and dashes: how workers actually paste codes."""
    return re.sub(r"[\s\-_]", "", str(code)).upper()


def verify_codes(codes: list[str], participants: pd.DataFrame) -> pd.DataFrame:
    """Check codes submitted on MTurk (or elsewhere) against the stored completions.

    One row per submitted code: `submitted, matched, participant, status,
    platform_id, duplicate` (the same code submitted more than once).
    """
    stored: dict[str, dict] = {}
    if len(participants):
        done = participants[participants["status"].isin(["completed", "screened_out"])]
        if "preview" in done:
            done = done[~done["preview"].fillna(False).astype(bool)]
        for row in done.to_dict("records"):
            if isinstance(row.get("completion_code"), str) and row["completion_code"]:
                stored[normalize_code(row["completion_code"])] = row
    counts: dict[str, int] = {}
    for c in codes:
        counts[normalize_code(c)] = counts.get(normalize_code(c), 0) + 1
    rows = []
    for c in codes:
        hit = stored.get(normalize_code(c))
        rows.append({
            "submitted": c,
            "matched": hit is not None,
            "participant": hit["participant"] if hit else None,
            "status": hit["status"] if hit else None,
            "platform_id": hit.get("platform_id") if hit else None,
            "duplicate": counts[normalize_code(c)] > 1,
        })
    return pd.DataFrame(rows, columns=["submitted", "matched", "participant", "status", "platform_id", "duplicate"])
