"""One study's results, read once: `open_results(study, store)`.

The records are read from the store once and every table is built from them once, each through its
kind's declaration (infact/results/kinds.py): the kind travels with its table (`ResultTable.kind`),
so nothing downstream guesses a table's kind from its columns. `analyze --study`, `export`,
`datasheet`, the judge's report and the dashboard's full tables all read from this object.

    results = open_results("data/demo", "db/demo")
    results.tables.ratings            # the export's Tables (infact/results/export.py)
    results.table("pairwise")         # ResultTable(kind, frame)
    results.files()                   # the export's bytes, datapackage.json included
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from infact.results import kinds
from infact.results.export import Tables, collect, export_bytes

if TYPE_CHECKING:
    import pandas as pd

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
    """A study and its records, read once; the tables are built on first use and kept."""

    study: Study
    records: list[dict]
    include_withdrawn: bool = False

    @cached_property
    def tables(self) -> Tables:
        return collect(self.study, self.records, include_withdrawn=self.include_withdrawn)

    def with_kinds(self) -> list[ResultTable]:
        """Every kind's table of this study, in the order a participant meets the kinds."""
        return [ResultTable(kinds.for_table(name), frame) for name, frame in self.tables.by_kind.items()]

    def table(self, name: str) -> ResultTable:
        kind = kinds.for_table(name)
        frame = self.tables.by_kind.get(kind.name)
        if frame is None and kind.name == "pairwise" and self.tables.votes is not None:
            frame = self.tables.votes  # a live study: every vote is in pairwise.csv
        return ResultTable(kind, frame if frame is not None else kind.schema.conform(_empty()))

    def main_table(self, kind: str | None = None) -> ResultTable:
        """The table `analyze --study` analyses: `kind` when given; else the first table with rows of a kind
        the study's [flow] asks for beyond ratings (votes, choices, annotations); else the ratings."""
        if kind:
            return self.table(kind)
        for table in self.with_kinds():
            if not table.kind.always and table.kind.analyze is not None and len(table.frame):
                return table
        return self.table("ratings")

    def files(self) -> dict[str, bytes]:
        """Every export file (file name -> bytes), datapackage.json included."""
        return export_bytes(self.tables, self.study.systems, study_id=self.study.id)

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


def _empty():
    import pandas as pd

    return pd.DataFrame()


def open_results(study: Study | str | Path, store, *, include_withdrawn: bool = False) -> StudyResults:
    """The results of `study` (a loaded study or its folder) from `store` (an open storage or its path):
    the store is read once, here; a store opened here is closed again."""
    from infact.storage import open_storage
    from infact.study.loader import load_study

    if not hasattr(study, "config"):
        study = load_study(study)
    if isinstance(store, (str, Path)):
        storage = open_storage(str(store))
        try:
            records = storage.records(study=study.id)
        finally:
            storage.close()
    else:
        records = store.records(study=study.id)
    return StudyResults(study, records, include_withdrawn)
