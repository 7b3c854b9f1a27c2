"""The live dashboard's data, kept up to date record by record.

`DashboardData.add(new_records)` updates only the participants those records
belong to: their funnel progress (infact.results.funnel), their participants.csv
row, their per-situation quality evidence and page times. The quality flags are
computed once per data version from those small tables (not from 100,000
ratings), so the cards and the participant table refresh in milliseconds.

The full tables (ratings for the charts, statistics, export files) are rebuilt
by `infact.results.export.collect` — the same function the CLI exports use — at
most once per data version and not more often than `results_interval` seconds.

No Streamlit here: the page keeps one instance per store (thread-safe) and calls it.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from typing import Callable, Iterable

import pandas as pd

from infact.results import flags as quality_flags
from infact.results import funnel, quality, tables
from infact.results.export import Tables, collect
from infact.study.loader import Study

OVERVIEW_COLUMNS = ["participant", "platform_id", "stage", "current_step", "last_activity", "active_now",
                    "consented", "situations_answered", "total_seconds", "flags", "reasons", "decision",
                    "prolific_action", "prolific_reason"]


class DashboardData:
    def __init__(self, study: Study, *, results_interval: float = 30.0,
                 monotonic: Callable[[], float] = time.monotonic):
        self.study = study
        self.results_interval = results_interval
        self._monotonic = monotonic
        self._lock = threading.RLock()
        self.version = 0
        self._records: list[dict] = []
        self._by_participant: dict[str, list[dict]] = defaultdict(list)
        self._progress: dict[str, funnel.Progress] = {}
        self._rows: dict[str, dict] = {}              # participants.csv rows (tables.participants_table)
        self._situations: dict[str, list[dict]] = defaultdict(list)
        self._steps: dict[str, list[dict]] = defaultdict(list)
        self._events: list[dict] = []
        self._flags: tuple[int, pd.DataFrame] | None = None
        self._results: tuple[int, float, Tables] | None = None

    # -- updating ------------------------------------------------------------
    def add(self, records: Iterable[dict]) -> int:
        """Take new records (other studies' are ignored); returns how many were taken."""
        mine = [r for r in records if r.get("study") == self.study.id]
        if not mine:
            return 0
        with self._lock:
            self._records.extend(mine)
            changed = set()
            for rec in mine:
                pid = rec["participant"]
                if rec.get("kind") == "event":
                    self._events.append(rec)
                    continue
                self._by_participant[pid].append(rec)
                changed.add(pid)
                summary = quality_flags.situation_summary(rec)
                if summary is not None and not rec.get("preview"):
                    self._situations[pid].append(summary)
            funnel.progress_from_records(mine, into=self._progress)
            self._steps_for(mine)
            self._rows_for(changed)
            self.version += 1
            return len(mine)

    def _steps_for(self, records: list[dict]) -> None:
        for row in quality.steps_table(records).to_dict("records"):
            self._steps[row["participant"]].append(row)

    def _rows_for(self, changed: set[str]) -> None:
        recs = [r for pid in changed for r in self._by_participant[pid]]
        for pid in changed:
            self._rows.pop(pid, None)  # a preview participant gets no row
        for row in tables.participants_table(recs, include_withdrawn=True).to_dict("records"):
            self._rows[row["participant"]] = row

    # -- reading -------------------------------------------------------------
    def records(self) -> list[dict]:
        with self._lock:
            return list(self._records)

    def participants(self) -> pd.DataFrame:
        with self._lock:
            return pd.DataFrame(list(self._rows.values()), columns=tables.PARTICIPANT_COLUMNS)

    def flags(self) -> pd.DataFrame:
        """quality.assess on the incremental tables, once per data version."""
        with self._lock:
            if self._flags is not None and self._flags[0] == self.version:
                return self._flags[1]
            cfg = self.study.config
            situations = pd.DataFrame([s for rows in self._situations.values() for s in rows],
                                      columns=quality_flags.SITUATION_COLUMNS)
            steps = pd.DataFrame([s for rows in self._steps.values() for s in rows],
                                 columns=["participant", "step", "seconds"])
            participants = self.participants()
            if len(participants):
                report = quality.assess(pd.DataFrame(), participants, steps, self._events, cfg.quality,
                                        cfg.study.expected_minutes, situations=situations)
            else:
                report = pd.DataFrame(columns=quality.REPORT_COLUMNS)
            self._flags = (self.version, report)
            return report

    def overview(self, now: datetime | None = None) -> pd.DataFrame:
        """One row per participant: funnel stage, where they are, flags and decision."""
        now = now or datetime.now(timezone.utc)
        with self._lock:
            progress = funnel.progress_table(self._progress, now)
            platform = pd.DataFrame([(p.participant, p.platform_id) for p in self._progress.values()],
                                    columns=["participant", "platform_id"])
            rows = self.participants()[["participant", "situations_answered", "total_seconds"]]
            report = self.flags().drop(columns=["status", "rsi", "failed_checks", "manual_note"])
        out = (progress.merge(platform, on="participant", how="left")
               .merge(rows, on="participant", how="left").merge(report, on="participant", how="left"))
        return out[OVERVIEW_COLUMNS]

    def counts(self, now: datetime | None = None) -> dict[str, int]:
        return funnel.funnel_counts(self.overview(now))

    def progress(self) -> dict[str, funnel.Progress]:
        with self._lock:
            return dict(self._progress)

    def results(self, *, force: bool = False) -> tuple[Tables, bool]:
        """The full tables (charts, statistics, exports) and whether they are behind the data.

        Rebuilt when the data changed, but at most every `results_interval` seconds
        unless `force`: building them reads every rating.
        """
        with self._lock:
            cached = self._results
            stale = cached is None or cached[0] != self.version
            if stale and (force or cached is None or self._monotonic() - cached[1] >= self.results_interval):
                cached = self._results = (self.version, self._monotonic(), collect(self.study, self.records()))
            return cached[2], cached[0] != self.version
