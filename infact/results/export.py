"""Exports: every table of a study's results as files.

The tables are built once, by the study's results (`StudyResults.tables`, infact/results/study_results.py:
every kind's table, the quality assessment, excluded participants marked); `export_bytes` turns them into
the export's files, `write_exports` writes them as a set. The dashboard offers the same bytes as downloads.
"""

from __future__ import annotations

from csv import reader as csv_reader
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from infact.fileio import write_export_folder
from infact.results import kinds
from infact.results.quality import exclusion as quality
from infact.results.tables import schemas
from infact.results.tables.formats import records_json
from infact.table_schema import datapackage

# The export's files that are not a kind's table (each table describes itself: its declaration, its kind's
# `extra_descriptions`; infact/results/kinds.py).
FILES = {
    "records.json": "every stored record, as stored",
    "transcripts.jsonl": "live chats (docs/live.md): one conversation per line, every message with items, "
    "latency and error",
    "datapackage.json": "Frictionless Data Package: every CSV's columns, types and meaning "
    "(`frictionless validate datapackage.json`)",
}


def others(by_kind: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """file -> table of every kind that is not in every study (`always`: ratings, questionnaire, demographics,
    kept as their own attributes of `Tables`): the comparisons, annotations and any new kind's."""
    return {f"{n}.csv": df for n, df in by_kind.items() if not kinds.for_table(n).always}


def describe(name: str) -> str:
    """What an export file holds (the CLI's list and the dashboard's download labels), from its declaration."""
    if name in FILES:
        return FILES[name]
    schema = kinds.schema_for(name)
    if schema is not None:
        return schema.description
    return next((k.extra_descriptions[name] for k in kinds.kinds() if name in k.extra_descriptions), "")


def files_of(cfg) -> list[str]:
    """The files every export of this study holds (a kind it does not ask for adds its table once it has rows)."""
    asked = [k for k in kinds.kinds() if k.in_study(cfg)]
    tables = [*(s.file for s in schemas.STUDY_TABLES), *(f for k in asked for f in (k.schema.file, *k.extra_names))]
    live = []
    if cfg.live.enabled:
        from infact.results.tables.live import LIVE_VOTES

        live = ["transcripts.jsonl", LIVE_VOTES, *kinds.for_table("pairwise").extra_names]
    return list(dict.fromkeys([*tables, *live, "records.json", "datapackage.json"]))


def known_files() -> list[str]:
    """Every file an export can hold (the write step replaces only these)."""
    extra = [f for k in kinds.kinds() for f in k.extra_names]
    return [*FILES, *kinds.all_schemas(), *extra]


@dataclass
class Tables:
    """One study's tables. `by_kind` maps a table's name to its kind's table: the kind travels with the
    table (`kinds.for_table(name)` says what it is), nothing guesses it from the columns."""

    by_kind: dict[str, pd.DataFrame]
    participants: pd.DataFrame
    steps: pd.DataFrame
    flags: pd.DataFrame
    records: list[dict]
    funnel: pd.DataFrame | None = None  # how far participants got (dashboard)
    live: bool = False  # the study has live chats: transcripts and votes are exported
    transcripts: list[dict] = field(default_factory=list)
    votes: pd.DataFrame | None = None  # live studies: every vote of pairwise.csv, the arena's included
    visits: pd.DataFrame | None = None  # visits.csv: visits to the study page, consented or not (funnel.visits_table)
    systems: list[str] = field(default_factory=list)  # the study's systems (ratings_wide.csv's columns)
    design: str | None = None  # how pairs are scheduled, balanced or adaptive (ledger.csv's intended shares)

    @property
    def ratings(self) -> pd.DataFrame:
        return self.by_kind["ratings"]

    @ratings.setter
    def ratings(self, frame: pd.DataFrame) -> None:
        self.by_kind["ratings"] = frame

    @property
    def questionnaire(self) -> pd.DataFrame:
        return self.by_kind["questionnaire"]

    @property
    def demographics(self) -> pd.DataFrame:
        return self.by_kind["demographics"]

    @property
    def compare(self) -> dict[str, pd.DataFrame]:
        """The tables of every other kind (pairwise.csv, best_worst.csv, annotations.csv, a new kind's), by file."""
        return others(self.by_kind)

    def placed(self, name: str | None = None, table: pd.DataFrame | None = None) -> list[tuple]:
        """(file, table, places) of every table whose kind says where its rows showed the systems (the ledger's;
        KindResults.places), `table` in place of kind `name`'s; a live study's pairwise.csv: every vote, the
        arena's included (`votes`, as _live_bytes writes its extra files)."""
        live = {} if self.votes is None else {kinds.for_table("pairwise").name: self.votes}
        frames = {**self.by_kind, **live, **({name: table} if name is not None else {})}
        return [
            (k.schema.file, frames[k.name], k.places)
            for k in kinds.kinds()
            if k.places is not None and frames.get(k.name) is not None
        ]

    def as_dict(self) -> dict[str, pd.DataFrame]:
        return {**self.by_kind, "participants": self.participants, "steps": self.steps, "flags": self.flags}


def csv_bytes(df: pd.DataFrame, name: str, repeated=()) -> bytes:
    """A table as written: exactly its declared columns, typed by its declaration, text cells that a spreadsheet
    would run as a formula neutralised (TableSchema.csv_bytes, infact/table_schema.py)."""
    schema = kinds.schema_for(name)
    return schema.csv_bytes(df, repeated)


def export_bytes(
    t: Tables, systems: list[str] | None = None, *, study_id: str = "infact", label_models: bool = False
) -> dict[str, bytes]:
    """File name → content, for the CLI and the dashboard's download buttons; datapackage.json describes the set."""
    if systems is not None:
        t.systems = list(systems)
    flags = quality.for_csv(t.flags) if len(t.flags) else t.flags
    files = {
        "participants.csv": csv_bytes(t.participants, "participants.csv"),
        "visits.csv": csv_bytes(t.visits if t.visits is not None else pd.DataFrame(), "visits.csv"),
        "flags.csv": csv_bytes(flags, "flags.csv"),
        "records.json": records_json(t.records).encode("utf-8"),
    }
    for name, df in t.by_kind.items():
        kind = kinds.for_table(name)
        files[kind.schema.file] = csv_bytes(df, kind.schema.file)
        if kind.extra_files is not None:
            files.update(kind.extra_files(df, t))
    if t.live:
        files.update(_live_bytes(t))
    if label_models:  # `export --label-models`: soft_labels.csv and the reliability columns (docs/llm.md)
        from infact.results.crowd.report import export_files

        files.update(export_files(t.ratings, t.participants, csv_bytes))
    files["datapackage.json"] = package_json(files, study_id)
    return files


def package_json(files: dict[str, bytes], study_id: str) -> bytes:
    """datapackage.json for an export set: each CSV with its declared schema (columns as written), the rest listed."""
    import json

    resources, others = [], {}
    for name, data in files.items():
        if name == "datapackage.json":
            continue
        if name.endswith(".csv"):
            header = data.decode("utf-8").split("\n", 1)[0].strip()
            resources.append((kinds.schema_for(name), next(csv_reader([header]), []) if header else []))
        else:
            others[name] = describe(name)
    package = datapackage(f"infact-{study_id}", f"INFACT export of study {study_id}", resources, others)
    return (json.dumps(package, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _live_bytes(t: Tables) -> dict[str, bytes]:
    from infact.results.tables.live import LIVE_VOTES, transcripts_bytes

    votes = kinds.for_table("pairwise")  # every vote, the arena's included: the kind's extra files (ledger.csv)
    extra = votes.extra_files(t.votes, t) if votes.extra_files is not None else {}
    return {"transcripts.jsonl": transcripts_bytes(t), LIVE_VOTES: csv_bytes(t.votes, LIVE_VOTES), **extra}


def write_exports(
    results,
    out_dir: str | Path,
    *,
    force: bool = False,
    replaced: list[str] | None = None,
    label_models: bool = False,
) -> list[Path]:
    """Every export file of `results` (a StudyResults, infact/results/study_results.py) into `out_dir`, written
    as a set beside whatever else is there (see fileio.write_export_folder; `force` and the names it replaced,
    appended to `replaced`)."""
    files = results.files(label_models=label_models)
    written, forced = write_export_folder(out_dir, files, legacy=known_files(), force=force)
    if replaced is not None:
        replaced.extend(forced)
    return written
