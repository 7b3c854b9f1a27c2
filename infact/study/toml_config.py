"""study.toml read into a checked `StudyConfig`, every error named by file, line and fix.

`parse_config(text, file)` and `load_config(folder)` (re-exported by infact.study.loader). Field errors, every
cross-section problem (infact/study/cross_checks.py) and the checks across platform, quality and live systems
are listed together, so one `validate` shows them all; when some sections fail, the cross checks still run on
the sections that validated.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from infact.errors import ConfigError, Problem
from infact.study.config import StudyConfig
from infact.study.cross_checks import CrossProblems, partial_checks
from infact.study.live_config import check_systems
from infact.study.quality_config import cross_check


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
        return "required setting is missing: add it (see the settings reference in the README)."
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    secret = bool(loc) and str(loc[-1]) == "api_key_env"  # a key pasted by mistake is not echoed back
    if "input" in err and typ not in ("model_type",) and not isinstance(err["input"], (dict, list)) and not secret:
        msg += f" (got {err['input']!r})"
    return msg


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
    try:
        config = StudyConfig.model_validate(raw)
    except ValidationError as exc:
        problems = _problems_of(exc.errors(), text, file)
        if any(err["loc"] for err in exc.errors()):  # fields failed: the cross checks pydantic skipped
            problems += [_cross_problem(m, text, file) for m in partial_checks(StudyConfig, raw)]
        problems += _second_stage(raw, text, file)
        raise ConfigError(problems) from None
    cross = _second_stage(config, text, file)
    if cross:
        raise ConfigError(cross)
    return config


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
