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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from infact.errors import InfactError, Problem
from infact.participation.codes import (  # noqa: F401 — re-exported: codes used to live here
    CODE_ALPHABET,
    CODE_LENGTH,
    make_participant_code,
    normalize_code,
    verify_codes,
)
from infact.study.platform_config import (
    GROUP_VALUE,
    ID_PARAM,
    MTURK_PREVIEW_ASSIGNMENT,
    PARAMS,
    PROLIFIC_COMPLETE_URL,
    SESSION_PARAM,
    TOKEN_PARAM,
    PlatformConfig,
)
from infact.text.catalogue import N_, _

# Tolerant on purpose: a real id that is merely unusual must not lock a paid worker out.
_PROLIFIC_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")
_PROLIFIC_ID_USUAL = re.compile(r"^[0-9a-f]{24}$")  # what Prolific issues today
_MTURK_ID = re.compile(r"^[A-Z0-9]{1,64}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{1,80}$")  # also a storage shard name

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

    @property
    def session_id(self) -> str | None:
        """Prolific's SESSION_ID or MTurk's assignmentId: the second ID that proves a resume."""
        return self.params.get(SESSION_PARAM.get(self.platform, ""))

    def record_fields(self) -> dict:
        """The fields of the `arrival` record (docs/data-model.md)."""
        return {
            "platform": self.platform,
            "platform_params": dict(self.params),
            "platform_id": self.platform_id,
            "group": self.group,
            "platform_warnings": list(self.warnings),
        }


def same_id(a: str | None, b: str | None) -> bool:
    """Platform IDs that differ only in letter case are the same person."""
    return a is not None and b is not None and a.casefold() == b.casefold()


def may_resume(stored: Mapping, arrival: Arrival) -> bool:
    """May this arrival take over the stored participant with the same platform ID?

    Only with the matching second ID (SESSION_ID / assignmentId): a worker ID
    alone is known to others (shared screenshots, forum posts, the researcher's
    exports) and must not open someone's session, code or withdraw button.
    """
    second = SESSION_PARAM.get(arrival.platform)
    stored_second = (stored.get("platform_params") or {}).get(second) if second else None
    return same_id(stored_second, arrival.session_id)


class IdInUse(InfactError):
    """This platform ID already takes part from another session; nothing is revealed or stored."""

    participant_message = N_(
        "This participant ID already takes part in this study from another session. "
        "Please continue in the browser tab or window where you started; if you opened the study "
        "again from the platform and still see this page, contact the researcher."
    )

    def __init__(self, platform: str):
        super().__init__(Problem("study URL", f"{ID_PARAM.get(platform, 'id')}: already taken part by another session"))


_BROKEN_LINK = N_(
    "This study link seems to be incomplete or damaged. Please open the study again from {where}; "
    "if this keeps happening, contact the researcher."
)


def _where(kind: str) -> str:
    return {"prolific": N_("Prolific"), "mturk": N_("the HIT on Mechanical Turk")}.get(
        kind, N_("the link you were given")
    )


def _single(value: str | list[str] | None) -> str | None:
    # Streamlit gives the last value of a repeated parameter; do the same for lists.
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    return None if value is None else str(value).strip()


def _fail(kind: str, param: str, reason: str) -> PlatformError:
    return PlatformError(_(_BROKEN_LINK).format(where=_(_where(kind))), f"{param}: {reason}", param)


broken_link = _fail  # a link's parameter refused elsewhere (infact/participation/conditions.py): the same message


def _check_value(kind: str, param: str, value: str, pattern: re.Pattern, rule: str) -> None:
    if value == "":
        raise _fail(kind, param, "is empty")
    if "{" in value or "%" in value:
        raise _fail(
            kind,
            param,
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
                _("This personal study link is damaged. Please use the exact link you were given."),
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
        if not GROUP_VALUE.match(group):
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
                None,
                None,
                _("Thank you. This study has ended early for you; please return your submission on Prolific."),
            )
        return Completion(
            code,
            PROLIFIC_COMPLETE_URL.format(code=code),
            _("You will be sent back to Prolific. If that does not happen, enter the code {code} on Prolific.").format(
                code=code
            ),
        )
    mturk = cfg.kind == "mturk"
    if outcome == "screened_out":  # not a completion: the code only shows that this person took part
        text = (
            _(
                "The study has ended early for you. Your participant code is {code}: please enter it in the HIT on "
                "Mechanical Turk, so that your time is recorded."
            )
            if mturk
            else _(
                "The study has ended early for you. Your participant code is {code}: please enter it where the "
                "researcher asks for it, so that your time is recorded."
            )
        )
        return Completion(participant_code, None, text.format(code=participant_code))
    text = (
        _("Your completion code is {code}. Please enter it in the HIT on Mechanical Turk.")
        if mturk
        else _("Your completion code is {code}. Please enter it where the researcher asks for it.")
    )
    return Completion(participant_code, None, text.format(code=participant_code))
