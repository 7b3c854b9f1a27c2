"""What a kind of answer is in the results: every extension point of the results half, in one file.

(The hook specification, as Datasette's `hookspecs.py`.)

As Datasette lists its plugin hooks in one `hookspecs.py`, this file names every way a step kind's
answers reach the researcher. A *kind of answer* (ratings, pairwise votes, best–worst choices,
conversation annotations, questionnaire answers, … or one a test registers) is one `KindResults`:

- `schema`       its table, declared once (`infact/table_schema.py`): the export writes exactly these
                 columns, datapackage.json describes them, `analyze FILE` reads the file back through them
                 and names a missing column;
- `steps`        the step kinds whose stored records fill it (each turns a record into rows:
                 `StepKind.rows`, infact/participation/steps/);
- `build`        `build(answers) -> DataFrame`: how those rows become the table (default: every step's
                 rows, in the declared column order);
- `analyze`      `analyze(table, options, source) -> dict`: its statistics, for `analyze` and the
                 dashboard (default: `describe`, counts a generic section can show);
- `ranks`        True when its analysis ranks the systems (the dashboard's Ranking section);
- `report`       `report(result, fmt, table) -> str`: its analysis as a Markdown (`md`) or HTML report, for
                 `analyze` and the dashboard (default: the counts of `describe`; infact/results/reports/analyses.py);
- `options`      the `analyze` options only its analysis takes (`covariates`, `reweight`: pairwise votes);
                 given for a table of another kind they are refused, naming the tables that take them;
- `extra_files`  `extra_files(table, tables) -> {name: bytes}`: more export files made from it
                 (ratings_wide.csv, annotations_aggregated.json): tables declared in `extra_tables`,
                 other files described in `extra_descriptions`;
- `places`       `places(table) -> ledger.Places`: where its rows showed the systems, one place per system
                 shown (a pairwise vote two, a best–worst choice its set), for the leaderboard ledger
                 (infact/results/ranking/ledger.py; its kind lists ledger.csv among its extra files);
- `summary`      `summary(table) -> dict`: the few numbers any dashboard section can show
                 (rows, participants, per system) without knowing the kind;
- `section`      the name its dashboard section is registered under. The drawing function is UI code:
                 `infact/ui/` registers it per section name, as the participant page registers a
                 renderer per step kind, so nothing here imports streamlit.
- `collected`    the name the dashboard calls what it collects (`votes` for pairwise.csv).
- `situations_caption`  {step kind: what the dashboard's Situations section shows beside the answers}: a
                 kind filled by several step kinds says per step what its rows are (a dialog-level
                 `pairwise_dialog` vote is on two whole conversations, a `pairwise` one on two responses);
                 `caption_for(cfg)` picks the study's.
- `compared_as`  "ratings" | "pairwise": the shape its answers take when a judge file is compared with the
                 humans (alignment.align's and agreement.compare's human answer type);
- `prepare`      `prepare(table, include_flagged, cfg) -> [(frame, scale points or None)]`: its table as
                 the aligned answers of that shape, flagged participants left out unless asked (ratings
                 and votes checked as their analyses check them; `cfg` is None when only a file is at hand);
- `judged`       True when a judge file is compared with it (`analyze --judge`, the dashboard's judges:
                 ratings and pairwise votes); `kinds.compared_tables(tables, judged=True)` finds the first
                 with rows, `analyze.judge_humans` prepares it, and any other kind is refused naming these;
- `judge_features`  `judge_features(prepared) -> DataFrame | None`: the response features its own table
                 carries (pairwise.csv's lengths), used for a judge's length bias when no responses file
                 is given.

A step kind with a `schema` and no registration here gets every default: its table reaches the
export, datapackage.json, the dashboard's downloads and `analyze FILE.csv` with no edit to a core
module (tests/participation/test_step_registry.py). The built-in kinds are in `builtin_kinds.py`; the registry
(`register`, `kinds()`, `for_table`, `for_file`, `compared_tables`) is `kinds.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from infact.participation import steps as step_kinds
from infact.study.protocol_config import STEP_KIND_OF
from infact.table_schema import BOT, EXCLUDED, TableSchema

if TYPE_CHECKING:
    import pandas as pd

    from infact.study.config import StudyConfig


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
    """One kind of answer's results (every field is an extension point; see the module docstring)."""

    schema: TableSchema
    steps: tuple[str, ...]
    build: Callable[[Answers], pd.DataFrame] | None = None
    analyze: Callable[[pd.DataFrame, Any, str], dict] | None = None
    ranks: bool = False
    report: Callable[[dict, str, Any], str] | None = None  # its analysis's report (reports/analyses.py)
    options: tuple[str, ...] = ()  # analyze options only this kind's analysis takes
    extra_files: Callable[[pd.DataFrame, Any], dict[str, bytes]] | None = None
    extra_tables: tuple[TableSchema, ...] = ()  # the extra files that are tables, declared
    extra_descriptions: Mapping[str, str] = field(default_factory=dict)  # the others: what each holds
    summary: Callable[[pd.DataFrame], dict] | None = None
    places: Callable[[pd.DataFrame], Any] | None = None  # where its rows showed the systems (the ledger's)
    section: str | None = None
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
        return self.always or any(STEP_KIND_OF.get(b, b) in self.steps for b in cfg.blocks)

    def caption_for(self, cfg: StudyConfig) -> str:
        """The Situations caption of the first of its step kinds the study's [flow] asks for ('' for none)."""
        asked = [STEP_KIND_OF.get(b, b) for b in cfg.blocks]
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
