"""The study's funnel: where every participant is, defined once.

Every figure the dashboard shows, the `stage` column of participants.csv and the
counts a test compares with `analyze` come from the functions here:

- `Progress` folds one participant's records, one at a time (so the refreshing dashboard
  updates it per new record and the exports build it from all records alike);
- `progress_table` turns them into one row per participant at a given time;
- `funnel_counts` counts those rows (plus the quality decision and the visits) into the figures.

*Visited* counts every participant plus every visit to the study page that left before
consenting (infact.participation.visits: a visit stores a small record under `_visits`,
never a participant; a flood is counted in aggregate: infact.results.quality.visit_counts).
A participant is in exactly one *stage*: visited (arrival stored, never consented; the web page stores
the arrival with the consent, so this holds bots and older data),
in_progress, stalled (consented, unfinished, lease expired: their situations are
offered to others), completed, screened_out or withdrawn. *Active now* is an
unfinished participant whose last record is at most ACTIVE_MINUTES old.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

import pandas as pd

from infact.participation.visits import VISITS

# VISIT_COLUMNS, visits_became and visits_table are re-exported: the visit counts are part of the funnel.
from infact.results.quality.visit_counts import (
    VISIT_COLUMNS as VISIT_COLUMNS,
)
from infact.results.quality.visit_counts import (
    Visits,
    fold_visits,
    left_before_consent,
    visits_from_summaries,
)
from infact.results.quality.visit_counts import (
    visits_became as visits_became,
)
from infact.results.quality.visit_counts import (
    visits_table as visits_table,
)
from infact.stores.summary import ParticipantSummary, summaries
from infact.values import bool_column

ACTIVE_MINUTES = 5
STAGES = ("visited", "in_progress", "stalled", "completed", "screened_out", "withdrawn")
PROGRESS_COLUMNS = ["participant", "stage", "consented", "active_now", "last_activity", "current_step"]

# figure -> (card label, what it counts); the order is the dashboard's.
FIGURES = {
    "visited": (
        "Visited",
        "Opened the study link, consented or not: one per browser or platform session (Back "
        "and reload are not new visits); researcher previews never count. A visit that does "
        "not consent stores only its time, no participant record (visits.csv).",
    ),
    "consented": ("Consented", "Gave consent, whatever happened afterwards."),
    "active_now": ("Active now", f"Not finished, and opened or answered a page in the last {ACTIVE_MINUTES} minutes."),
    "stalled": (
        "Stalled",
        "Consented but not finished, and their lease expired: their situations are offered to others.",
    ),
    "completed": ("Completed", "Reached the end of the study (screen-outs not included)."),
    "included": ("Included", "Completed and kept for the results."),
    "excluded": (
        "Excluded",
        "Completed but left out of the results, with reasons (table below). Flagged participants who did not "
        "complete are left out of the analysis too but not counted here (Statistics says how many).",
    ),
    "screened_out": ("Screened out", 'Ended early by a failed check (quality.on_attention_fail = "screen_out").'),
    "withdrawn": ("Withdrawn", "Withdrew from the study."),
}


class Progress(ParticipantSummary):
    """One participant's facts (infact.stores.summary: folded record by record, `add`)
    and where that puts them in the funnel."""

    def stage(self, now: datetime) -> str:
        if self.withdrawn:
            return "withdrawn"
        if self.outcome:
            return self.outcome
        if not self.consented:
            return "visited"
        if self.lease_until is not None and now > self.lease_until:
            return "stalled"
        return "in_progress"

    def active(self, now: datetime, minutes: float = ACTIVE_MINUTES) -> bool:
        if self.stage(now) not in ("visited", "in_progress"):
            return False
        last = self.last_activity
        return last is not None and now - last <= timedelta(minutes=minutes)

    def current_step(self) -> str:
        """Where an unfinished participant is, in plain words."""
        if self.withdrawn or self.outcome:
            return "finished"
        if not self.consented:
            return "consent"
        for n, step in enumerate(self.plan, start=1):
            if step not in self.answered:  # the step's own noun: situation-3 → "situation 3 of 10", conversation-…
                noun = step.rsplit("-", 1)[0] if "-" in step else "situation"
                return f"{noun} {n} of {len(self.plan)}"
        for step in ("questionnaire", "demographics"):
            if step not in self.answered:
                return step
        return "finishing"


def progress_from_records(records: Iterable[Mapping], into: dict[str, Progress] | None = None) -> dict[str, Progress]:
    """Fold records into per-participant progress (researcher records `_…` are skipped)."""
    out = into if into is not None else {}
    for rec in records:
        pid = rec.get("participant")
        if not pid or str(pid).startswith("_"):
            continue
        prog = out.get(pid)
        if prog is None:
            prog = out[pid] = Progress(pid)
        prog.add(rec)
    return out


def from_store(storage, study_id: str) -> tuple[dict[str, Progress], Visits]:
    """Every participant's progress from the store's summaries (infact.stores.summary) and
    every visit: older stores' from their `_v…` summaries, newer ones' from the records under
    `_visits` (one log or table) — the same facts `progress_from_records` and `visits_table`
    take from all records, read far more cheaply."""
    every = summaries(storage, study_id, Progress)
    visits = fold_visits(storage.records(study=study_id, participant=VISITS), into=visits_from_summaries(every))
    return {p: s for p, s in every.items() if not p.startswith("_")}, visits


def progress_from_store(storage, study_id: str) -> dict[str, Progress]:
    return from_store(storage, study_id)[0]


def stage_counts(
    progress: Mapping[str, Progress], now: datetime, visits: Mapping[str, bool] | None = None
) -> dict[str, int]:
    """The figures that need no quality assessment (all but included/excluded)."""
    return funnel_counts(progress_table(progress, now), visits)


def bots_counted(progress: Mapping[str, Progress]) -> bool:
    """The funnel counts the bot participants only in a store without a person (a pilot played by `infact bots`);
    once real participants are there, bots are counted apart and left out of every figure."""
    return not any(p.person for p in progress.values())


def progress_table(progress: Mapping[str, Progress], now: datetime, *, bots: bool | None = None) -> pd.DataFrame:
    """One row per participant who is a person (no previews, no simulated ones; bots when `bots`, by default
    only in a store without people: `bots_counted`): stage, consented, active now, last activity, step."""
    if bots is None:
        bots = bots_counted(progress)
    shown = [p for p in progress.values() if p.counted(bots)]
    if not shown:
        return pd.DataFrame(columns=PROGRESS_COLUMNS)
    return pd.DataFrame(
        {
            "participant": [p.participant for p in shown],
            "stage": [p.stage(now) for p in shown],
            "consented": [p.consented for p in shown],
            "active_now": [p.active(now) for p in shown],
            "last_activity": [p.last_activity for p in shown],
            "current_step": [p.current_step() for p in shown],
        },
        columns=PROGRESS_COLUMNS,
    )


def funnel_counts(table: pd.DataFrame, visits: Mapping[str, bool] | None = None) -> dict[str, int]:
    """The figures of FIGURES from a table with stage, consented, active_now and decision
    (the dashboard's overview, or participants.csv read back from a file) and the visits
    (visit id -> became a participant: `visits_from_summaries`, `visits_became`).
    Visited = every participant + every visit that left before consenting. Without a
    `decision` column (quality not assessed yet) `included` and `excluded` are left out."""
    left = left_before_consent(visits)
    if table.empty:
        counts = {k: 0 for k in FIGURES if "decision" in table or k not in ("included", "excluded")}
        return {**counts, "visited": left}
    stage = table["stage"].astype(str)
    completed = stage == "completed"
    counts = {
        "visited": len(table) + left,
        "consented": int(_yes(table["consented"]).sum()),
        "active_now": int(_yes(table["active_now"]).sum()),
        "stalled": int((stage == "stalled").sum()),
        "completed": int(completed.sum()),
        "screened_out": int((stage == "screened_out").sum()),
        "withdrawn": int((stage == "withdrawn").sum()),
    }
    if "decision" in table:
        decision = table["decision"].astype(str)
        counts["included"] = int((completed & (decision == "include")).sum())
        counts["excluded"] = int((completed & (decision == "exclude")).sum())
    return {k: counts[k] for k in FIGURES if k in counts}


def _yes(column: pd.Series) -> pd.Series:
    return column if column.dtype == bool else bool_column(column)  # read back from a CSV: text


def _flag_list(value) -> list[str]:
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        return [f.strip() for f in value.split(";") if f.strip()]
    return []


def exclusion_reasons(table: pd.DataFrame) -> pd.DataFrame:
    """Excluded completed participants per flag (one participant can have several flags);
    `flags` may be lists (assess) or '; '-joined text (flags.csv)."""
    if table.empty:
        return pd.DataFrame(columns=["flag", "participants"])
    excluded = table[(table["stage"].astype(str) == "completed") & (table["decision"].astype(str) == "exclude")]
    counts = excluded["flags"].map(_flag_list).explode().dropna().value_counts()
    return counts.rename_axis("flag").rename("participants").reset_index()
