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
from infact.participation import steps
from infact.results.conversations import tables as conversation_annotations
from infact.results.quality import exclusion as quality
from infact.results.quality import funnel
from infact.results.tables import records as tables
from infact.results.tables import schemas, votes
from infact.results.tables.formats import infact_workbook_bytes, records_json, wide_ratings
from infact.storage import Storage, open_storage
from infact.stores import prolific_records
from infact.study.loader import Study, load_study
from infact.table_schema import TableSchema, datapackage

FILES = {
    "ratings.csv": "long: one row per participant × situation × system × criterion",
    "ratings_wide.csv": "one row per participant × situation, one column per system",
    "participants.csv": "one row per participant: status, funnel stage, last activity, completion code, timings, "
    "flags, decision",
    "visits.csv": "one row per visit to the study page, consented or not (no personal data): the funnel's Visited",
    "questionnaire.csv": "post-task questionnaire answers, long",
    "demographics.csv": "demographics answers, long",
    "flags.csv": "quality checks: flags, reasons, decision, Prolific action",
    "records.json": "every stored record, as stored",
    "infact_sheets.xlsx": "INFACT's workbook: valid trials, invalid trials, demographics, feedback",
    "datapackage.json": "Frictionless Data Package: every CSV's columns, types and meaning "
    "(`frictionless validate datapackage.json`)",
}
COMPARE_FILES = votes.FILES  # written for pairwise / best–worst studies (docs/ranking.md)
LIVE_FILES = {  # written only for studies with live chats (docs/live.md)
    "transcripts.jsonl": "live chats: one conversation per line, every message with items, latency and error",
    "pairwise.csv": "arena votes: one row per vote (winner is a system, `tie` or `both_bad`); identity leaks marked",
}
ANNOTATION_FILES = {  # written for conversation studies (docs/protocols.md)
    "annotations.csv": "conversation annotations, long: participant × conversation × turn × aspect (dialogue "
    "aspects with an empty turn)",
    "annotations_aggregated.json": "the annotations in CRSArena-Eval's aggregated shape (median per item)",
}
# every file an export can hold, for listings
DESCRIPTIONS = {**FILES, **LIVE_FILES, **COMPARE_FILES, **ANNOTATION_FILES}


def describe(name: str) -> str:
    """What an export file holds (the CLI's list and the dashboard's download labels); a step kind's
    own table is described by its declaration."""
    if name in DESCRIPTIONS:
        return DESCRIPTIONS[name]
    schema = schemas.schema_for(name)
    return schema.description if schema else ""


@dataclass
class Tables:
    ratings: pd.DataFrame
    participants: pd.DataFrame
    questionnaire: pd.DataFrame
    demographics: pd.DataFrame
    steps: pd.DataFrame
    flags: pd.DataFrame
    records: list[dict]
    funnel: pd.DataFrame | None = None  # how far participants got (dashboard)
    live: bool = False  # the study has live chats: transcripts and votes are exported
    transcripts: list[dict] = field(default_factory=list)
    votes: pd.DataFrame | None = None
    compare: dict[str, pd.DataFrame] = field(default_factory=dict)  # pairwise.csv / best_worst.csv (results/votes.py)
    visits: pd.DataFrame | None = None  # visits.csv: visits to the study page, consented or not (funnel.visits_table)
    kinds: dict[str, pd.DataFrame] = field(default_factory=dict)  # every other step kind's own table, by file name

    def as_dict(self) -> dict[str, pd.DataFrame]:
        return {
            "ratings": self.ratings,
            "participants": self.participants,
            "questionnaire": self.questionnaire,
            "demographics": self.demographics,
            "steps": self.steps,
            "flags": self.flags,
            **{name.removesuffix(".csv"): df for name, df in {**self.compare, **self.kinds}.items()},
        }


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
    own = [r for r in records if r.get("study") == study.id]
    simulated = {r["participant"] for r in own if r.get("kind") == "simulated"}
    if simulated and not include_simulated:
        own = [r for r in own if r.get("participant") not in simulated]
    counted = own  # the funnel counts every participant, deleted ones as withdrawn (as the dashboard does)
    gone: set[str] = set()
    if cfg.study.delete_on_withdraw:
        # Withdrawn-with-deletion participants leave no data in any file, whatever is asked:
        # participants.csv keeps only their pseudonymous token, status and `data_deleted`.
        gone = {r["participant"] for r in own if r["kind"] == "withdraw" and r.get("delete_requested")}
        own = [r for r in own if r["participant"] not in gone]
    ratings = tables.ratings_table(own, cfg.scale.labels, include_withdrawn=include_withdrawn)
    participants = tables.participants_table(own, include_withdrawn=include_withdrawn)
    steps = tables.steps_table(own, include_withdrawn=include_withdrawn)
    questionnaire = tables.answers_table(
        own, "questionnaire", cfg.questionnaire.scale, include_withdrawn=include_withdrawn
    )
    demographics = tables.answers_table(own, "demographics", include_withdrawn=include_withdrawn)
    events = tables.events(own)
    # records.json follows the same rules as the tables: no previews, withdrawn only on request.
    kept = (
        set(participants["participant"])
        if include_withdrawn
        else set(participants.loc[participants["status"] != "withdrawn", "participant"])
    )
    own_records = [r for r in own if r["participant"] in kept or r["kind"] == "event"]
    compare = {
        name: df
        for kind in cfg.blocks  # every protocol block's votes (a rating block has none)
        for name, df in votes.compare_tables(own, kind, set(), include_withdrawn=include_withdrawn).items()
    }
    if cfg.protocol.kind == "conversation" or any(r["kind"] == "conversation" for r in own):
        compare["annotations.csv"] = conversation_annotations.annotations_frame(
            tables.kind_rows(own, "conversation", cfg.aspects, include_withdrawn=include_withdrawn)
        )
    kinds = other_kind_tables(own, cfg, set(compare), include_withdrawn)
    if len(participants):
        flags = quality.assess(
            ratings, participants, steps, events, cfg.quality, cfg.study.expected_minutes, compare=compare
        )
    else:
        flags = pd.DataFrame(columns=["participant", "flags", "reasons", "decision", "prolific_action"])
    excluded = set(flags.loc[flags["decision"] == "exclude", "participant"]) if len(flags) else set()
    ratings = ratings.assign(excluded=ratings["participant"].isin(excluded))
    participants = participants.merge(
        quality.for_csv(flags)[["participant", "flags", "reasons", "decision", "prolific_action"]]
        if len(flags)
        else flags[["participant"]],
        on="participant",
        how="left",
    )
    participants["excluded"] = participants["participant"].isin(excluded)
    participants["prolific_status"] = prolific_status(participants, own)
    if gone and include_withdrawn:
        participants = pd.concat(
            [participants, pd.DataFrame({"participant": sorted(gone), "status": "withdrawn", "excluded": True})],
            ignore_index=True,
        )
    participants["data_deleted"] = participants["participant"].isin(gone)
    progress = funnel.progress_table(funnel.progress_from_records(counted), now or datetime.now(UTC))
    participants = participants.merge(progress, on="participant", how="left")
    t = Tables(
        ratings,
        participants,
        questionnaire,
        demographics,
        steps,
        flags,
        own_records,
        tables.funnel(own, cfg.study.situations_per_participant * len(cfg.blocks)),
        compare={name: df.assign(excluded=df["participant"].isin(excluded)) for name, df in compare.items()},
        visits=funnel.visits_table(own),
        kinds={name: df.assign(excluded=df["participant"].isin(excluded)) for name, df in kinds.items()},
    )
    if cfg.live.enabled:
        from infact.results.tables.live import add_live  # lazily: only live studies need it

        add_live(t, own_records, excluded)
        if "pairwise.csv" in t.compare and t.votes is not None:  # one pairwise.csv holds both kinds of vote
            t.votes = pd.concat([t.compare.pop("pairwise.csv"), t.votes], ignore_index=True)
    return t


# Tables built by their own code above; any other registered kind's table is exported from its rows.
BUILT_IN_TABLES = ("ratings", "questionnaire", "demographics", "pairwise", "best_worst", "annotations")


def prolific_status(participants: pd.DataFrame, records: list[dict]) -> pd.Series:
    """Each participant's Prolific submission status from the synced `_prolific` records (infact.prolific)."""
    by_pid = prolific_records.status_by_platform_id(records)
    if "platform_id" not in participants or not by_pid:
        return pd.Series([None] * len(participants), index=participants.index, dtype=object)
    return participants["platform_id"].map(lambda p: by_pid.get(str(p).lower()) if isinstance(p, str) else None)


def other_kind_tables(records: list[dict], cfg, done: set[str], include_withdrawn: bool) -> dict[str, pd.DataFrame]:
    """file name -> table for every registered step kind with a table of its own (a new kind's table reaches the
    export, the dashboard's downloads and datapackage.json without a change here)."""
    out: dict[str, pd.DataFrame] = {}
    for kind in steps.kinds():
        name = kind.table
        if not name or name in BUILT_IN_TABLES or f"{name}.csv" in done or f"{name}.csv" in out:
            continue
        rows = tables.kind_rows(records, kind.name, kind.scale(cfg), include_withdrawn=include_withdrawn)
        if not rows:
            continue
        frame = pd.DataFrame(rows)
        if kind.schema is not None:  # declared columns first, in their order
            frame = frame[
                [c for c in kind.schema.names if c in frame.columns]
                + [c for c in frame.columns if kind.schema.column(c) is None]
            ]
        out[f"{name}.csv"] = frame
    return out


def export_bytes(t: Tables, systems: list[str] | None = None, *, study_id: str = "infact") -> dict[str, bytes]:
    """File name → content, for the CLI and the dashboard's download buttons; datapackage.json describes the set."""

    def csv(df: pd.DataFrame, name: str | None = None) -> bytes:  # typed by the file's declaration
        schema = schemas.schema_for(name) if name else None
        return (schema.typed(df) if schema else df).to_csv(index=False).encode("utf-8")

    files = {
        "ratings.csv": csv(t.ratings, "ratings.csv"),
        "ratings_wide.csv": csv(
            wide_ratings(t.ratings)
            if len(t.ratings)
            else pd.DataFrame(columns=["participant", "step_index", "situation_id", "dialog_id", *(systems or [])]),
            "ratings_wide.csv",
        ),
        "participants.csv": csv(t.participants, "participants.csv"),
        "visits.csv": csv(t.visits if t.visits is not None else pd.DataFrame(columns=funnel.VISIT_COLUMNS)),
        "questionnaire.csv": csv(t.questionnaire, "questionnaire.csv"),
        "demographics.csv": csv(t.demographics),
        "flags.csv": csv(quality.for_csv(t.flags) if len(t.flags) else t.flags),
        "records.json": records_json(t.records).encode("utf-8"),
        "infact_sheets.xlsx": infact_workbook_bytes(t.ratings, t.participants, t.questionnaire, t.demographics),
        **{name: csv(df, name) for name, df in t.compare.items()},
        **(
            {
                "annotations_aggregated.json": conversation_annotations.aggregated_json(
                    t.compare["annotations.csv"], t.records
                ).encode("utf-8")
            }
            if "annotations.csv" in t.compare
            else {}
        ),
        **{name: csv(df, name) for name, df in t.kinds.items()},
        **(_live_bytes(t) if t.live else {}),
    }
    files["datapackage.json"] = package_json(files, study_id)
    return files


def package_json(files: dict[str, bytes], study_id: str) -> bytes:
    """datapackage.json for an export set: each CSV with its declared schema (columns as written), the rest listed."""
    import json

    resources, others = [], {}
    for name, data in files.items():
        if name.endswith(".csv"):
            header = data.decode("utf-8").split("\n", 1)[0].strip()
            columns = next(csv_reader([header]), []) if header else []
            schema = schemas.schema_for(name) or TableSchema(name.removesuffix(".csv"), describe(name), ())
            resources.append((schema, columns))
        else:
            others[name] = describe(name)
    package = datapackage(f"infact-{study_id}", f"INFACT export of study {study_id}", resources, others)
    return (json.dumps(package, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _live_bytes(t: Tables) -> dict[str, bytes]:
    from infact.results.tables.live import live_bytes

    return live_bytes(t)


def write_exports(
    study: Study,
    storage: Storage,
    out_dir: str | Path,
    *,
    include_withdrawn: bool = False,
    force: bool = False,
    replaced: list[str] | None = None,
) -> list[Path]:
    """Every export file into `out_dir`, written as a set beside whatever else is there (see
    fileio.write_export_folder; `force` and the names it replaced, appended to `replaced`)."""
    t = collect(study, storage.records(study=study.id), include_withdrawn=include_withdrawn)
    files = export_bytes(t, study.systems, study_id=study.id)
    legacy = [*DESCRIPTIONS, *schemas.all_schemas()]  # an export from before manifests wrote only these
    written, forced = write_export_folder(out_dir, files, legacy=legacy, force=force)
    if replaced is not None:
        replaced.extend(forced)
    return written


def tables_from_store(study_dir: str | Path, db_path: str, include_flagged: bool = False) -> dict[str, pd.DataFrame]:
    """For `python -m infact analyze --study DIR --db PATH`: ratings with an `excluded` column."""
    study = load_study(study_dir)
    storage = open_storage(db_path)
    try:
        t = collect(study, storage.records(study=study.id))
    finally:
        storage.close()
    return t.as_dict()
