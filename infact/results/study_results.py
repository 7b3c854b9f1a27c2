"""One study's results, read once: `open_results(study, store)`.

The records are read from the store once and every table is built from them once, each through its
kind's declaration (infact/results/kinds.py): the kind travels with its table (`ResultTable.kind`),
so nothing downstream guesses a table's kind from its columns. `analyze --study`, `export`,
`datasheet`, the judge's report, Prolific's review and the dashboard's full tables all read from this
object; it is the one place the tables are built (`StudyResults.tables`).

    results = open_results(load_study("data/demo"), "db/demo")
    results.tables.ratings            # the export's Tables (infact/results/export.py)
    results.table("pairwise")         # ResultTable(kind, frame)
    results.files()                   # the export's bytes, datapackage.json included
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from infact.participation.strategies import SIMULATED
from infact.results import kinds
from infact.results.export import Tables, export_bytes, others
from infact.results.quality import exclusion as quality
from infact.results.quality import funnel
from infact.results.quality import typed as typed_checks
from infact.results.ranking import ledger
from infact.results.tables import records as tables
from infact.stores import prolific_records

if TYPE_CHECKING:
    from infact.study.loader import Study


@dataclass(frozen=True)
class ResultTable:
    """A table with its kind: what it is, how it is analysed, its dashboard section."""

    kind: kinds.KindResults
    frame: pd.DataFrame

    @property
    def file(self) -> str:
        return self.kind.schema.file

    def summary(self) -> dict:
        return self.kind.summarise(self.frame)


@dataclass
class StudyResults:
    """A study and its records, read once; the tables are built on first use and kept. Simulated participants
    (`bots --strategy llm`, marked by a `simulated` record) are left out unless `include_simulated`; bot
    participants (`infact bots`: their records carry `bot`) are in every table, marked in its `bot` column,
    unless `include_bots` is false (analysis and the datasheet: `--include-bots`); participants carry their funnel
    stage as of `now` (default: when the tables are built)."""

    study: Study
    records: list[dict]
    include_withdrawn: bool = False
    include_simulated: bool = False
    now: datetime | None = None
    include_bots: bool = True

    @cached_property
    def tables(self) -> Tables:
        records = self.records if self.include_bots else without_bots(self.records)
        return _build(self.study, records, self.include_withdrawn, self.include_simulated, self.now)

    @cached_property
    def bots(self) -> set[str]:
        """The scripted bot participants among the records (left out of the tables or not)."""
        return bot_participants(self.records, simulated=False)

    def without_bots(self) -> StudyResults:
        """The same records with the bot participants left out (analysis and the datasheet's default)."""
        return self if not self.include_bots else dataclasses.replace(self, include_bots=False)

    def with_simulated(self) -> StudyResults:
        """The same records with the simulated participants kept in (their alignment with the humans)."""
        return dataclasses.replace(self, include_simulated=True)

    def with_kinds(self) -> list[ResultTable]:
        """Every kind's table of this study, in the order a participant meets the kinds."""
        return [ResultTable(kinds.for_table(name), frame) for name, frame in self.tables.by_kind.items()]

    def table(self, name: str) -> ResultTable:
        """The table of kind `name` (`pairwise` or `pairwise.csv`); an empty one, declared, when it has none."""
        kind = kinds.for_table(name)
        frame = self.tables.by_kind.get(kind.name)
        if frame is None and self.tables.votes is not None:  # a live study: every vote, the arena's too, is in
            from infact.results.tables.live import LIVE_VOTES  # one table (lazily: only live studies need it)

            frame = self.tables.votes if kind.schema.file == LIVE_VOTES else None
        return ResultTable(kind, frame if frame is not None else kind.schema.conform(pd.DataFrame()))

    def has(self, name: str) -> bool:
        """The study has a table of kind `name` (its [flow] asks for it, or it has rows)."""
        return name.removesuffix(".csv") in self.tables.by_kind  # a kind's table is named after the kind

    def main_table(self, kind: str | None = None) -> ResultTable:
        """The table `analyze --study` analyses: `kind` when given; else the first table with rows of a kind
        the study's [flow] asks for beyond ratings (votes, choices, annotations); else the ratings."""
        if kind:
            return self.table(kind)
        for table in self.with_kinds():
            if not table.kind.always and table.kind.analyze is not None and len(table.frame):
                return table
        return self.table("ratings")

    def ranked(self) -> ResultTable | None:
        """The table the study's ranking ranks: its first kind whose analysis ranks the systems (votes, choices)."""
        return next((t for t in self.with_kinds() if t.kind.ranks), None)

    def files(self, *, label_models: bool = False) -> dict[str, bytes]:
        """Every export file (file name -> bytes), datapackage.json included."""
        return export_bytes(self.tables, self.study.systems, study_id=self.study.id, label_models=label_models)

    def live_overview(self) -> dict | None:
        """The live chats' summary and arena ranking, None when the study has no live chats."""
        if not self.study.config.live.enabled:
            return None
        from infact.results.live.overview import live_overview
        from infact.results.live.simulated import simulated_vs_human

        out = live_overview(self.tables)
        simulated = simulated_vs_human(self.records)  # simulated participants: left out above, compared here
        if simulated is not None:
            out["simulated_vs_human"] = simulated
        return out


def open_results(study: Study, store, *, include_withdrawn: bool = False, include_bots: bool = True) -> StudyResults:
    """The results of a loaded `study` (`load_study`: loaded once, by the caller) from `store` (an open storage
    or its path): the store is read once, here; a store opened here is closed again. `include_bots=False` leaves
    the bot participants out of every table (`analyze` and `datasheet` without `--include-bots`)."""
    from infact.storage import open_storage

    if isinstance(store, (str, Path)):
        storage = open_storage(str(store))
        try:
            records = storage.records(study=study.id)
        finally:
            storage.close()
    else:
        records = store.records(study=study.id)
    return StudyResults(study, records, include_withdrawn, include_bots=include_bots)


def bot_participants(records: list[dict], *, simulated: bool = True) -> set[str]:
    """Participants played by `infact bots`: any record of theirs carries `bot` (the flow writes it on each);
    without the LLM-simulated ones (`bot: llm`) when not `simulated`."""
    return {r["participant"] for r in records if r.get("bot") and (simulated or r["bot"] != SIMULATED)}


def without_bots(records: list[dict]) -> list[dict]:
    """The records without the scripted bots' (LLM-simulated participants are left out, or compared with the
    people, by `include_simulated`)."""
    bots = bot_participants(records, simulated=False)
    return [r for r in records if r.get("participant") not in bots] if bots else records


# --------------------------------------------------------------------------- building the tables, once


def _own(study: Study, records: list[dict], include_simulated: bool) -> tuple[list[dict], list[dict], set[str]]:
    """(the study's records, those the funnel counts, the withdrawn-with-deletion participants)."""
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


def _by_kind(study: Study, own: list[dict], include_withdrawn: bool) -> dict[str, pd.DataFrame]:
    """Every kind's table; in a between-subjects study each condition's participants through their condition's
    settings (its scale labels, criteria, systems: infact/study/conditions/overlay.py), the tables then joined."""
    groups = tables.kept(own, include_withdrawn)
    if not study.conditions:
        return _kind_tables(study.config, own, include_withdrawn, groups)
    split: dict = {}
    for p, recs in groups.items():
        condition = next((r.get("condition") for r in recs if r["kind"] == "arrival"), None)
        split.setdefault(condition if condition in study.conditions else None, {})[p] = recs
    parts = [
        _kind_tables(study.under(c).config if c else study.config, own, include_withdrawn, g) for c, g in split.items()
    ] or [_kind_tables(study.config, own, include_withdrawn, {})]
    names = dict.fromkeys(name for part in parts for name in part)
    return {
        name: pd.concat([part[name] for part in parts if name in part], ignore_index=True)
        if len(parts) > 1
        else parts[0][name]
        for name in names
    }


def _kind_tables(cfg, own: list[dict], include_withdrawn: bool, groups: dict) -> dict[str, pd.DataFrame]:
    """Every kind's table the study asks for or has rows of, built through its declaration; the records are
    grouped by participant once for all of them."""
    answers = kinds.Answers(cfg, own, include_withdrawn, groups)
    out = {}
    for kind in kinds.kinds():
        table = kind.table(answers)
        if kind.in_study(cfg) or len(table):
            out[kind.name] = table
    return out


def _decided(study: Study, t: dict, participants: pd.DataFrame, steps, events, own) -> tuple[pd.DataFrame, set[str]]:
    """The quality assessment (flags, decisions) and the participants it excludes."""
    cfg = study.config
    if not len(participants):
        return pd.DataFrame(columns=["participant", "flags", "reasons", "decision", "prolific_action"]), set()
    compare = others(t)
    flags = quality.assess(
        t["ratings"],
        participants,
        steps,
        events,
        cfg.quality,
        cfg.study.expected_minutes,
        compare=compare,
        typed=typed_checks.typed_table(own),
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


def _build(study: Study, records: list[dict], include_withdrawn: bool, include_simulated: bool, now) -> Tables:
    """Every table from the records, with the quality decision on each kind's table."""
    cfg = study.config
    own, counted, gone = _own(study, records, include_simulated)
    participants = tables.participants_table(own, include_withdrawn=include_withdrawn)
    steps = tables.steps_table(own, include_withdrawn=include_withdrawn)
    by_kind = _by_kind(study, own, include_withdrawn)
    flags, excluded = _decided(study, by_kind, participants, steps, tables.events(own), own)
    # records.json follows the same rules as the tables: no previews, withdrawn only on request.
    shown = participants if include_withdrawn else participants[participants["status"] != "withdrawn"]
    kept = set(shown["participant"])
    bots = bot_participants(own)
    for name, df in by_kind.items():
        if "excluded" in kinds.for_table(name).schema.names:
            df = by_kind[name] = df.assign(excluded=df["participant"].isin(excluded))
        if "bot" in kinds.for_table(name).schema.names and "participant" in df.columns:
            by_kind[name] = df.assign(bot=df["participant"].isin(bots))
    progress = funnel.progress_table(funnel.progress_from_records(counted), now or datetime.now(UTC), bots=True)
    t = Tables(
        by_kind,
        _participants(participants, flags, excluded, gone, include_withdrawn, progress, own),
        steps,
        flags.assign(bot=flags["participant"].isin(bots)) if len(flags) else flags,
        [r for r in own if r["participant"] in kept or r["kind"] == "event"],
        tables.funnel(own, cfg.study.situations_per_participant * len(cfg.blocks)),
        visits=funnel.visits_table(own),
        systems=list(study.systems),
        design=ledger.design_of(cfg),
    )
    if cfg.live.enabled:
        from infact.results.tables.live import add_live  # lazily: only live studies need it

        add_live(t, t.records, excluded)
    return _with_conditions(t, own)


def _with_conditions(t: Tables, own: list[dict]) -> Tables:
    """Every table of participants' answers with their between-subjects condition next to the participant
    (declared once: infact/table_schema.py, CONDITION)."""
    of = {r["participant"]: r.get("condition") for r in own if r.get("kind") == "arrival"}

    def put(frame: pd.DataFrame | None) -> pd.DataFrame | None:
        if frame is None or "participant" not in frame.columns:
            return frame
        column = frame["participant"].map(of).astype(object) if len(frame) else pd.Series([], dtype=object)
        if "condition" in frame.columns:  # declared (the builders make every declared column): filled here
            return frame.assign(condition=column.values)
        at = list(frame.columns).index("participant") + 1
        out = frame.copy()
        out.insert(at, "condition", column.values)
        return out

    t.by_kind = {name: put(df) for name, df in t.by_kind.items()}
    t.participants, t.steps, t.flags, t.votes = map(put, (t.participants, t.steps, t.flags, t.votes))
    return t


def prolific_status(participants: pd.DataFrame, records: list[dict]) -> pd.Series:
    """Each participant's Prolific submission status from the synced `_prolific` records (infact.prolific): the
    submission whose id is the participant's SESSION_ID; by Prolific ID only when one session used that ID
    (a second session with someone's ID never shows their submission)."""
    by_pid = prolific_records.status_by_platform_id(records)
    if "platform_id" not in participants or not by_pid:
        return pd.Series([None] * len(participants), index=participants.index, dtype=object)
    by_submission = {sid.lower(): sub["status"] for sid, sub in prolific_records.submissions(records).items()}
    session, sessions_of = {}, {}
    for r in records:
        if r.get("kind") == "arrival" and not r.get("preview"):
            session[r["participant"]] = str((r.get("platform_params") or {}).get("SESSION_ID") or "").lower()
            pid = str(r.get("platform_id") or "").lower()
            sessions_of[pid] = sessions_of.get(pid, 0) + 1

    def status(row) -> str | None:
        pid = row["platform_id"].lower() if isinstance(row["platform_id"], str) else ""
        mine = session.get(row["participant"])
        if mine and mine in by_submission:
            return by_submission[mine]
        return by_pid.get(pid) if pid and sessions_of.get(pid, 0) <= 1 else None

    return participants.apply(status, axis=1).astype(object) if len(participants) else participants["platform_id"]
