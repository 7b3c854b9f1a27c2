"""study.toml read into a checked `StudyConfig`, every error named by file, line and fix.

`parse_config(text, file)` and `load_config(folder)` (re-exported by infact.study.loader). Field errors, every
cross-section problem (infact/study/quality_config.py) and the checks across platform, quality and live systems
are listed together, so one `validate` shows them all; when some sections fail, the cross checks still run on
the sections that validated.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from infact.errors import ConfigError, Problem
from infact.study.config import StudyConfig
from infact.study.live_config import check_systems
from infact.study.protocol_config import fill_defaults
from infact.study.quality_config import CrossProblems, Unknown, cross_check, messages


def _line_of(text: str, loc: tuple) -> int | None:
    """Best-effort line number of a dotted key in TOML source (for file:line errors)."""
    lines = text.splitlines()
    section = [str(p) for p in loc if not isinstance(p, int)]
    if not section:
        return None
    # The last named part as a key, searched after the header of its table.
    key = section[-1]
    header_re = (
        re.compile(r"^\s*\[\[?\s*" + re.escape(".".join(section[:-1])) + r"\s*\]\]?\s*$") if len(section) > 1 else None
    )
    start = 0
    if header_re:
        start = next((i for i, line in enumerate(lines) if header_re.match(line)), None)
    key_re = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
    for i in range(len(lines) if start is None else start, len(lines)):  # a table never written: no key line
        if key_re.match(lines[i]):
            return i + 1
    table_re = re.compile(r"^\s*\[\[?\s*" + re.escape(".".join(section)) + r"\s*\]\]?\s*$")
    for i, line in enumerate(lines):
        if table_re.match(line):
            return i + 1
    return start + 1 if header_re and start is not None else None


line_of = _line_of  # for the other checks of the study layer (text_checks)


def _fix_for(err: dict, model_keys: list[str]) -> str:
    typ = err["type"]
    loc = err["loc"]
    if typ == "extra_forbidden":
        close = difflib.get_close_matches(str(loc[-1]), model_keys, n=1)
        hint = f" — did you mean '{close[0]}'?" if close else ""
        return f"unknown setting{hint} Remove it or check the spelling (see the settings reference in the README)."
    if typ == "missing":
        what = _description(loc)
        return (
            "required setting is missing: add it"
            + (f": {what.rstrip('.')}" if what else "")
            + " (see docs/settings.md; `infact new DIR` writes a study with every required setting)."
        )
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    secret = bool(loc) and str(loc[-1]) == "api_key_env"  # a key pasted by mistake is not echoed back
    if "input" in err and typ not in ("model_type",) and not isinstance(err["input"], (dict, list)) and not secret:
        msg += f" (got {err['input']!r})"
    return msg


def _description(loc: tuple) -> str:
    """The description of the setting at `loc`, for a missing one's message."""
    model: Any = StudyConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return ""
        args = getattr(field.annotation, "__args__", ())
        model = args[0] if args and hasattr(args[0], "model_fields") else field.annotation
    field = getattr(model, "model_fields", {}).get(loc[-1]) if loc else None
    return (field.description or "") if field is not None else ""


def _model_keys(loc: tuple) -> list[str]:
    model: Any = StudyConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return []
        ann = field.annotation
        args = getattr(ann, "__args__", ())
        model = args[0] if args and hasattr(args[0], "model_fields") else ann
    return list(getattr(model, "model_fields", {}).keys())


_LEADING_KEY = re.compile(r"([a-z_]+(?:\.[a-z_]+)*)")


def parse_config(text: str, file: str = "study.toml") -> StudyConfig:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)  # Python 3.14+; before, only the message has it
        if line is None:
            m = re.search(r"at line (\d+)", str(exc))
            line = int(m.group(1)) if m else None
        raise ConfigError(
            Problem(file, f"not valid TOML: {exc}. Check quotes, brackets and `key = value` syntax.", line)
        ) from exc
    config, problems = _checked(raw, text, file)
    if config is None:
        raise ConfigError(problems)
    if "conditions" in raw:  # between-subjects conditions: each the study with its overlay, checked as a whole
        from infact.study.conditions.overlay import condition_configs

        configs, found = condition_configs(
            raw, file, lambda data, prefix: _checked(data, text, file, prefix), lambda loc: _line_of(text, loc), text
        )
        if found:
            raise ConfigError(found)
        config._condition_configs.update(configs)
    return config


def _checked(raw: dict, text: str, file: str, prefix: tuple = ()) -> tuple[StudyConfig | None, list[Problem]]:
    """(config, []) or (None, every problem); a condition's (`prefix` conditions.NAME) keyed and lined under it."""
    try:
        config = StudyConfig.model_validate(raw)
    except ValidationError as exc:
        problems = _problems_of(exc.errors(), text, file)
        if any(err["loc"] for err in exc.errors()):  # fields failed: the cross checks pydantic skipped
            problems += [_cross_problem(m, text, file) for m in partial_checks(StudyConfig, raw)]
        problems += _second_stage(raw, text, file)
        return None, _under(problems, prefix, text)
    cross = _second_stage(config, text, file)
    return (None, _under(cross, prefix, text)) if cross else (config, [])


def _under(problems: list[Problem], prefix: tuple, text: str) -> list[Problem]:
    """Problems of a condition's merged study named `conditions.NAME.key`, on the condition's line for the key."""
    if not prefix:
        return problems
    out = []
    for p in problems:
        key = ".".join([*prefix, p.key]) if p.key else ".".join(prefix)
        loc = tuple(part for part in re.split(r"[.\[\]]+", key) if part and not part.isdigit())
        out.append(Problem(p.file, p.message, _line_of(text, loc), key))
    return out


def _problems_of(errors: list[dict], text: str, file: str) -> list[Problem]:
    problems = []
    for err in errors:
        loc = tuple(err["loc"])
        found = err.get("ctx", {}).get("error")
        if not loc and isinstance(found, CrossProblems):  # every cross-section problem, each its own line
            problems += [_cross_problem(m, text, file) for m in found.messages]
            continue
        key = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")
        if not loc:  # a cross-section check: its message starts with the key it is about
            m = _LEADING_KEY.match(err["msg"].removeprefix("Value error, "))
            if m and m.group(1).split(".")[0] in StudyConfig.model_fields:
                loc = tuple(m.group(1).split("."))
                key = m.group(1)
        problems.append(Problem(file, _fix_for(err, _model_keys(loc)), _line_of(text, loc), key or None))
    return problems


def _cross_problem(message: str, text: str, file: str) -> Problem:
    m = _LEADING_KEY.match(message)
    loc = tuple(m.group(1).split(".")) if m and m.group(1).split(".")[0] in StudyConfig.model_fields else ()
    return Problem(file, message, _line_of(text, loc), ".".join(loc) or None)


def _second_stage(config, text: str, file: str) -> list[Problem]:
    """The checks across platform and quality, and live systems against the study's: on the whole config, or on
    the sections that validated (a dict of raw tables) when others did not."""
    if isinstance(config, dict):
        sections = {}
        for name in ("platform", "quality", "live", "study"):
            sections[name] = _validated(name, config.get(name))
        if any(v is None for v in sections.values()):
            return []
        platform, quality, live, systems = (
            sections["platform"],
            sections["quality"],
            sections["live"],
            sections["study"].systems,
        )
    else:
        platform, quality, live, systems = config.platform, config.quality, config.live, config.study.systems
    return [
        Problem(p.file, p.message, _line_of(text, tuple(p.key.split("."))) if p.key else None, p.key)
        for p in cross_check(platform, quality, file) + check_systems(live, systems, file)
    ]


def _validated(name: str, raw: Any) -> Any:
    field = StudyConfig.model_fields[name]
    try:
        if raw is None:
            return None if field.is_required() else field.get_default(call_default_factory=True)
        return TypeAdapter(field.annotation).validate_python(raw)
    except ValidationError:
        return None


def load_config(folder: str | Path) -> StudyConfig:
    path = Path(folder) / "study.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            Problem(str(path), "not found: a study folder needs a study.toml (copy data/demo/study.toml as a start)")
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(Problem(str(path), "is not UTF-8 text: save it as UTF-8")) from None
    return parse_config(text, str(path))


def raw_tables(folder: str | Path) -> dict | None:
    """study.toml's tables as written, or None when it cannot be read as TOML."""
    try:
        return tomllib.loads((Path(folder) / "study.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None


# ---------------------------------------------------------------- when some sections do not validate


class _Known:
    """A validated section whose keys that did not validate raise Unknown (so checks using them are skipped)."""

    def __init__(self, value: Any, unknown: set[str]):
        self._value, self._unknown = value, unknown

    def __getattr__(self, name: str) -> Any:
        if name in self._unknown:
            raise Unknown(name)
        return getattr(self._value, name)

    def __iter__(self):
        return iter(self._value)

    def __len__(self) -> int:
        return len(self._value)


class _Partial:
    def __init__(self, sections: dict[str, Any]):
        self._sections = sections

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._sections.get(name, Unknown)
        if value is Unknown:
            raise Unknown(name)
        return value


def partial_checks(model: type[BaseModel], data: Any) -> list[str]:
    """The cross-section messages that can be known although some sections of `data` did not validate."""
    if not isinstance(data, dict):
        return []
    return messages(partial_config(model, data))


def partial_config(model: type[BaseModel], data: dict) -> Any:
    """study.toml's sections that validate, as a stand-in for the config (a missing one raises Unknown)."""
    data = fill_defaults(data)
    sections: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        adapter = TypeAdapter(field.annotation)
        if name not in data:
            sections[name] = Unknown if field.is_required() else field.get_default(call_default_factory=True)
            continue
        sections[name] = _section(adapter, data[name])
    return _Partial(sections)


PLACEHOLDERS = ("x", ["x", "y"], 1)  # stand-ins for a required key that did not validate (never read: unknown)


def _section(adapter: TypeAdapter, raw: Any) -> Any:
    """The section validated with its bad keys left out (then unknown to the checks), or Unknown.

    A bad key is first removed (its default then stands in); a required one gets stand-ins of each kind in turn."""
    if not isinstance(raw, dict):
        return _validate(adapter, raw)
    bad: dict[str, int] = {}  # key -> stand-ins tried
    data = dict(raw)
    for _ in range(2 + 2 * len(raw)):
        try:
            value = adapter.validate_python(data)
        except ValidationError as exc:
            errors = exc.errors()
        else:
            return _Known(value, set(bad)) if bad else value
        if any(not e["loc"] or not isinstance(e["loc"][0], str) for e in errors):
            return Unknown
        for key in {e["loc"][0] for e in errors}:
            tried = bad.get(key)
            if tried is None and key in data:
                del data[key]
                bad[key] = 0
            elif (tried or 0) < len(PLACEHOLDERS):
                data[key] = PLACEHOLDERS[tried or 0]
                bad[key] = (tried or 0) + 1
            else:
                return Unknown
    return Unknown


def _validate(adapter: TypeAdapter, raw: Any) -> Any:
    try:
        return adapter.validate_python(raw)
    except ValidationError:
        return Unknown
