"""The builder's form, generated from the pydantic models that validate study.toml.

`form_sections()` walks `StudyConfig`'s fields: each section (a model, or a list of models such as
`[[criteria]]`) becomes a `Section` of `FieldSpec`s read from the model fields themselves (type, default,
description, constraints, the choices of a `Literal`). A setting added to a model therefore appears in the
builder without builder code; a field the form cannot draw (a table of tables) is named in `Section.elsewhere`.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from infact.study.config import StudyConfig

# The sections a new study needs, in the form's order; every other section follows under "More settings".
MAIN = ("study", "protocol", "scale", "criteria", "texts", "attention_check", "platform")
# Set by the builder itself from the uploaded table (the situations file it writes).
OWN = {("study", "situations"), ("protocol", "kind")}  # the protocol is chosen first
LONG_TEXT = ("Markdown", "(plain text)")  # descriptions of texts that get a text area


@dataclass(frozen=True)
class FieldSpec:
    """One form field: `kind` is bool, int, float, text, longtext, choice, lines (list[str]) or numbers."""

    section: str
    name: str
    kind: str
    description: str
    default: Any = None  # PydanticUndefined-free: None when the field has none
    required: bool = False
    optional: bool = False  # `X | None`: left empty is None
    choices: tuple = ()
    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None

    @property
    def key(self) -> str:
        return f"{self.section}.{self.name}"


@dataclass
class Section:
    """A section of study.toml as the form shows it: a table's fields, or (`rows`) an array of tables."""

    name: str
    description: str
    fields: list[FieldSpec]
    rows: bool = False  # `[[name]]`: each row a table with `fields` as its columns
    elsewhere: list[str] = field(default_factory=list)  # keys the form cannot draw: edit study.toml for them


def _unwrap(annotation) -> tuple[Any, bool]:
    """(the type, whether None is allowed) of `X | None` / `Optional[X]`."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _kind(annotation, description: str) -> tuple[str | None, tuple]:
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return "choice", typing.get_args(annotation)
    if annotation is bool:
        return "bool", ()
    if annotation is int:
        return "int", ()
    if annotation is float:
        return "float", ()
    if annotation is str:
        return ("longtext" if any(m in description for m in LONG_TEXT) else "text"), ()
    if origin in (list, tuple):
        args = typing.get_args(annotation)
        inner = args[0] if args else None
        if inner is str:
            return "lines", ()
        if inner in (int, float):
            return "numbers", ()
    return None, ()


def field_spec(section: str, name: str, info: FieldInfo) -> FieldSpec | None:
    """The form field of one model field, or None when the form cannot draw it."""
    annotation, optional = _unwrap(info.annotation)
    description = info.description or ""
    kind, choices = _kind(annotation, description)
    if kind is None:
        return None
    limits: dict[str, Any] = {}
    for m in info.metadata:
        if isinstance(m, (Ge, Gt)):
            limits["minimum"] = m.ge if isinstance(m, Ge) else m.gt
        elif isinstance(m, (Le, Lt)):
            limits["maximum"] = m.le if isinstance(m, Le) else m.lt
        elif isinstance(m, MinLen):
            limits["min_items"] = m.min_length
        elif isinstance(m, MaxLen):
            pass
    default = info.get_default(call_default_factory=True)
    required = default is PydanticUndefined
    return FieldSpec(
        section,
        name,
        kind,
        description,
        None if required else default,
        required,
        optional,
        tuple(choices),
        **limits,
    )


def model_section(name: str, model: type[BaseModel], description: str, rows: bool = False) -> Section:
    specs, elsewhere = [], []
    for field_name, info in model.model_fields.items():
        if (name, field_name) in OWN:
            continue
        spec = field_spec(name, field_name, info)
        if spec is None:
            elsewhere.append(f"{name}.{field_name}")
        else:
            specs.append(spec)
    return Section(name, description, specs, rows, elsewhere)


def _section_of(name: str, info: FieldInfo) -> Section | None:
    annotation, _ = _unwrap(info.annotation)
    description = info.description or ""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_section(name, annotation, description)
    if typing.get_origin(annotation) is list:
        (inner,) = typing.get_args(annotation)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return model_section(name, inner, description, rows=True)
    return None


def form_sections(model: type[BaseModel] = StudyConfig) -> tuple[list[Section], list[str]]:
    """The form's sections, the main ones first (MAIN's order), and the sections it cannot draw at all."""
    sections, elsewhere = [], []
    for name, info in model.model_fields.items():
        section = _section_of(name, info)
        if section is None:
            elsewhere.append(name)
        else:
            sections.append(section)
    order = {name: i for i, name in enumerate(MAIN)}
    sections.sort(key=lambda s: order.get(s.name, len(MAIN)))
    return sections, elsewhere
