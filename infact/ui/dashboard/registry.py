"""The dashboard's sections, registered by name, and which section shows each step kind's answers.

A section is one module in `sections/` with a `@section("Name")` function drawing it from a `View`.
Which sections a study offers comes from its protocols (infact/results/dashboard/offer.py), plus:

- a section registered with `offered=` (a predicate on the study's config): a module outside this
  package (e.g. a Prolific section in infact/ui/) registers itself on import and appears where
  `after=` says;
- every registered step kind with its own table and no section claiming it (`shows_kind`) gets the
  generic section (its table and a count), so a new kind has a dashboard section with no edit here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infact.participation import steps


@dataclass(frozen=True)
class Section:
    name: str
    draw: Callable  # draw(view) -> None
    offered: Callable | None = None  # offered(cfg) -> bool; None: offer.sections decides
    after: str | None = None  # where an extra section goes (default: before Exports)
    live: bool = True  # redrawn every 5 s inside the fragment; False: drawn once per rerun (downloads)
    tables: bool = False  # drawn from the full tables (rebuilt at most every 30 s): says when they are behind


SECTIONS: dict[str, Section] = {}
# step kind -> the section that shows its answers (None: no section of its own, e.g. demographics)
KIND_SECTIONS: dict[str, str | None] = {}
GENERIC = "generic"
# (section, kind of answer) -> draw(view): a section showing a part per collected kind (Results, Statistics…)
PARTS: dict[tuple[str, str], Callable] = {}


def section(
    name: str, *, offered: Callable | None = None, after: str | None = None, live: bool = True, tables: bool = False
):
    """Register `draw(view)` as the section `name` (a decorator)."""

    def add(draw: Callable) -> Callable:
        SECTIONS[name] = Section(name, draw, offered, after, live, tables)
        return draw

    return add


def part(section_name: str, kind: str):
    """Register `draw(view)` as the part of `section_name` for one kind of answer (a decorator)."""

    def add(draw: Callable) -> Callable:
        PARTS[(section_name, kind)] = draw
        return draw

    return add


def draw_parts(section_name: str, view) -> None:
    """Each collected kind's part of the section, in the order the study asks for them."""
    for kind in view.kinds:
        if (draw := PARTS.get((section_name, kind))) is not None:
            draw(view)


def shows_kind(kind: str, section_name: str | None) -> None:
    """Say which section shows step kind `kind`'s answers (None: none, its table is in Exports)."""
    KIND_SECTIONS[kind] = section_name


def kind_title(kind: str) -> str:
    return kind.replace("_", " ").capitalize()


def unclaimed_kinds() -> list[str]:
    """Registered step kinds with a table that no section claims: each gets the generic section."""
    return [k.name for k in steps.kinds() if k.table and k.name not in KIND_SECTIONS]


def offered(cfg, *, has_judges: bool) -> list[str]:
    """The sections of this study, in order: the protocols' own, extras, then a section per unclaimed kind."""
    from infact.results.dashboard import offer

    names = offer.sections(cfg, has_judges=has_judges)
    for s in SECTIONS.values():
        if s.offered is not None and s.offered(cfg) and s.name not in names:
            at = names.index(s.after) + 1 if s.after in names else names.index("Exports")
            names.insert(at, s.name)
    names += [kind_title(k) for k in unclaimed_kinds() if kind_title(k) not in names]
    return names


def find(name: str) -> tuple[Section, str | None]:
    """(the section called `name`, the step kind when it is a generic kind section)."""
    if name in SECTIONS:
        return SECTIONS[name], None
    kind = next(k for k in unclaimed_kinds() if kind_title(k) == name)
    return SECTIONS[GENERIC], kind
