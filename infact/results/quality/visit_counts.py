"""The funnel's visits: which visits to the study page became participants, and how many
left before consenting, from the visit records (infact.participation.visits).

Individual visits are records with a `visit` id, consents records with `visit` and
`became`. Past a process's per-minute bound visits are only counted: `aggregated`
records with a `count`. A consent whose visit has no record of its own was one of the
counted ones (or its record failed), so it is taken off the counted ones, not added:

    left = recorded visits that never consented + max(0, counted − consents of unrecorded visits)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from infact.stores.summary import ParticipantSummary

VISIT_COLUMNS = ["visit", "first_seen", "became", "visits"]
AGGREGATED = "(aggregated)"  # visits.csv's row for the visits counted, not recorded one by one


class Visits(dict):
    """visit id -> whether it became a participant, plus the visits counted in aggregate."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.recorded: set[str] = set(self)  # ids with a visit record of their own
        self.aggregated = 0  # visits counted, not recorded one by one
        self.aggregated_minutes: set[str] = set()
        self.first_aggregated: str | None = None

    def add(self, rec: Mapping) -> None:
        """Fold one visit record in (other records are ignored)."""
        if rec.get("kind") != "visit" or rec.get("preview"):
            return
        if rec.get("aggregated"):
            self.aggregated += int(rec.get("count") or 0)
            minute = str(rec.get("minute") or rec.get("at"))
            self.aggregated_minutes.add(minute)
            if self.first_aggregated is None or minute < self.first_aggregated:
                self.first_aggregated = minute
            return
        visit = rec.get("visit")
        if not visit:
            return
        if rec.get("became"):
            self[visit] = True
        else:
            self.setdefault(visit, False)
            self.recorded.add(visit)

    @property
    def counted_left(self) -> int:
        """The counted visits that never consented."""
        return max(0, self.aggregated - sum(1 for v in self if v not in self.recorded))

    @property
    def left(self) -> int:
        """Every visit that left before consenting."""
        return sum(1 for v in self.recorded if not self[v]) + self.counted_left

    def copy(self) -> Visits:
        out = Visits(self)
        out.recorded, out.aggregated = set(self.recorded), self.aggregated
        out.aggregated_minutes, out.first_aggregated = set(self.aggregated_minutes), self.first_aggregated
        return out


def left_before_consent(visits: Mapping[str, bool] | None) -> int:
    if isinstance(visits, Visits):
        return visits.left
    return sum(1 for became in (visits or {}).values() if not became)


def fold_visits(records: Iterable[Mapping], into: Visits | None = None) -> Visits:
    out = into if into is not None else Visits()
    for rec in records:
        out.add(rec)
    return out


def visits_from_summaries(summaries: Mapping[str, ParticipantSummary], skip: str = "_visits") -> Visits:
    """The visits of older stores, one `_v…` name per visit, from their summaries (previews
    never); `skip` is the one name newer stores keep every visit under, read as records."""
    return Visits(
        {
            s.visit: bool(s.became)
            for s in summaries.values()
            if s.visit and s.participant.startswith("_") and s.participant != skip and not s.preview
        }
    )


def visits_table(records: Iterable[Mapping]) -> pd.DataFrame:
    """visits.csv: one row per recorded visit to the study page: its id, when it was first
    seen, the participant(s) it became by consenting ('; '-joined, empty if it left before
    consenting) and `visits` = 1; plus, if a flood of visits was counted in aggregate, one
    row `(aggregated)` with how many of those left before consenting. Visited =
    participants + the `visits` of the rows with an empty `became`."""
    rows: dict[str, dict] = {}
    counted = Visits()
    for rec in records:
        if rec.get("kind") != "visit" or rec.get("preview"):
            continue
        counted.add(rec)
        if not rec.get("visit") or rec.get("aggregated"):
            continue
        row = rows.setdefault(
            rec["visit"], {"visit": rec["visit"], "first_seen": rec.get("at"), "became": set(), "visits": 1}
        )
        if rec.get("at") and (row["first_seen"] is None or rec["at"] < row["first_seen"]):
            row["first_seen"] = rec["at"]
        if rec.get("became"):
            row["became"].add(rec["became"])
    out = [{**row, "became": "; ".join(sorted(row["became"]))} for row in rows.values()]
    if counted.aggregated:
        out.append(
            {"visit": AGGREGATED, "first_seen": counted.first_aggregated, "became": "", "visits": counted.counted_left}
        )
    return pd.DataFrame(out, columns=VISIT_COLUMNS).sort_values("first_seen", kind="stable").reset_index(drop=True)


def visits_became(table: pd.DataFrame) -> Visits:
    """The visits of `visits_table` (or visits.csv read back)."""
    out = Visits()
    counts = table["visits"] if "visits" in table else [1] * len(table)
    for visit, became, n in zip(table["visit"], table["became"], counts):
        if str(visit) == AGGREGATED:
            out.aggregated += int(n)
            continue
        out[str(visit)] = isinstance(became, str) and became.strip() != ""
        out.recorded.add(str(visit))
    return out
