"""The dashboard's sections, registered by name, and the sections kinds bring.

A section is one module in `sections/` with a `@section("Name")` function drawing it from a `View`.
Which sections a study offers comes from its protocols (infact/results/dashboard/offer.py), plus:

- a section registered with `offered=` (a predicate on the study's config): a module outside this
  package (e.g. a Prolific section in infact/ui/) registers itself on import and appears where
  `after=` says;
- every registered kind with a table whose registration (`Kind.dashboard`, infact/kinds/) names a function
  that is no registered section's: a section of its own, titled after the kind and drawn by that function
  (`draw(view, kind)`; by default the generic section: its table and a count), so a new kind has a dashboard
  section with no edit here. A kind naming a registered section's function (Results) is shown there; None: its
  table is only in Exports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from infact.participation import steps
from infact.ui import hooks


@dataclass(frozen=True)
class Section:
    name: str
    draw: Callable  # draw(view) -> None
    offered: Callable | None = None  # offered(cfg) -> bool; None: offer.sections decides
    after: str | None = None  # where an extra section goes (default: before Exports)
    refresh: bool = True  # redrawn every 5 s inside the fragment; False: drawn once per rerun (downloads)
    tables: bool = False  # drawn from the full tables (rebuilt at most every 30 s): says when they are behind


SECTIONS: dict[str, Section] = {}
# (section, kind of answer) -> draw(view): a section showing a part per collected kind (Results, Statistics…)
PARTS: dict[tuple[str, str], Callable] = {}


def section(
    name: str, *, offered: Callable | None = None, after: str | None = None, refresh: bool = True, tables: bool = False
):
    """Register `draw(view)` as the section `name` (a decorator)."""

    def add(draw: Callable) -> Callable:
        SECTIONS[name] = Section(name, draw, offered, after, refresh, tables)
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


def kind_title(kind: str) -> str:
    return kind.replace("_", " ").capitalize()


def kind_sections() -> dict[str, tuple[str, Callable]]:
    """{section title: (kind, draw)} of the registered kinds with a table that bring a section of their own."""
    drawn = [(k.name, hooks.dashboard(k.name)) for k in steps.registered() if k.step.table or k.results]
    shared = {s.draw for s in SECTIONS.values()}  # after resolving: a named section's module is imported
    out: dict[str, tuple[str, Callable]] = {}
    for kind, draw in drawn:
        if draw is not None and draw not in shared:
            out.setdefault(kind_title(kind), (kind, draw))
    return out


def offered(cfg, *, has_judges: bool) -> list[str]:
    """The sections of this study, in order: the protocols' own, extras, then the kinds' own sections."""
    from infact.results.dashboard import offer

    names = offer.sections(cfg, has_judges=has_judges)
    for s in SECTIONS.values():
        if s.offered is not None and s.offered(cfg) and s.name not in names:
            at = names.index(s.after) + 1 if s.after in names else names.index("Exports")
            names.insert(at, s.name)
    names += [title for title in kind_sections() if title not in names]
    return names


def find(name: str) -> tuple[Section, str | None]:
    """(the section called `name`, the kind when it is a kind's own section: drawn as `draw(view, kind)`)."""
    if name in SECTIONS:
        return SECTIONS[name], None
    kind, draw = kind_sections()[name]
    return Section(name, draw, tables=True), kind
