"""A participant's funnel facts, folded from their records — small enough to keep beside them.

The dashboard's first numbers (how many visited, consented, are active, completed …)
need a dozen facts per participant, not the ~50 records with every rating behind them.
`ParticipantSummary.add` folds one record at a time (the refreshing dashboard folds new
records as they arrive); `fold` folds a record list per study. The stores keep these
facts up to date at write time where that is cheap (TinyDB: a summary file per
participant, infact.stores.tinydb.summaries) or fetch only the fields the fold reads
(PostgreSQL: `LIGHT_FIELDS`), so a cold dashboard reads ~1 MB instead of ~60 MB.

`infact.results.quality.funnel.Progress` adds the funnel's stages to this class: the fold is
defined once, here, and the summary files hold exactly what it produces.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, TypeVar

# Every record field `add` reads: a store may hand over records cut down to these (`light`).
LIGHT_FIELDS = (
    "study",
    "participant",
    "kind",
    "preview",
    "bot",
    "at",
    "shown_at",
    "answered_at",
    "step",
    "platform_id",
    "lease_until",
    "steps",
    "outcome",
    "ended_at",
    "total_seconds",
    "comment",
    "visit",
    "became",
)
_TIMES = ("started_at", "lease_until", "ended_at")
_SETS = ("answered", "became")

S = TypeVar("S", bound="ParticipantSummary")


def _time(text) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except (TypeError, ValueError):
        return None


@dataclass
class ParticipantSummary:
    """What is known about one participant, folded record by record (`add`)."""

    participant: str
    preview: bool = False
    simulated: bool = False  # played by an LLM (`bots --strategy llm`): shown apart, never counted as a person
    bot: str | None = None  # played by `infact bots` (its strategy): counted apart, never as a person
    platform_id: str | None = None
    started_at: datetime | None = None
    last_stamp: str | None = None  # newest timestamp seen, as stored
    consented: bool = False
    lease_until: datetime | None = None
    plan: list[str] = field(default_factory=list)  # the assigned situation steps, in order
    situations: dict[str, str] = field(default_factory=dict)  # step -> situation id, regular ones (no check)
    answered: set[str] = field(default_factory=set)
    outcome: str | None = None  # "completed" / "screened_out" once finished
    ended_at: datetime | None = None
    total_seconds: float | None = None
    withdrawn: bool = False
    comment: str | None = None  # the questionnaire's free-text comment, if any
    # A visit to the study page (infact.participation.visits: `_v…` records): its id, and the
    # participants it became by consenting (none: left before consenting).
    visit: str | None = None
    became: set[str] = field(default_factory=set)

    @property
    def person(self) -> bool:
        """A real participant: neither a researcher's preview, a simulated one nor a bot (all shown apart)."""
        return not self.preview and not self.simulated and not self.bot

    def counted(self, bots: bool) -> bool:
        """Counted in the funnel: a person, or a bot when `bots` (a store without people: funnel.bots_counted)."""
        return self.person or (bots and bool(self.bot) and not self.preview and not self.simulated)

    @property
    def last_activity(self) -> datetime | None:
        return _time(self.last_stamp) if self.last_stamp else None

    def add(self, rec: Mapping) -> None:
        kind = rec.get("kind")
        # Stored timestamps are ISO 8601 in UTC written by one function: as text they sort in
        # time order, so the newest is found without parsing tens of thousands of them.
        stamp = rec.get("answered_at") or rec.get("shown_at") or rec.get("at")
        if stamp and (self.last_stamp is None or stamp > self.last_stamp):
            self.last_stamp = stamp
        self.preview = self.preview or bool(rec.get("preview"))
        if rec.get("bot") and not self.bot:
            self.bot = str(rec["bot"])
        if kind == "arrival":
            self.platform_id = rec.get("platform_id")
            self.started_at = _time(rec.get("at"))
        elif kind == "visit":
            self.visit = rec.get("visit")
            if rec.get("became"):
                self.became.add(rec["became"])
        elif kind == "assignment":
            self.plan = [s["step"] for s in rec.get("steps", [])]
            self.situations = {
                s["step"]: s["situation_id"]
                for s in rec.get("steps", [])
                if not s.get("attention_check") and s.get("situation_id")
            }
            self.lease_until = _time(rec.get("lease_until"))
        elif kind == "complete":
            self.outcome = "screened_out" if rec.get("outcome") == "screened_out" else "completed"
            self.ended_at = _time(rec.get("ended_at") or rec.get("at"))
            self.total_seconds = rec.get("total_seconds")
        elif kind == "withdraw":
            self.withdrawn = True
        elif kind == "lease_end":  # returned or timed out on Prolific (infact.prolific.sync): the lease ends then
            ends = _time(rec.get("lease_until"))
            if ends is not None and (self.lease_until is None or ends < self.lease_until):
                self.lease_until = ends
        elif kind == "simulated":
            self.simulated = True
        elif rec.get("step") and kind not in ("shown", "event"):
            self.answered.add(rec["step"])
            self.consented = self.consented or kind == "consent"
            comment = rec.get("comment") if kind == "questionnaire" else None  # [questionnaire.comment]
            if isinstance(comment, str) and comment.strip():
                self.comment = comment.strip()

    # -- as JSON (the summary files) ----------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(ParticipantSummary):
            value = getattr(self, f.name)
            if f.name in _TIMES:
                value = value.isoformat() if value is not None else None
            elif f.name in _SETS:
                value = sorted(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls: type[S], data: Mapping[str, Any]) -> S:
        values = {f.name: data.get(f.name) for f in fields(ParticipantSummary) if f.name in data}
        for name in _TIMES:
            values[name] = _time(values.get(name)) if values.get(name) else None
        for name in _SETS:
            values[name] = set(values.get(name) or ())
        values["plan"] = list(values.get("plan") or ())
        values["situations"] = dict(values.get("situations") or {})
        return cls(**values)


def light(rec: Mapping) -> dict:
    """A record cut down to what `ParticipantSummary.add` reads: of an assignment's steps only
    their names and situations, and of an answer only its answer time (what `add` takes as its time)."""
    out = {k: rec[k] for k in LIGHT_FIELDS if k in rec}
    if isinstance(out.get("steps"), list):
        out["steps"] = [
            {k: s[k] for k in ("step", "situation_id", "attention_check") if k in s}
            for s in out["steps"]
            if isinstance(s, Mapping)
        ]
    if out.get("answered_at") and out.get("kind") not in ("arrival", "complete", "visit"):
        out.pop("shown_at", None)
        out.pop("at", None)
    return out


def fold(
    records: Iterable[Mapping], cls: type[S] = ParticipantSummary, into: dict[str, dict[str, S]] | None = None
) -> dict[str, dict[str, S]]:
    """{study: {participant: summary}} of these records (researcher `_…` participants included)."""
    out = into if into is not None else {}
    for rec in records:
        pid = rec.get("participant")
        if not pid:
            continue
        per_study = out.setdefault(str(rec.get("study")), {})
        summary = per_study.get(pid)
        if summary is None:
            summary = per_study[pid] = cls(str(pid))
        summary.add(rec)
    return out


@contextmanager
def gc_paused() -> Iterator[None]:
    """Reading every participant makes ~100,000 small objects that form no reference cycles;
    the collector would walk the whole heap (every record the dashboard holds) many times
    meanwhile: measured at up to half of the parse time. It runs again afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def summaries(storage: Any, study: str, cls: type[S] = ParticipantSummary) -> dict[str, S]:
    """{participant: summary} of one study, the cheapest way this store offers: its own
    `summaries(study, cls)` (TinyDB's summary files, PostgreSQL's light query), else a fold
    of every record."""
    own = getattr(storage, "summaries", None)
    if own is not None:
        return own(study, cls)
    return fold(storage.records(study=study), cls).get(study, {})
