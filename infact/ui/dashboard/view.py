"""What one dashboard rerun reads, in one place: the study, the switches, and every table a section draws.

Sections never reach into `DashboardData` or the export tables themselves: they ask this object. The
incremental figures (cards, participants, flags) come from `DashboardData`; every full table, with its
kind, from the study's results (`StudyResults`, infact/results/study_results.py: the object `export` and
`analyze` read), rebuilt by `DashboardData` at most once per data version. Every figure follows the
"Include flagged participants" switch through `kept` (Live chats and Ranking included).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd

from infact.errors import InfactError
from infact.results.dashboard import comparisons, offer
from infact.results.dashboard.data import DashboardData


@dataclass
class View:
    study: object
    storage: object
    data: DashboardData
    include_flagged: bool
    criterion: str
    now: datetime
    refresh: bool = False  # the researcher asked to recompute the full tables now
    _results: tuple | None = field(default=None, repr=False)

    # -- the study -----------------------------------------------------------
    @property
    def cfg(self):
        return self.study.config

    @property
    def criteria(self) -> list[str]:
        return [c.id for c in self.cfg.criteria]

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of answer the study collects (ratings, votes, best_worst, annotations, chats, arena)."""
        return offer.collected(self.cfg)

    def titled(self, title: str) -> str:
        return title + (f" · {self.criterion}" if len(self.criteria) > 1 else "")

    # -- the incremental figures ----------------------------------------------
    def overview(self) -> pd.DataFrame:
        return self.data.overview(self.now)

    def progress(self):
        return self.data.progress()

    def records(self) -> list[dict]:
        return self.data.records()

    # -- the full tables -----------------------------------------------------
    def results(self):
        """(the study's results, whether they are behind the data), once per rerun."""
        if self._results is None:
            self._results = self.data.study_results(force=self.refresh)
        return self._results

    @property
    def study_results(self):
        return self.results()[0]

    @property
    def tables(self):
        return self.study_results.tables

    def kept(self, df: pd.DataFrame | None, criterion: str | None = None) -> pd.DataFrame:
        """The rows of the criterion, without excluded participants unless the switch is on."""
        return comparisons.kept(df, criterion, self.include_flagged)

    def ratings(self) -> pd.DataFrame:
        """The criterion's ratings, flagged participants included (the analysis applies the switch itself)."""
        r = self.tables.ratings
        return r[r["criterion"] == self.criterion] if len(r) else r

    def shown_ratings(self) -> pd.DataFrame:
        return self.kept(self.ratings())

    def table(self, name: str, criterion: bool = True) -> pd.DataFrame:
        """A kind's table by name or file (pairwise.csv, best_worst.csv, a new kind's), kept (empty when the
        study has none)."""
        df = self.study_results.table(name).frame if self.has_table(name) else None
        return self.kept(df, self.criterion if criterion else None)

    def has_table(self, name: str) -> bool:
        return self.study_results.has(name)

    def arena_votes(self) -> pd.DataFrame:
        return self.kept(self.tables.votes)

    def questionnaire(self) -> pd.DataFrame:
        t = self.tables
        q = t.questionnaire
        if self.include_flagged or not len(q):
            return q
        return q[~q["participant"].isin(t.participants.loc[t.participants["excluded"], "participant"])]

    def _as_kept(self, t):
        """The tables as the switch sees them: excluded participants' chats and votes left out, or every
        participant counted as kept (the arena analysis drops `excluded` rows on its own)."""
        excluded = set(t.participants.loc[t.participants["excluded"], "participant"]) if len(t.participants) else set()
        votes = t.votes
        if self.include_flagged:
            votes = None if votes is None else votes.assign(excluded=False)
            return dataclasses.replace(t, votes=votes)
        transcripts = [c for c in t.transcripts if c.get("participant") not in excluded]
        return dataclasses.replace(t, transcripts=transcripts, votes=self.kept(votes) if votes is not None else None)

    # -- derived results, computed once per data version and switch ---------------------------
    def derived(self, name: str, build, *key):
        """`build(study_results)` once per results version and `key`."""
        return self.data.derived(name, build, *key)

    def statistics(self):
        """The ratings analysis `analyze` gives (no mixed model: it takes seconds), or the InfactError."""
        from infact.results.analyze import Options, analyze_table

        ratings = self.ratings()

        def build(_t):
            try:
                # the tables hold the bots only when the dashboard counts them (a store without people)
                maximum = self.cfg.monitoring.max_participants  # [monitoring]'s: the finite-horizon boundary
                options = Options(
                    mixed_model=False,
                    include_flagged=self.include_flagged,
                    include_bots=True,
                    extra={"max_participants": maximum},
                )
                return analyze_table(ratings, options)
            except InfactError as exc:
                return exc

        return self.derived("statistics", build, self.criterion, self.include_flagged)

    def report_html(self, result) -> bytes:
        from infact.results.analyze import Analysis

        shown = self.shown_ratings()
        report = Analysis.of("ratings", result, shown)
        return self.derived("report_html", lambda _t: report.render("html"), self.criterion, self.include_flagged)

    def ranking(self):
        """The protocol's ranking of the systems for this criterion."""
        from infact.results.dashboard.ranking import ranking_view
        from infact.results.ranking.ledger import design_of_tables

        confidence = self.cfg.protocol.confidence
        min_seconds = self.cfg.quality.min_situation_seconds  # the vote-time check, as `analyze --study`
        maximum = self.cfg.monitoring.max_participants  # [monitoring]'s declared maximum: the finite horizon
        return self.derived(
            "ranking",
            lambda r: ranking_view(
                r.ranked(),
                self.criterion,
                self.include_flagged,
                confidence,
                min_seconds,
                design_of_tables(r.tables),
                maximum,
            ),
            self.criterion,
            self.include_flagged,
        )

    def arena(self):
        """The live arena votes' ranking; None while there are none."""
        from infact.results.live.overview import arena_ranking
        from infact.results.ranking.integrity import openings_from_records
        from infact.results.ranking.ledger import design_of_tables

        def build(r):
            votes = self._as_kept(r.tables).votes
            if votes is None or not len(votes):
                return None
            openings = openings_from_records(r.records)  # the repeat cap per opening
            return arena_ranking(votes, openings=openings, design=design_of_tables(r.tables))

        return self.derived("arena", build, self.include_flagged)

    def live(self) -> dict:
        from infact.results.live.overview import live_overview

        return self.derived("live", lambda r: live_overview(self._as_kept(r.tables)), self.include_flagged)

    def simulated(self):
        from infact.results.live.simulated import simulated_vs_human

        return simulated_vs_human(self.records())

    def judges(self) -> dict:
        from infact.results.dashboard.ranking import judges_view

        return self.derived(
            "judges",
            lambda r: judges_view(r.tables, self.study, self.criterion, self.include_flagged),
            self.criterion,
            self.include_flagged,
        )

    def annotations(self):
        """(annotations.csv, its analysis or None when empty)."""
        from infact.results.conversations.analysis import analyze_annotations

        df = self.study_results.table("annotations").frame if self.has_table("annotations") else None
        if df is None or df.empty:
            return df, None
        result = self.derived(
            "annotation_analysis",
            lambda r: analyze_annotations(r.table("annotations").frame, include_flagged=self.include_flagged),
            self.include_flagged,
        )
        return df, result

    def annotation_report(self) -> str | None:
        from infact.results.conversations import analysis as aa
        from infact.stats import N_BOOT

        def build(r):
            df = r.table("annotations").frame
            if df.empty:
                return None
            try:
                return aa.render_markdown(
                    aa.analyze_annotations(df, include_flagged=self.include_flagged, n_boot=N_BOOT)
                )
            except InfactError as exc:
                return "Not available yet: " + "; ".join(p.message for p in exc.problems)

        return self.derived("annotation_report", build, self.include_flagged)

    def coverage(self) -> list[dict]:
        from infact.participation.assignment import coverage

        now = self.now
        return self.data.memo(
            "coverage", lambda: coverage(self.study, self.records(), now), now.replace(second=0, microsecond=0)
        )

    def export_files(self) -> tuple[dict[str, bytes], list[str]]:
        """(the downloads to offer, the names left out while empty), made per data version."""
        return self.derived("files", lambda r: offer.offered_files(self.cfg, r.files()))
