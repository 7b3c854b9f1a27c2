"""study.toml's checks across sections, each yielding every problem it finds, so one `validate` lists them all.

`study_checks(cfg)` runs every check on a whole StudyConfig (its after-validator) and raises one `CrossProblems`
holding all their messages. When some sections do not validate, pydantic never runs that validator: then
`partial_checks(model, data)` validates each section on its own (a section's bad keys left out) and runs the
same checks on what is known; a check that needs a key that did not validate is skipped, never run on a default
the researcher did not choose.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from infact.study.annotation.aspects import check_conversation_settings
from infact.study.endpoints import check_name
from infact.study.protocol_config import PAIRWISE_KINDS, blocks_of, fill_defaults, flow_problem
from infact.study.quality_config import item_checks, situation_checks


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
    if (problem := flow_problem(cfg.flow.steps, cfg.protocol.kind)) is not None:
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
