"""Between-subjects conditions: `[conditions.NAME]` tables, each an overlay of settings on the base study.

A condition changes part of the study for the participants assigned to it — the systems shown (a subset of
`study.systems`), the texts, the protocol, the scale, the criteria, the questionnaire — and nothing that would
make its answers incomparable with the others' or the assignment unfair (the study's id, its situations, the
assignment, the platform). Each condition's study is the base study.toml with the overlay merged in, validated as
a whole like any study.toml; its errors name `conditions.NAME.field`. Participants are assigned at consent,
balanced by completions (infact/participation/conditions.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from infact.errors import Problem

# What a condition may change: the sections of `Condition` below, or single keys of [study].
STUDY_KEYS = ("systems", "title", "expected_minutes")
NAME = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")  # it appears in the study link as the group parameter's value


_OVERLAY = "the condition's own values, merged into the study's"


class Condition(BaseModel):
    """`[conditions.NAME]`: what one condition changes; each table holds the settings of the study's section of
    the same name (docs/settings.md), merged into the study's and validated with them."""

    # Anything else is refused with what a condition may change (`_shape_problems`), before this model is used.
    model_config = ConfigDict(extra="allow", frozen=True)

    study: dict[str, Any] | None = Field(
        default=None, description="`systems` (a subset of study.systems), `title`, `expected_minutes`."
    )
    texts: dict[str, Any] | None = Field(default=None, description=f"Participant texts: {_OVERLAY}.")
    scale: dict[str, Any] | None = Field(default=None, description=f"The rating scale: {_OVERLAY}.")
    criteria: list[dict[str, Any]] | None = Field(default=None, description="Rated criteria, replacing the study's.")
    attention_check: dict[str, Any] | None = Field(default=None, description=f"The attention check: {_OVERLAY}.")
    questionnaire: dict[str, Any] | None = Field(default=None, description=f"The questionnaire: {_OVERLAY}.")
    demographics: list[dict[str, Any]] | None = Field(
        default=None, description="Demographic questions, replacing the study's."
    )
    protocol: dict[str, Any] | None = Field(default=None, description=f"The protocol: {_OVERLAY}.")
    flow: dict[str, Any] | None = Field(default=None, description=f"The order of step kinds: {_OVERLAY}.")


SECTIONS = tuple(name for name in Condition.model_fields if name != "study")


def changed_settings(overlay, prefix: str = "") -> list[str]:
    """The settings an overlay sets, dotted (texts.instructions, study.systems, …)."""
    if not isinstance(overlay, Mapping):
        return [prefix.rstrip(".")]
    return [key for k, v in overlay.items() for key in changed_settings(v, f"{prefix}{k}.")]


def merged(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict:
    """`base` with `overlay` merged in: tables merged key by key, any other value replaced."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def header_line(text: str, loc: tuple) -> int | None:
    """The line of the first table header at or under the dotted `loc` (`[conditions.a.texts]` for
    ("conditions", "a")), or of `loc`'s own key (`conditions.a.study.id = …` written inline)."""
    dotted = r"\s*\.\s*".join(re.escape(str(p)) for p in loc)
    header = re.compile(r"^\s*\[\[?\s*" + dotted + r"\s*[.\]]")
    for i, line in enumerate(text.splitlines()):
        if header.match(line):
            return i + 1
    return None


def _shape_problems(name: str, overlay: Any, systems: list[str], file: str, line: Callable) -> list[Problem]:
    """What a condition may not change, or changes in a way that cannot work, before validating the whole."""
    where = f"conditions.{name}"
    if not NAME.match(name):
        return [
            Problem(
                file,
                "a condition's name goes into the study link: use 1-64 letters, digits, '_' or '-'",
                line(("conditions", name)),
                where,
            )
        ]
    if not isinstance(overlay, Mapping):
        return [
            Problem(file, "must be a table of settings (`[conditions.NAME.texts]` …)", line(("conditions",)), where)
        ]
    problems = []
    allowed = ", ".join([f"study.{k}" for k in STUDY_KEYS] + list(SECTIONS))
    for key, value in overlay.items():
        if key == "study" and isinstance(value, Mapping):
            for sub in value:
                if sub not in STUDY_KEYS:
                    problems.append(
                        Problem(
                            file,
                            f"a condition cannot change study.{sub}: it may change {allowed}",
                            line(("conditions", name, "study", sub)),
                            f"{where}.study.{sub}",
                        )
                    )
        elif key not in SECTIONS:
            problems.append(
                Problem(
                    file,
                    f"a condition cannot change [{key}]: it may change {allowed}",
                    line(("conditions", name, key)),
                    f"{where}.{key}",
                )
            )
    shown = (overlay.get("study") or {}).get("systems") if isinstance(overlay.get("study"), Mapping) else None
    if isinstance(shown, list):
        unknown = [s for s in shown if s not in systems]
        if unknown:
            problems.append(
                Problem(
                    file,
                    f"systems {unknown} are not in study.systems {systems}: list every system of every "
                    "condition in study.systems (its situations need their responses) and a subset here",
                    line(("conditions", name, "study", "systems")),
                    f"{where}.study.systems",
                )
            )
    return problems


def condition_configs(raw: Mapping[str, Any], file: str, validate: Callable, key_line: Callable, text: str):
    """{name: validated config} for `[conditions.NAME]`, and the problems found (each keyed conditions.NAME.…).

    `validate(data, prefix)` validates one merged study.toml and returns (config, problems) with every problem's
    key and line under `prefix`; `key_line(loc)` finds a key's line in the file `text`."""

    def line(loc: tuple) -> int | None:
        return header_line(text, loc) or (key_line(loc) if len(loc) > 3 else None)

    conditions = raw.get("conditions") or {}
    if not isinstance(conditions, Mapping):
        return {}, [
            Problem(
                file,
                "[conditions] must hold one table per condition: [conditions.NAME]",
                line(("conditions",)),
                "conditions",
            )
        ]
    if len(conditions) == 1:
        return {}, [
            Problem(
                file,
                "a between-subjects design needs at least two conditions: add another "
                "[conditions.NAME] or remove [conditions]",
                line(("conditions",)),
                "conditions",
            )
        ]
    base = {k: v for k, v in raw.items() if k != "conditions"}
    systems = list((base.get("study") or {}).get("systems") or [])
    configs, problems = {}, []
    for name, overlay in conditions.items():
        found = _shape_problems(name, overlay, systems, file, line)
        if found:
            problems += found
            continue
        config, found = validate(merged(base, overlay), ("conditions", name))
        problems += found
        if config is not None:
            configs[name] = config
    return configs, problems
