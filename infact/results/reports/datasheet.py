"""A Human Evaluation Datasheet (HEDS 3.0, Belz & Thomson 2024) filled from study.toml and the collected data.

HEDS describes one human evaluation experiment in five sections: 1 main reference and
supplementary resources; 2 evaluated system(s); 3 sample of system outputs (3.1), evaluators
(3.2) and experimental design (3.3); 4 definition and operationalisation of each quality
criterion (one block per criterion); 5 ethics. Every field here is a fact INFACT holds: the
settings, the situation files and the stored answers (the study's results, the same tables and
funnel as the exports). A field the study cannot fill is listed in `missing` with what would fill
it — never guessed. `datasheet()` returns the JSON; `render_markdown()` the same as Markdown.

The sections are a list (`SECTIONS`, `BUILDERS`): each is a title and `build(study, tables) -> fields`, in
datasheet_study.py (from study.toml alone) and datasheet_answers.py (the answers too); another module adds
one with `add_section` and it is filled, rendered and its missing fields listed like the others.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from infact.results.reports import datasheet_answers as answers
from infact.results.reports import datasheet_study as from_study
from infact.results.reports import ledger_report
from infact.results.reports.datasheet_markdown import render_markdown

__all__ = ["BUILDERS", "CRITERIA", "HEDS_VERSION", "SECTIONS", "add_section", "datasheet", "render_markdown"]

HEDS_VERSION = "3.0"
CRITERIA = "4"  # the section that holds one block per criterion, not fields
SECTIONS: dict[str, str] = {}  # key -> title, in the datasheet's order
BUILDERS: dict[str, Callable] = {}  # key -> build(study, tables) -> the section's fields (or criteria)


def add_section(key: str, title: str, build: Callable, *, after: str | None = None) -> None:
    """Add a section `key` built by `build(study, tables)`: last, or right after the section `after`."""
    if key in SECTIONS:
        raise ValueError(f"datasheet section {key!r} is already there")
    order = list(SECTIONS)
    order.insert(order.index(after) + 1 if after else len(order), key)
    titles = {**SECTIONS, key: title}
    BUILDERS[key] = build
    SECTIONS.clear()
    SECTIONS.update({k: titles[k] for k in order})


def _systems_and_ledger(study, t) -> list[dict]:
    """Section 2: the systems, then which version of each was compared, how often and when (ledger.csv)."""
    return from_study.systems(study, t) + ledger_report.datasheet_fields(study, t)


for _key, _title, _build in (
    ("1", "Main reference and supplementary resources", from_study.resources),
    ("2", "Evaluated system(s)", _systems_and_ledger),
    ("3.1", "Sample of system outputs", answers.sample),
    ("3.2", "Evaluators", answers.evaluators),
    ("3.3", "Experimental design", answers.design),
    (CRITERIA, "Definition and operationalisation of quality criteria", from_study.criteria),
    ("5", "Ethics", from_study.ethics),
):
    add_section(_key, _title, _build)


def datasheet(results, *, now: datetime | None = None) -> dict:
    """HEDS 3.0 as JSON-ready data from a study's results (infact/results/study_results.py: the study and
    its tables, read once)."""
    study, t = results.study, results.tables
    sections = {key: build(study, t) for key, build in BUILDERS.items()}
    missing = [
        f"{f['id']} {f['question']}: {f['missing']}"
        for key, fields in sections.items()
        if key != CRITERIA
        for f in fields
        if "missing" in f
    ]
    return {
        "heds_version": HEDS_VERSION,
        "study": study.id,
        "title": study.config.study.title,
        "written_at": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
        "sections": {
            k: {"title": SECTIONS[k], ("criteria" if k == CRITERIA else "fields"): sections[k]} for k in SECTIONS
        },
        "missing": missing,
    }
