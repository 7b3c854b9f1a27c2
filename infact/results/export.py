"""Exports: every table a researcher needs, from one read of the store.

`collect` builds all tables plus the quality assessment (flags, decisions) and
marks excluded participants; `write_exports` writes them as files. The dashboard
offers the same bytes as downloads (`export_bytes`).
"""

from __future__ import annotations

from csv import reader as csv_reader
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from infact.fileio import write_export_folder
from infact.results import kinds
from infact.results.quality import exclusion as quality
from infact.results.quality import funnel
from infact.results.ranking import ledger
from infact.results.tables import records as tables
from infact.results.tables import schemas
from infact.results.tables.formats import records_json
from infact.storage import Storage
from infact.stores import prolific_records
from infact.study.loader import Study
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
KIND_TABLES_LEVEL = ("ratings", "questionnaire", "demographics")  # kept as their own attributes of `Tables`


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
    live = ["transcripts.jsonl", "pairwise.csv", *kinds.for_table("pairwise").extra_names] if cfg.live.enabled else []
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
        return {f"{n}.csv": df for n, df in self.by_kind.items() if n not in KIND_TABLES_LEVEL}

    def as_dict(self) -> dict[str, pd.DataFrame]:
        return {**self.by_kind, "participants": self.participants, "steps": self.steps, "flags": self.flags}


def _own(study: Study, records: list[dict], include_simulated: bool) -> tuple[list[dict], list[dict], set[str]]:
    """(the study's records, those the funnel counts, the withdrawn-with-deletion participants). Simulated
    participants (`bots --strategy llm`, marked by a `simulated` record) are left out unless asked."""
    own = [r for r in records if r.get("study") == study.id]
    simulated = {r["participant"] for r in own if r.get("kind") == "simulated"}
    if simulated and not include_simulated:
        own = [r for r in own if r.get("participant") not in simulated]
    counted = own  # the funnel counts every participant, deleted ones as withdrawn (as the dashboard does)
    gone: set[str] = set()
    if study.config.study.delete_on_withdraw:
        # Withdrawn-with-deletion participants leave no data in any file, whatever is asked:
        # participants.csv keeps only their pseudonymous token, status and `data_deleted`.
        gone = {r["participant"] for r in own if r["kind"] == "withdraw" and r.get("delete_requested")}
        own = [r for r in own if r["participant"] not in gone]
    return own, counted, gone


def tables_by_kind(cfg, own: list[dict], include_withdrawn: bool) -> dict[str, pd.DataFrame]:
    """Every kind's table the study asks for or has rows of, built through its declaration; the records are
    grouped by participant once for all of them."""
    answers = kinds.Answers(cfg, own, include_withdrawn, tables.kept(own, include_withdrawn))
    out = {}
    for kind in kinds.kinds():
        table = kind.table(answers)
        if kind.in_study(cfg) or len(table):
            out[kind.name] = table
    return out


def _decided(study: Study, t: dict, participants: pd.DataFrame, steps, events) -> tuple[pd.DataFrame, set[str]]:
    """The quality assessment (flags, decisions) and the participants it excludes."""
    cfg = study.config
    if not len(participants):
        return pd.DataFrame(columns=["participant", "flags", "reasons", "decision", "prolific_action"]), set()
    compare = {f"{n}.csv": df for n, df in t.items() if n not in KIND_TABLES_LEVEL}
    flags = quality.assess(
        t["ratings"], participants, steps, events, cfg.quality, cfg.study.expected_minutes, compare=compare
    )
    return flags, set(flags.loc[flags["decision"] == "exclude", "participant"]) if len(flags) else set()


def _participants(participants, flags, excluded, gone, include_withdrawn, progress, own) -> pd.DataFrame:
    """participants.csv: the participants with their quality decision, Prolific status, deletion and funnel
    stage."""
    decided = ["participant", "flags", "reasons", "decision", "prolific_action"]
    out = participants.merge(
        quality.for_csv(flags)[decided] if len(flags) else flags[["participant"]], on="participant", how="left"
    )
    out["excluded"] = out["participant"].isin(excluded)
    out["prolific_status"] = prolific_status(out, own)
    if gone and include_withdrawn:
        deleted = pd.DataFrame({"participant": sorted(gone), "status": "withdrawn", "excluded": True})
        out = pd.concat([out, deleted], ignore_index=True)
    out["data_deleted"] = out["participant"].isin(gone)
    return out.merge(progress, on="participant", how="left")


def collect(
    study: Study,
    records: list[dict],
    *,
    include_withdrawn: bool = False,
    now: datetime | None = None,
    include_simulated: bool = False,
) -> Tables:
    """Every table from the records; participants carry their funnel stage as of `now`. Simulated participants
    (`bots --strategy llm`, marked by a `simulated` record) are left out unless `include_simulated`."""
    cfg = study.config
    own, counted, gone = _own(study, records, include_simulated)
    participants = tables.participants_table(own, include_withdrawn=include_withdrawn)
    steps = tables.steps_table(own, include_withdrawn=include_withdrawn)
    by_kind = tables_by_kind(cfg, own, include_withdrawn)
    flags, excluded = _decided(study, by_kind, participants, steps, tables.events(own))
    # records.json follows the same rules as the tables: no previews, withdrawn only on request.
    shown = participants if include_withdrawn else participants[participants["status"] != "withdrawn"]
    kept = set(shown["participant"])
    for name, df in by_kind.items():
        if "excluded" in kinds.for_table(name).schema.names:
            by_kind[name] = df.assign(excluded=df["participant"].isin(excluded))
    progress = funnel.progress_table(funnel.progress_from_records(counted), now or datetime.now(UTC))
    t = Tables(
        by_kind,
        _participants(participants, flags, excluded, gone, include_withdrawn, progress, own),
        steps,
        flags,
        [r for r in own if r["participant"] in kept or r["kind"] == "event"],
        tables.funnel(own, cfg.study.situations_per_participant * len(cfg.blocks)),
        visits=funnel.visits_table(own),
        systems=list(study.systems),
        design=ledger.design_of(cfg),
    )
    if cfg.live.enabled:
        from infact.results.tables.live import add_live  # lazily: only live studies need it

        add_live(t, t.records, excluded)
    return t


def prolific_status(participants: pd.DataFrame, records: list[dict]) -> pd.Series:
    """Each participant's Prolific submission status from the synced `_prolific` records (infact.prolific)."""
    by_pid = prolific_records.status_by_platform_id(records)
    if "platform_id" not in participants or not by_pid:
        return pd.Series([None] * len(participants), index=participants.index, dtype=object)
    return participants["platform_id"].map(lambda p: by_pid.get(str(p).lower()) if isinstance(p, str) else None)


def csv_bytes(df: pd.DataFrame, name: str, repeated=()) -> bytes:
    """A table as written: exactly its declared columns, typed by its declaration."""
    schema = kinds.schema_for(name)
    return schema.conform(schema.typed(df), repeated).to_csv(index=False).encode("utf-8")


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
    from infact.results.tables.live import transcripts_bytes

    votes = kinds.for_table("pairwise")  # every vote, the arena's included: the kind's extra files (ledger.csv)
    extra = votes.extra_files(t.votes, t) if votes.extra_files is not None else {}
    return {"transcripts.jsonl": transcripts_bytes(t), "pairwise.csv": csv_bytes(t.votes, "pairwise.csv"), **extra}


def write_exports(
    study: Study,
    storage: Storage,
    out_dir: str | Path,
    *,
    include_withdrawn: bool = False,
    force: bool = False,
    replaced: list[str] | None = None,
    label_models: bool = False,
) -> list[Path]:
    """Every export file into `out_dir`, written as a set beside whatever else is there (see
    fileio.write_export_folder; `force` and the names it replaced, appended to `replaced`)."""
    t = collect(study, storage.records(study=study.id), include_withdrawn=include_withdrawn)
    files = export_bytes(t, study.systems, study_id=study.id, label_models=label_models)
    written, forced = write_export_folder(out_dir, files, legacy=known_files(), force=force)
    if replaced is not None:
        replaced.extend(forced)
    return written
