"""A study is a folder: `study.toml` plus its situations file(s).

`parse_config`/`load_config` read study.toml into a checked `StudyConfig` (infact/study/config.py declares
it), each error named by file, line and fix.

`load_study` reads and checks both together, once. Problems in either are collected
and raised as one ConfigError/DatasetError listing every `file:line: message`.
Non-fatal findings (e.g. situations left out because a system has no response)
are kept in `Study.notes` for `validate` and the researcher dashboard.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from infact.errors import ConfigError, DatasetError, InfactError, Problem
from infact.study.config import StudyConfig
from infact.study.live_config import check_systems
from infact.study.quality_config import cross_check
from infact.study.situations import (
    Situation,
    dataset_version,
    read_situations,
    response_versions,
    situation_paths,
)


@dataclass(frozen=True)
class Study:
    folder: Path
    config: StudyConfig
    situations: tuple[Situation, ...]  # the regular pool participants rate
    attention_situation: Situation | None  # dialog used for the instructed-response check
    dataset_version: str
    notes: tuple[Problem, ...] = field(default=())
    # How the files' situations became the pool: in_files, incomplete, attention_dialog, not_sampled.
    pool_counts: dict[str, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.config.study.id

    @property
    def systems(self) -> list[str]:
        return list(self.config.study.systems)

    @property
    def system_versions(self) -> dict[str, str]:
        """system -> the version of its responses in the situations (`responses-…`; situations.response_versions),
        stamped on every vote of a pairwise or best–worst step: computed once per loaded study."""
        cache = self.__dict__.get("_versions_cache")
        if cache is None:
            cache = response_versions(self.situations, self.systems)
            object.__setattr__(self, "_versions_cache", cache)
        return cache

    @property
    def conditions(self) -> tuple[str, ...]:
        """The between-subjects conditions' names (`[conditions.NAME]`), in the file's order; () without."""
        return tuple(self.config.conditions)

    def under(self, condition: str) -> Study:
        """The study as participants of `condition` see it: the same situations, the condition's settings
        (infact/study/conditions/overlay.py); made once per condition."""
        cache = self.__dict__.setdefault("_conditions_cache", {})
        if condition not in cache:
            cache[condition] = replace(self, config=self.config.condition(condition))
        return cache[condition]

    def situation(self, situation_id: str) -> Situation:
        if self.attention_situation is not None and situation_id == self.attention_situation.situation_id:
            return self.attention_situation
        return self._by_id[situation_id]

    @property
    def _by_id(self) -> dict[str, Situation]:
        cache = self.__dict__.get("_by_id_cache")
        if cache is None:
            cache = {s.situation_id: s for s in self.situations}
            object.__setattr__(self, "_by_id_cache", cache)
        return cache


def check_folder(folder: Path) -> None:
    """A study is a folder: name the mistake when it is a file or missing."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(
            Problem(
                str(folder), "is a file, not a study folder: give the folder that holds study.toml (e.g. data/demo)"
            )
        )


def read_config(folder: Path) -> StudyConfig:
    """study.toml of a folder; absurd nesting (`a = [[[[…`) is a message, not a RecursionError."""
    check_folder(folder)
    try:
        return load_config(folder)
    except RecursionError:
        raise ConfigError(
            Problem(
                str(folder / "study.toml"),
                "nested too deeply to read (thousands of [ or {): "
                "it is not a study.toml; start from data/demo/study.toml",
            )
        ) from None


def load_study(folder: str | Path) -> Study:
    folder = Path(folder)
    config = read_config(folder)
    toml = str(folder / "study.toml")
    situations, paths = _read_files(folder, config, toml)
    if config.protocol.kind == "conversation":  # one system per conversation: keep the study's systems'
        from infact.study.annotation.conversations import of_systems

        complete, notes = of_systems(situations, config.study.systems, toml, bool(paths))
    else:
        complete, notes = _complete(situations, config.study.systems, toml, bool(paths))
    usable = len(complete)
    check, complete = _attention_check(config, situations, complete, toml)
    regular = len(complete)

    pool = complete
    if config.sampling.mode != "all":
        from infact.study.sampling import select_situations

        pool = select_situations(
            pool,
            mode=config.sampling.mode,
            size=config.sampling.size,
            seed=config.sampling.seed,
            stratify=config.sampling.stratify,
        )
    if len(pool) < config.regular_per_participant:
        raise ConfigError(
            Problem(
                toml,
                f"each participant needs {config.regular_per_participant} regular situations but only {len(pool)} are "
                "usable; lower study.situations_per_participant or add situations",
                key="study.situations_per_participant",
            )
        )

    counts = {
        "in_files": len(situations),
        "incomplete": len(situations) - usable,
        "attention_dialog": usable - regular,
        "not_sampled": regular - len(pool),
    }
    return Study(
        folder=folder,
        config=config,
        situations=tuple(pool),
        attention_situation=check,
        dataset_version=dataset_version(paths),
        notes=tuple(notes),
        pool_counts=counts,
    )


def _read_files(folder: Path, config: StudyConfig, toml: str) -> tuple[list[Situation], list[Path]]:
    """The situations (or, in a dialog-level study, the dialogs) and the files they came from."""
    # A study of live chats only (0 situations per participant) reads no situations files.
    paths = situation_paths(folder, config.study.situations, toml) if config.study.situations_per_participant else []
    if config.protocol.kind == "pairwise_dialog":  # whole conversations per system (ACUTE-style)
        from infact.study.dialogs import read_dialogs as read
    elif config.protocol.kind == "conversation":  # one system's conversation per line, annotated turn by turn
        from infact.study.annotation.conversations import read_conversations as read
    else:
        read = read_situations
    situations, problems = read(paths)
    if problems:
        raise DatasetError(problems)
    if config.protocol.onboarding:  # gold pairs of a pairwise study: checked at load like the situations
        from infact.study.gold_pairs import read_gold_pairs

        read_gold_pairs(folder, config.protocol.onboarding)
    if config.protocol.kind == "conversation" and config.protocol.gold:  # checked at load too
        from infact.study.annotation.conversations import read_gold

        read_gold(folder, config.protocol.gold, config.aspects)
    return situations, paths


def _complete(
    situations: list[Situation], systems: list[str], toml: str, has_files: bool
) -> tuple[list[Situation], list[Problem]]:
    """The situations with a response from every system, and a note per system that lacks some."""
    complete: list[Situation] = []
    lacking: dict[str, int] = {}
    for sit in situations:
        missing = [s for s in systems if not sit.responses.get(s, "").strip()]
        for s in missing:
            lacking[s] = lacking.get(s, 0) + 1
        if not missing:
            complete.append(sit)
    notes = [
        Problem(
            toml,
            f"{count} situation(s) have no response from system '{system}' and are left out; import its outputs with "
            "`python -m infact import responses`",
            key="study.systems",
        )
        for system, count in sorted(lacking.items())
    ]
    if not complete and has_files:
        found = sorted({name for s in situations for name in s.responses})
        raise ConfigError(
            Problem(
                toml,
                f"no situation has a response from every system {systems}; the situations files contain systems "
                f"{found}. Fix the names in [study] systems.",
                key="study.systems",
            )
        )
    return complete, notes


def _attention_check(
    config: StudyConfig, situations: list[Situation], complete: list[Situation], toml: str
) -> tuple[Situation | None, list[Situation]]:
    """The attention check's situation, and the regular pool without its dialog."""
    ac = config.attention_check
    if not ac.enabled:
        return None, complete
    by_id = {s.situation_id: s for s in situations}
    if ac.situation is None:
        raise ConfigError(
            Problem(
                toml,
                "the attention check needs a dialog: set `situation` to a situation_id from the situations file",
                key="attention_check.situation",
            )
        )
    check = by_id.get(ac.situation)
    if check is None:
        close = sorted(by_id)[:3]
        raise ConfigError(
            Problem(
                toml,
                f"situation {ac.situation!r} is not in the situations files (ids look like {', '.join(close)})",
                key="attention_check.situation",
            )
        )
    # The check's dialog is never rated as a regular situation: no one sees it twice.
    return check, [s for s in complete if s.dialog_id != check.dialog_id]


def pool_explanation(study: Study) -> str:
    """Why the pool holds fewer situations than the files.

    E.g. 'the files hold 40; 2 of dialog x are kept for the check'.
    """
    c = study.pool_counts
    if not c or c["in_files"] == len(study.situations):
        return ""
    parts = [f"the files hold {c['in_files']}"]
    if c["incomplete"]:
        parts.append(f"{c['incomplete']} lack a system's response (see the notes)")
    if c["attention_dialog"] and study.attention_situation is not None:
        parts.append(
            f"{c['attention_dialog']} belong to dialog {study.attention_situation.dialog_id}, whose situation "
            f"{study.attention_situation.situation_id} is the attention check: that dialog is never rated as a "
            "regular situation, so no one sees it twice"
        )
    if c["not_sampled"]:
        parts.append(f"{c['not_sampled']} are not in the [sampling] sample")
    return "; ".join(parts)


def validate_study(folder: str | Path) -> tuple[Study | None, list[Problem], list[Problem]]:
    """(study or None, errors, notes) — for `python -m infact validate`.

    Config errors and situation-file errors are reported together, not only the first.
    """
    folder = Path(folder)
    errors: list[Problem] = []
    try:
        config = read_config(folder)
    except InfactError as exc:
        errors.extend(exc.problems)
        config = None
    if config is None:
        # Still check any situations or dialogs files we can find so one run lists everything
        # (onboarding gold pairs are checked once the config names them).
        from infact.study.dialogs import jsonl_kind, read_dialogs

        kinds = {p: jsonl_kind(p) for p in sorted(folder.glob("*.jsonl"))}
        errors.extend(read_situations([p for p, k in kinds.items() if k == "situations"])[1])
        errors.extend(read_dialogs([p for p, k in kinds.items() if k == "dialogs"])[1])
        return None, errors, []
    try:
        study = load_study(folder)
    except InfactError as exc:
        return None, errors + exc.problems, []
    return study, errors, list(study.notes)


# -- study.toml: parsed, checked, and every error named by file, line and fix -----------


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
        for i, line in enumerate(lines):
            if header_re.match(line):
                start = i
                break
    key_re = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
    for i in range(start, len(lines)):
        if key_re.match(lines[i]):
            return i + 1
    table_re = re.compile(r"^\s*\[\[?\s*" + re.escape(".".join(section)) + r"\s*\]\]?\s*$")
    for i, line in enumerate(lines):
        if table_re.match(line):
            return i + 1
    return start + 1 if header_re else None


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
    config, problems = _validated(raw, text, file)
    if config is None:
        raise ConfigError(problems)
    if "conditions" in raw:
        from infact.study.conditions.overlay import condition_configs

        configs, found = condition_configs(
            raw, file, lambda data, prefix: _validated(data, text, file, prefix), lambda loc: _line_of(text, loc), text
        )
        if found:
            raise ConfigError(found)
        config._condition_configs.update(configs)
    return config


def _validated(raw: dict, text: str, file: str, prefix: tuple = ()) -> tuple[StudyConfig | None, list[Problem]]:
    """(config, []) or (None, problems): one study.toml's data checked, every problem's key under `prefix` (a
    condition's `conditions.NAME`)."""
    try:
        config = StudyConfig.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            key = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")
            if not loc:  # a cross-section check: its message starts with the key it is about
                m = _LEADING_KEY.match(err["msg"].removeprefix("Value error, "))
                if m and m.group(1).split(".")[0] in StudyConfig.model_fields:
                    loc = tuple(m.group(1).split("."))
                    key = m.group(1)
            where = prefix + loc
            key = ".".join([*prefix, key]) if key else (".".join(prefix) or None)
            problems.append(Problem(file, _fix_for(err, _model_keys(loc)), _line_of(text, where), key or None))
        return None, problems
    cross = [
        Problem(
            p.file,
            p.message,
            _line_of(text, prefix + tuple(p.key.split("."))) if p.key else None,
            ".".join([*prefix, p.key]) if p.key else None,
        )
        for p in cross_check(config.platform, config.quality, file)
        + check_systems(config.live, config.study.systems, file)
    ]
    return (None, cross) if cross else (config, [])


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
