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
from dataclasses import dataclass, field, replace
from pathlib import Path

from infact.errors import ConfigError, DatasetError, InfactError, Problem
from infact.study.config import StudyConfig, regular_count
from infact.study.quality_config import Unknown, default_note
from infact.study.situations import (
    Situation,
    dataset_version,
    read_situations,
    response_versions,
    situation_paths,
)
from infact.study.toml_config import load_config, parse_config, partial_config

__all__ = ["Study", "load_config", "load_study", "parse_config", "pool_explanation", "validate_study"]


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
    study, found = assemble(folder, config)
    if found:  # every problem of the data at once; the error's kind is the first one's
        raise found[0][0]([p for _, p in found])
    return study


Found = list[tuple[type[InfactError], Problem]]


def _step(found: Found, kind: type[InfactError], run, fallback):
    """run(), or `fallback` with its problems added (a setting unknown to a partial config: skipped)."""
    try:
        return run()
    except InfactError as exc:
        found.extend((type(exc) if type(exc) is not InfactError else kind, p) for p in exc.problems)
    except Unknown:
        pass
    return fallback


def assemble(folder: Path, config) -> tuple[Study | None, Found]:
    """The study of `config` (a StudyConfig, or a partial one from toml_config.partial_config) and its data,
    with every problem found: the files, the systems, the attention check and the pool, together."""
    toml = str(folder / "study.toml")
    found: Found = []
    situations, paths = _step(found, DatasetError, lambda: _read_files(folder, config, toml, found), ([], []))
    files_ok = not found
    if config.protocol.kind == "conversation":  # one system per conversation: keep the study's systems'
        from infact.study.annotation.conversations import of_systems as split
    else:
        split = _complete
    # With damaged files, "no situation has every system" would only repeat the files' problems.
    complete, notes = _step(
        found if files_ok else [],
        ConfigError,
        lambda: split(situations, config.study.systems, toml, bool(paths)),
        ([], []),
    )
    usable = len(complete)
    check, complete = _step(
        found, ConfigError, lambda: _attention_check(config, situations, complete, toml, files_ok), (None, complete)
    )
    regular = len(complete)
    pool = _step(found, ConfigError, lambda: _sampled(config, complete), complete)
    if check is None and complete and _step(found, ConfigError, lambda: config.attention_check.enabled, False):
        pool = [s for s in pool if s.dialog_id != complete[0].dialog_id]  # the check's dialog suggested
    if files_ok and usable:
        _step(found, ConfigError, lambda: _enough(config, len(pool), toml), None)
    if found or not isinstance(config, StudyConfig):
        return None, found
    counts = {
        "in_files": len(situations),
        "incomplete": len(situations) - usable,
        "attention_dialog": usable - regular,
        "not_sampled": regular - len(pool),
    }
    study = Study(folder, config, tuple(pool), check, dataset_version(paths), tuple(notes), counts)
    return study, found


def _sampled(config, complete: list[Situation]) -> list[Situation]:
    if config.sampling.mode == "all":
        return complete
    from infact.study.sampling import select_situations

    s = config.sampling
    return select_situations(complete, mode=s.mode, size=s.size, seed=s.seed, stratify=s.stratify)


def _enough(config, usable: int, toml: str) -> None:
    """Enough regular situations for one participant, or what to set instead."""
    need = regular_count(config)
    if usable >= need:
        return
    per = config.study.situations_per_participant
    fit = usable + (per - need)  # the attention check (or gold conversation) comes on top
    default = default_note(config.study, "situations_per_participant")
    fix = f"set study.situations_per_participant = {fit}" if usable else "add situations"
    raise ConfigError(
        Problem(
            toml,
            f"each participant needs {need} regular situations (study.situations_per_participant = {per}{default}) "
            f"but only {usable} are usable: {fix}, or add situations",
            key="study.situations_per_participant",
        )
    )


def _read_files(folder: Path, config, toml: str, found: Found) -> tuple[list[Situation], list[Path]]:
    """The situations (or, in a dialog-level study, the dialogs) and the files they came from; the files'
    problems, and those of the onboarding and gold files, added to `found`."""
    # A study of live chats only (0 situations per participant) reads no situations files.
    paths = situation_paths(folder, config.study.situations, toml) if config.study.situations_per_participant else []
    if config.protocol.kind == "pairwise_dialog":  # whole conversations per system (ACUTE-style)
        from infact.study.dialogs import read_dialogs as read
    elif config.protocol.kind == "conversation":  # one system's conversation per line, annotated turn by turn
        from infact.study.annotation.conversations import read_conversations as read
    else:
        read = read_situations
    situations, problems = read(paths)
    found.extend((DatasetError, p) for p in problems)
    if config.protocol.onboarding:  # gold pairs of a pairwise study: checked at load like the situations
        from infact.study.gold_pairs import read_gold_pairs

        _step(found, DatasetError, lambda: read_gold_pairs(folder, config.protocol.onboarding), None)
    if config.protocol.kind == "conversation" and config.protocol.gold:  # checked at load too
        from infact.study.annotation.conversations import read_gold

        _step(found, DatasetError, lambda: read_gold(folder, config.protocol.gold, config.aspects), None)
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
    config, situations: list[Situation], complete: list[Situation], toml: str, files_ok: bool = True
) -> tuple[Situation | None, list[Situation]]:
    """The attention check's situation, and the regular pool without its dialog."""
    ac = config.attention_check
    if not ac.enabled:
        return None, complete
    by_id = {s.situation_id: s for s in situations}
    example = (complete or situations)[0].situation_id if (complete or situations) else None
    if ac.situation is None:
        fix = f'set attention_check.situation = "{example}"' if example else "set `situation`"
        raise ConfigError(
            Problem(
                toml,
                f"the attention check needs a dialog: {fix} (a situation_id from the situations files; its dialog "
                "is then used only for the check), or set attention_check.enabled = false",
                key="attention_check.situation",
            )
        )
    check = by_id.get(ac.situation)
    if check is None and not situations and not files_ok:  # no line read: the files' problems say it all
        return None, complete
    if check is None:
        close = difflib.get_close_matches(ac.situation, list(by_id), n=1) or sorted(by_id)[:3]
        hint = f"did you mean {close[0]!r}?" if len(close) == 1 else f"ids look like {', '.join(close)}"
        raise ConfigError(
            Problem(
                toml,
                f"situation {ac.situation!r} is not in the situations files ({hint})"
                + ("" if files_ok else ", or it is on a line that could not be read (see the files' problems)"),
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

    Every problem at once: study.toml's, and, even when study.toml has some, the data's as far as the settings
    that validated tell (the situations files, the systems, the attention check, the pool).
    """
    folder = Path(folder)
    try:
        config = read_config(folder)
    except InfactError as exc:
        return None, exc.problems + _data_problems(folder, exc.problems), []
    study, found = assemble(folder, config)
    if found:
        return None, [p for _, p in found], []
    return study, [], list(study.notes)


def _data_problems(folder: Path, known: list[Problem]) -> list[Problem]:
    """The data's problems when study.toml has some: from the settings that validated, or (study.toml
    unreadable) from every situations or dialogs file of the folder."""
    from infact.study.toml_config import raw_tables

    raw = raw_tables(folder)
    if raw is not None:
        seen = {(p.key, p.message) for p in known}
        try:
            _, found = assemble(folder, partial_config(StudyConfig, raw))
        except Unknown:  # the protocol or the files' names are unknown: read what the folder holds
            pass
        else:
            return [p for _, p in found if (p.key, p.message) not in seen]
    from infact.study.dialogs import jsonl_kind, read_dialogs  # (gold pairs: checked once the config names them)

    kinds = {p: jsonl_kind(p) for p in sorted(folder.glob("*.jsonl"))}
    return (
        read_situations([p for p, k in kinds.items() if k == "situations"])[1]
        + read_dialogs([p for p, k in kinds.items() if k == "dialogs"])[1]
    )
