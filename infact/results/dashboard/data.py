"""The refreshing dashboard's data, kept up to date record by record.

`DashboardData.add(new_records)` updates only the participants those records
belong to: their funnel progress (infact.results.quality.funnel), their participants.csv
row, their per-situation quality evidence and page times. The quality flags are
computed once per data version from those small tables (not from 100,000
ratings), so the cards and the participant table refresh in milliseconds.

The full tables (ratings for the charts, statistics, export files) are the study's results
(`infact.results.study_results.StudyResults` — the same object the CLI's export and analysis read),
rebuilt at most once per data version and not more often than `results_interval` seconds.

No Streamlit here: the page keeps one instance per store (thread-safe) and calls it.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

import pandas as pd

from infact.results.quality import exclusion as quality
from infact.results.quality import flags as quality_flags
from infact.results.quality import funnel
from infact.results.quality import typed as typed_checks
from infact.results.study_results import StudyResults
from infact.results.tables import records as tables
from infact.study.loader import Study

OVERVIEW_COLUMNS = [
    "participant",
    "platform_id",
    "platform_warnings",
    "stage",
    "current_step",
    "last_activity",
    "active_now",
    "consented",
    "situations_answered",
    "total_seconds",
    "flags",
    "reasons",
    "decision",
    "prolific_action",
    "prolific_reason",
]


STEP_COLUMNS = ["participant", "step", "seconds"]


def _append(columns: dict[str, list], row: dict) -> None:
    for name, values in columns.items():
        values.append(row.get(name))


class DashboardData:
    def __init__(
        self, study: Study, *, results_interval: float = 30.0, monotonic: Callable[[], float] = time.monotonic
    ):
        self.study = study
        self.results_interval = results_interval
        self._monotonic = monotonic
        self._lock = threading.RLock()
        self.version = 0
        self._evidence_version = 0  # bumps with records the quality checks look at
        self._records: list[dict] = []
        self._keys: set = set()  # a re-read shard (after a purge) hands over records already taken
        self._by_participant: dict[str, list[dict]] = defaultdict(list)
        self._progress: dict[str, funnel.Progress] = {}
        self._visits = funnel.Visits()  # visits to the study page (funnel.fold_visits)
        self._rows: dict[str, dict] = {}  # participants.csv rows (tables.participants_table)
        # columns, appended per record: a DataFrame from lists is built far faster than from dicts
        self._situations: dict[str, list] = {c: [] for c in quality_flags.SITUATION_COLUMNS}
        self._steps: dict[str, list] = {c: [] for c in STEP_COLUMNS}
        self._typed: dict[str, list] = {c: [] for c in typed_checks.TYPED_COLUMNS}  # typed answers' counts
        self._events: list[dict] = []
        self._pending: list[dict] = []  # taken, not yet turned into quality evidence
        self._codes: dict[str, int] = {}  # participant -> integer code (evidence tables)
        self._step_codes: dict[str, int] = {}
        self._flags: tuple[int, pd.DataFrame] | None = None
        self._overview: tuple[tuple, pd.DataFrame] | None = None
        self._participants: tuple[int, pd.DataFrame] | None = None
        self._results: tuple[int, float, StudyResults] | None = None
        self._derived: dict[tuple, object] = {}
        self._memo: dict[tuple, object] = {}
        self._frames: dict[str, tuple[int, pd.DataFrame]] = {}

    # -- updating ------------------------------------------------------------
    def add(self, records: Iterable[dict]) -> int:
        """Take new records (other studies' are ignored); returns how many were taken.

        Only the funnel progress is updated here (what the first numbers need); the
        quality evidence is brought up to date when the flags are next asked for.
        """
        study_id = self.study.id  # a property: read once, not per record
        keys = self._keys
        mine = [r for r in records if r.get("study") == study_id and r.get("key") not in keys]
        keys.update(r.get("key") for r in mine)
        if not mine:
            return 0
        with self._lock:
            self._records.extend(mine)
            self._pending.extend(mine)
            funnel.progress_from_records(mine, into=self._progress)
            funnel.fold_visits((r for r in mine if r.get("kind") == "visit"), into=self._visits)
            self.version += 1
            if any(r.get("kind") != "shown" for r in mine):
                self._evidence_version += 1  # a page being shown changes no flag, only "last activity"
            return len(mine)

    def _catch_up(self) -> None:
        """Turn the records taken since last time into quality evidence."""
        pending, self._pending = self._pending, []
        changed = set()
        for rec in pending:
            if rec.get("kind") == "event":
                self._events.append(rec)
                continue
            if rec.get("preview"):
                continue
            pid = rec["participant"]
            self._by_participant[pid].append(rec)
            changed.add(pid)
            code = self._codes.setdefault(pid, len(self._codes))
            summary = quality_flags.situation_summary(rec)
            if summary is not None:
                _append(self._situations, {**summary, "participant": code})
            for row in typed_checks.typed_rows(rec):
                _append(self._typed, {**row, "participant": code})
            if rec.get("step") and rec.get("seconds") is not None and rec.get("kind") != "shown":
                # the rows of quality.steps_table, coded
                step = self._step_codes.setdefault(rec["step"], len(self._step_codes))
                _append(self._steps, {"participant": code, "step": step, "seconds": rec["seconds"]})
        recs = [r for pid in changed for r in self._by_participant[pid]]
        for row in tables.participants_table(recs, include_withdrawn=True).to_dict("records"):
            self._rows[row["participant"]] = row

    # -- reading -------------------------------------------------------------
    def records(self) -> list[dict]:
        with self._lock:
            return list(self._records)

    def participants(self) -> pd.DataFrame:
        """participants.csv's columns for every participant (withdrawn included)."""
        with self._lock:
            self._catch_up()
            if self._participants is None or self._participants[0] != self._evidence_version:
                frame = pd.DataFrame(list(self._rows.values()), columns=tables.PARTICIPANT_COLUMNS)
                self._participants = (self._evidence_version, frame)
            return self._participants[1]

    def flags(self) -> pd.DataFrame:
        """quality.assess on the incremental tables, once per change of what the checks read."""
        with self._lock:
            if self._flags is not None and self._flags[0] == self._evidence_version:
                return self._flags[1]
            cfg = self.study.config
            participants = self.participants()
            if len(participants):
                # Participants and pages as integer codes: grouping 100k rows by number is
                # many times faster than by text; the report is translated back below.
                coded = participants.assign(participant=participants["participant"].map(self._codes.get))
                events = [{**e, "target": self._codes.get(e.get("target"), -1)} for e in self._events]
                report = quality.assess(
                    pd.DataFrame(),
                    coded,
                    self._frame("steps", self._steps),
                    events,
                    cfg.quality,
                    cfg.study.expected_minutes,
                    situations=self._frame("situations", self._situations),
                    typed=self._frame("typed", self._typed),
                )
                names = pd.Series(list(self._codes), index=list(self._codes.values()))
                report["participant"] = report["participant"].map(names)
            else:
                report = pd.DataFrame(columns=quality.REPORT_COLUMNS)
            self._flags = (self._evidence_version, report)
            return report

    def _frame(self, name: str, columns: dict[str, list]) -> pd.DataFrame:
        """The evidence columns as a DataFrame, extended by the rows added since last time
        (rows are only ever appended) instead of rebuilt from tens of thousands of values."""
        n_old, frame = self._frames.get(name, (0, None))
        n = len(next(iter(columns.values())))
        if frame is None or n < n_old:
            frame = pd.DataFrame(columns)
        elif n > n_old:
            frame = pd.concat([frame, pd.DataFrame({c: v[n_old:] for c, v in columns.items()})], ignore_index=True)
        self._frames[name] = (n, frame)
        return frame

    def overview(self, now: datetime | None = None) -> pd.DataFrame:
        """One row per participant: funnel stage, where they are, flags and decision."""
        now = now or datetime.now(UTC)
        with self._lock:
            if self._overview is not None and self._overview[0] == (self.version, now):
                return self._overview[1]
            out = funnel.progress_table(self._progress, now)
            who = out["participant"]
            out["platform_id"] = [self._progress[p].platform_id for p in who]
            # Look-ups by participant (reindex) rather than merges: a few times faster at 2,000 rows.
            rows = self.participants().set_index("participant")[
                ["situations_answered", "total_seconds", "platform_warnings"]
            ]
            report = self.flags().set_index("participant")[
                ["flags", "reasons", "decision", "prolific_action", "prolific_reason"]
            ]
            for frame in (rows, report):
                looked_up = frame.reindex(who)
                for col in frame.columns:
                    out[col] = looked_up[col].to_numpy()
            self._overview = ((self.version, now), out[OVERVIEW_COLUMNS])
            return self._overview[1]

    def visits(self) -> funnel.Visits:
        """visit id -> whether it became a participant, and the visits counted in aggregate."""
        with self._lock:
            return self._visits.copy()

    def counts(self, now: datetime | None = None) -> dict[str, int]:
        """Every funnel figure, quality decisions included."""
        return funnel.funnel_counts(self.overview(now), self.visits())

    def stage_counts(self, now: datetime | None = None) -> dict[str, int]:
        """The figures that need no quality assessment (all but included/excluded): the
        dashboard's first numbers, available as soon as the records are read."""
        with self._lock:
            return funnel.stage_counts(self._progress, now or datetime.now(UTC), self.visits())

    def progress(self) -> dict[str, funnel.Progress]:
        with self._lock:
            return dict(self._progress)

    def bots_counted(self) -> bool:
        """The figures and tables include the bot participants: the store holds no person (funnel.bots_counted)."""
        with self._lock:
            return funnel.bots_counted(self._progress)

    def study_results(self, *, force: bool = False) -> tuple[StudyResults, bool]:
        """The study's results (infact/results/study_results.py: every kind's table with its kind, the export
        files, the live overview) and whether they are behind the data.

        Rebuilt when the data changed, but at most every `results_interval` seconds
        unless `force`: building them reads every rating.
        """
        with self._lock:
            cached = self._results
            stale = cached is None or cached[0] != self.version
            if stale and (force or cached is None or self._monotonic() - cached[1] >= self.results_interval):
                results = StudyResults(self.study, self.records(), include_bots=self.bots_counted())
                results.tables  # built here, under the lock, once per version  # noqa: B018
                cached = self._results = (self.version, self._monotonic(), results)
                self._derived.clear()
            return cached[2], cached[0] != self.version

    def memo(self, name: str, build: Callable[[], object], *key) -> object:
        """`build()` once per data version and `key` (e.g. coverage per situation)."""
        with self._lock:
            slot = ("memo", name, self.version, *key)
            if slot in self._memo:
                return self._memo[slot]
        value = build()
        with self._lock:
            self._memo = {k: v for k, v in self._memo.items() if k[2] == self.version}  # drop older versions
            self._memo[slot] = value
        return value

    def derived(self, name: str, build: Callable[[StudyResults], object], *key) -> object:
        """`build(study_results)` computed once per results version and `key` (e.g. the statistics
        for one criterion, the export files): the page asks on every rerun, this builds once."""
        with self._lock:
            results_now, _ = self.study_results()
            slot = (name, self._results[0], *key)
            if slot in self._derived:
                return self._derived[slot]
        value = build(results_now)  # outside the lock: statistics take a while, refreshes go on
        with self._lock:
            self._derived[slot] = value
        return value
