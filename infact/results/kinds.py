"""Kinds of answer in the results: `KindResults` (one kind's table, analysis, judge comparison and export) and
the lookups over the registered kinds (`kinds()`, `for_table`, `for_file`, `for_step`, `compared_tables`).

A kind is registered once, whole, in infact/kinds/<name>.py (`infact.participation.steps.Kind`); its `results`
is a `KindResults` from here. What each extension point is for, with its signature: infact/hookspecs.py.
A kind with a `schema` on its step and no `results` gets every default: its table reaches the export,
datapackage.json, the dashboard's downloads and `analyze FILE.csv` with no edit to a core module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from infact.errors import OptionError
from infact.participation import steps as step_kinds
from infact.results.tables.schemas import OPTIONAL_TABLES, STUDY_TABLES
from infact.study.protocol_config import step_kind
from infact.study.settings_doc import Block
from infact.table_schema import BOT, EXCLUDED, TableSchema

if TYPE_CHECKING:
    import pandas as pd

    from infact.study.config import StudyConfig

__all__ = [
    "Answers",
    "KindResults",
    "all_schemas",
    "compared_tables",
    "describe",
    "for_file",
    "for_step",
    "for_table",
    "kinds",
    "schema_for",
    "summary",
]


@dataclass(frozen=True)
class Answers:
    """What a kind's table is built from: one study's records, read once (previews and, unless asked,
    withdrawn participants are left out by `rows`)."""

    cfg: StudyConfig
    records: list[dict]
    include_withdrawn: bool = False
    groups: Mapping[str, list[dict]] = field(default_factory=dict)  # kept participant -> records, grouped once

    def rows(self, step: str, scale=None) -> list[dict]:
        from infact.results.tables import records as tables

        return tables.kind_rows(self.records, step, scale, include_withdrawn=self.include_withdrawn, groups=self.groups)


@dataclass(frozen=True)
class KindResults:
    """One kind of answer's results. The callables are extension points (infact/hookspecs.py: one signature and
    docstring each); the rest declares: `schema` its table, `steps` the step kinds whose records fill it,
    `ranks` (the Ranking section), `options` (analyze options only it takes), `extra_tables` and
    `extra_descriptions` (its extra export files), `collected` (what the dashboard calls its answers),
    `always` (written even when the study has none of its steps), `situations_caption` ({step kind: the
    Situations section's caption}), `compared_as` ("ratings" | "pairwise": its shape beside a judge's answers)
    and `judged` (a judge file is compared with it)."""

    schema: TableSchema
    steps: tuple[str, ...]
    build: Callable[[Answers], pd.DataFrame] | None = None
    analyze: Callable[[pd.DataFrame, Any, str], dict] | None = None
    ranks: bool = False
    report: Callable[[dict, str, Any], str] | None = None  # its analysis's report (default: the table's counts)
    options: tuple[str, ...] = ()  # analyze options only this kind's analysis takes
    extra_files: Callable[[pd.DataFrame, Any], dict[str, bytes]] | None = None
    extra_tables: tuple[TableSchema, ...] = ()  # the extra files that are tables, declared
    extra_descriptions: Mapping[str, str] = field(default_factory=dict)  # the others: what each holds
    summary: Callable[[pd.DataFrame], dict] | None = None
    places: Callable[[pd.DataFrame], Any] | None = None  # where its rows showed the systems (the ledger's)
    collected: str | None = None
    always: bool = False  # written even when the study has none of its steps (ratings.csv, questionnaire.csv)
    situations_caption: Mapping[str, str] = field(default_factory=dict)  # step kind -> caption
    compared_as: str | None = None  # "ratings" | "pairwise": its shape beside a judge's answers
    prepare: Callable[[pd.DataFrame, bool, Any], list[tuple[pd.DataFrame, int | None]]] | None = None
    judged: bool = False  # a judge file is compared with it as well (not only simulated participants)
    judge_features: Callable[[pd.DataFrame], pd.DataFrame | None] | None = None

    @property
    def name(self) -> str:
        return self.schema.name

    @property
    def extra_names(self) -> tuple[str, ...]:
        """Every extra export file of the kind."""
        return (*(s.file for s in self.extra_tables), *self.extra_descriptions)

    @property
    def per_situation(self) -> bool:
        """Answered on the assigned situations (the dashboard's Situations section)."""
        return any(s in step_kinds.situation_kinds() for s in self.steps if _known(s))

    def in_study(self, cfg: StudyConfig) -> bool:
        """The study asks for it: one of its steps is a block of the study's [flow]."""
        return self.always or any(step_kind(b) in self.steps for b in cfg.blocks)

    def caption_for(self, cfg: StudyConfig) -> str:
        """The Situations caption of the first of its step kinds the study's [flow] asks for ('' for none)."""
        asked = [step_kind(b) for b in cfg.blocks]
        return next((self.situations_caption[s] for s in asked if s in self.situations_caption), "")

    def table(self, answers: Answers) -> pd.DataFrame:
        """Its table from the answers, with exactly the declared columns (the quality decision comes later)."""
        import pandas as pd

        if self.build is not None:
            frame = self.build(answers)
        else:
            rows = [r for s in self.steps for r in answers.rows(s, step_kinds.get(s).scale(answers.cfg))]
            frame = pd.DataFrame(rows)
        return self.schema.conform(frame)

    def analysis(self, table: pd.DataFrame, options, source: str) -> dict:
        self.schema.check_columns(table.columns, source)
        return (self.analyze or describe)(table, options, source)

    def summarise(self, table: pd.DataFrame) -> dict:
        return (self.summary or summary)(table)

    @property
    def compared(self) -> bool:
        """Its answers can be set beside a judge's (it has both hooks)."""
        return self.compared_as is not None and self.prepare is not None

    def aligned(self, table: pd.DataFrame, include_flagged: bool, cfg=None) -> list[tuple[pd.DataFrame, int | None]]:
        """Its table as the comparison takes it: [(answers shaped as `compared_as`, scale points or None)]."""
        if not self.compared:
            raise ValueError(f"{self.name!r} answers are not compared with a judge's (no `compared_as`/`prepare`)")
        return self.prepare(table, include_flagged, cfg)


def with_excluded(schema: TableSchema) -> TableSchema:
    """A kind's table carries the quality decision and the bot mark, as every answer table does (declared once:
    EXCLUDED, BOT)."""
    columns = (*schema.columns, *(c for c in (EXCLUDED, BOT) if schema.column(c.name) is None))
    if len(columns) == len(schema.columns):
        return schema
    return TableSchema(schema.name, schema.description, columns, schema.repeated, schema.primary_key)


def _known(step: str) -> bool:
    return step in step_kinds.sequence()


def summary(table: pd.DataFrame) -> dict:
    """The generic numbers of a table: rows, participants, and rows per system when it has systems."""
    out: dict[str, Any] = {"rows": len(table)}
    if "participant" in table.columns:
        out["participants"] = int(table["participant"].nunique())
    if "system" in table.columns:
        out["per_system"] = {str(k): int(v) for k, v in table["system"].value_counts().sort_index().items()}
    return out


def describe(table: pd.DataFrame, options, source: str) -> dict:
    """The default analysis of a kind with none of its own: its summary and each column's values."""
    columns = {}
    for name in table.columns:
        values = table[name].dropna()
        columns[name] = {"filled": len(values), "distinct": int(values.astype(str).nunique())}
    return {"kind": "table", "source": source, **summary(table), "columns": columns}


def kinds() -> list[KindResults]:
    """Every kind of answer, in the order a participant meets its steps: each registered kind's `results` (one
    object for the kinds that fill one table), and the defaults for a kind whose step declares a table and which
    registered no results (a test's)."""
    out: dict[str, KindResults] = {}
    for kind in step_kinds.registered():
        results = kind.results
        if results is None and kind.step.schema is not None:
            results = KindResults(with_excluded(kind.step.schema), (kind.name,))
        if results is not None:
            out.setdefault(results.name, results)
    return list(out.values())


def for_table(name: str) -> KindResults:
    """The kind whose table is `name` (`pairwise` or `pairwise.csv`); an error naming the known ones."""
    name = name.removesuffix(".csv")
    found = {k.name: k for k in kinds()}
    if name not in found:
        raise OptionError("kind", f"no table kind {name!r}; the declared ones are {', '.join(found)}", key=name)
    return found[name]


def for_file(path: str, kind: str | None = None) -> KindResults:
    """The declared kind of a table file: `kind` when given (`analyze --kind`), else the file's name
    (`pairwise.csv`, `study-pairwise.csv`); a file named after no table is read as ratings."""
    from pathlib import Path

    if kind:
        return for_table(kind)
    stem = Path(path).name.removesuffix(".csv")
    found = {k.name: k for k in kinds()}
    named = [k for n, k in found.items() if stem == n or stem.endswith(("-" + n, "_" + n))]
    return max(named, key=lambda k: len(k.name)) if named else found["ratings"]


def for_step(step: str) -> KindResults | None:
    """The kind whose table a step kind's records fill (or a [flow] block's: `rating` is the situation kind)."""
    step = step_kind(step)
    return next((k for k in kinds() if step in k.steps), None)


def compared_tables(tables, *, judged: bool = False) -> list[tuple[KindResults, object]]:
    """(kind, table) of every kind whose answers can be set beside a judge's (its hooks `compared_as` and
    `prepare`; with `judged`, only those a judge file is compared with: its `judged`) whose table in
    `tables` (a study's `Tables`, or anything with `compare` by file and the every-study kinds by name) has
    rows: the kinds beyond every study's first (votes, choices, annotations), then those (ratings)."""
    out = []
    for kind in sorted((k for k in kinds() if k.compared), key=lambda k: k.always):  # stable: flow order kept
        frame = _frame_of(tables, kind)
        if (kind.judged or not judged) and frame is not None and len(frame):
            out.append((kind, frame))
    return out


def _frame_of(tables, kind: KindResults):
    by_kind = getattr(tables, "by_kind", None)
    if by_kind is not None:
        return by_kind.get(kind.name)
    if kind.always:  # Tables.ratings, .questionnaire, …
        return getattr(tables, kind.name, None)
    return (getattr(tables, "compare", None) or {}).get(kind.schema.file)


def all_schemas() -> dict[str, TableSchema]:
    """file name -> schema of every table an export can hold: every kind's, its extra tables, the study's."""
    out = {}
    for kind in kinds():
        out.update({s.file: s for s in (kind.schema, *kind.extra_tables)})
    return {**out, **{s.file: s for s in (*STUDY_TABLES, *OPTIONAL_TABLES)}}


def schema_for(file: str) -> TableSchema | None:
    return all_schemas().get(file)


def data_model_markdown() -> str:
    """docs/data-model.md's generated column tables, one per exported CSV (kinds first, in flow order)."""
    return "\n".join(schema.markdown() for schema in all_schemas().values())


# The column tables in docs/data-model.md (`infact settings-doc --write` rewrites them; a test checks they are current).
DATA_MODEL_BLOCK = Block("table-columns", "docs/data-model.md", data_model_markdown)


def common_options(options, source: str) -> dict:
    """What every kind's analysis takes from `analyze`'s options."""
    keep = ("criterion", "include_flagged", "n_boot", "seed")
    return {**{name: getattr(options, name) for name in keep}, "source": source}


def preference_options(options, source: str) -> dict:
    """What a ranking analysis (votes, best–worst choices) takes: the common options, confidence, min votes."""
    from infact.results.ranking.provisional import MIN_VOTES

    min_votes = MIN_VOTES if options.min_votes is None else options.min_votes
    maximum = options.extra.get("max_participants")  # [monitoring]'s declared maximum (analyze --study)
    return {
        **common_options(options, source),
        "confidence": options.confidence,
        "min_votes": min_votes,
        "maximum": maximum,
    }
