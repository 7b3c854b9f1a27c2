"""The leaderboard ledger: which version of each system a ranking compared, how often, from when to when,
against the share of exposure the design intends (issue 27; docs/ranking.md, "The ledger").

"The Leaderboard Illusion" (Singh et al., 2025) showed arena rankings moved by what a leaderboard does not
show: systems tested privately and withdrawn, systems shown far more often than others, versions swapped
under one name. The ledger puts those facts beside the ranking: per system and version (stamped on every
vote when it was shown: infact/study/situations.py, "A system's version"), its votes, its first and last vote,
its share of exposure, the share the scheduler intends (balanced pairs: 1 / systems in the study; adaptive: no
fixed share), and whether it is still in the study (a removed system keeps its row: when it was voted on and
how many votes it had).

It is one grouping of the vote table, no refit: cheap beside the ranking (bench/vote_integrity.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from infact.study.situations import VERSION_UNKNOWN as UNKNOWN
from infact.values import bool_column

IN_STUDY, REMOVED = "in study", "removed"
INTENDED = {
    "balanced": "balanced pairs: every pair equally often, so each of the study's systems in 1 / k of the places",
    "adaptive": "adaptive pairs: balanced until every pair has a few votes, then the pairs whose order is least "
    "certain, so no share is intended: strong and weak systems are shown less once their place is settled",
    "mixed": "protocol pairs and live arena pairs scheduled differently: no one share is intended",
}


def design_of(cfg) -> str | None:
    """How the study schedules its pairs: protocol.pairs for pairwise studies, live.pairs for a live arena
    (`mixed` when a study does both, differently)."""
    modes = set()
    if any(b in ("pairwise", "pairwise_dialog") for b in cfg.blocks):
        modes.add(cfg.protocol.pairs)
    if cfg.live.enabled and cfg.live.arena:
        modes.add(cfg.live.pairs)
    return modes.pop() if len(modes) == 1 else ("mixed" if modes else None)


def design_of_tables(t) -> dict | None:
    """The study's systems and pair scheduling as an export's `Tables` holds them (the ledger's statuses and
    intended shares; infact/results/ranking/ledger.py)."""
    return {"systems": list(t.systems), "design": t.design} if getattr(t, "systems", None) else None


def _column(votes: pd.DataFrame, name: str, fill) -> pd.Series:
    if name not in votes.columns:
        return pd.Series(fill, index=votes.index, dtype=object)
    values = votes[name].astype(object)
    return values.where(values.notna() & (values.astype(str).str.strip() != ""), fill)


def ledger_frame(
    votes: pd.DataFrame, *, systems: Sequence[str] | None = None, design: str | None = None
) -> pd.DataFrame:
    """ledger.csv's rows (infact/results/tables/schemas.py LEDGER) of a vote table: one grouping, no refit.
    `systems`: the study's systems now (None: unknown, no status or intended share); `design`: design_of."""
    n = len(votes)
    at = _column(votes, "answered_at", None)
    excluded = bool_column(votes["excluded"]) if "excluded" in votes.columns else pd.Series(False, index=votes.index)
    criterion = _column(votes, "criterion", "")
    # each vote shows two systems: one long table of (criterion, system, version) places, grouped once
    places = pd.DataFrame(
        {
            "criterion": pd.concat([criterion, criterion], ignore_index=True),
            "system": pd.concat([votes["system_a"], votes["system_b"]], ignore_index=True).astype(str),
            "version": pd.concat(
                [_column(votes, "version_a", UNKNOWN), _column(votes, "version_b", UNKNOWN)], ignore_index=True
            ).astype(str),
            "at": pd.concat([at, at], ignore_index=True),
            "excluded": pd.concat([excluded, excluded], ignore_index=True),
        }
    )
    grouped = places.groupby(["criterion", "system", "version"], sort=True)
    out = grouped.agg(
        votes=("excluded", "size"),
        excluded_votes=("excluded", "sum"),
        first_vote=("at", "min"),
        last_vote=("at", "max"),
    ).reset_index()
    per_criterion = out.groupby("criterion")["votes"].transform("sum")  # 2 × the criterion's votes
    out["share"] = out["votes"] / per_criterion
    out["system_share"] = out.groupby(["criterion", "system"])["share"].transform("sum")
    out = _with_unvoted(out, systems, criterion.unique() if n else [""])
    out["status"] = None if systems is None else out["system"].map(lambda s: IN_STUDY if s in systems else REMOVED)
    k = len(systems or ())
    intended = 1 / k if design == "balanced" and k else None
    out["intended_share"] = out["status"].map(lambda s: intended if s == IN_STUDY else None)
    out["design"] = design
    return out.sort_values(["criterion", "system", "first_vote"], kind="stable", na_position="last").reset_index(
        drop=True
    )


def _with_unvoted(out: pd.DataFrame, systems: Sequence[str] | None, criteria) -> pd.DataFrame:
    """A row for every system of the study that no vote showed yet (per criterion), so the ledger lists all."""
    if not systems:
        return out
    voted = set(zip(out["criterion"], out["system"]))
    missing = [
        {"criterion": c, "system": s, "version": None, "votes": 0, "excluded_votes": 0, "share": 0.0}
        for c in criteria
        for s in systems
        if (c, s) not in voted
    ]
    if not missing:
        return out
    extra = pd.DataFrame(missing).assign(system_share=0.0, first_vote=None, last_vote=None)
    return pd.concat([out, extra[out.columns]], ignore_index=True)


def ledger(votes: pd.DataFrame, *, systems: Sequence[str] | None = None, design: str | None = None) -> dict:
    """The ledger of one ranking's votes (JSON-ready): its rows, the design, the systems removed from the study
    and those whose version changed while votes were collected."""
    frame = ledger_frame(votes, systems=systems, design=design)
    rows = [
        {k: (None if pd.isna(v) else v) for k, v in row.items() if k not in ("criterion", "design")}
        for row in frame.to_dict("records")
    ]
    versions = frame[frame["votes"] > 0].groupby("system")["version"].agg(lambda v: sorted(set(v) - {UNKNOWN}))
    return {
        "design": design,
        "intended": INTENDED.get(design or "", "the design is not known (analyze --study gives it)"),
        "systems_in_study": list(systems) if systems is not None else None,
        "rows": rows,
        "removed": sorted(set(frame.loc[frame["status"] == REMOVED, "system"])),
        "changed": sorted(s for s, v in versions.items() if len(v) > 1),
        # places (a system shown in a vote) whose version was not recorded: votes stored before versions were
        "unknown_versions": int(frame.loc[frame["version"] == UNKNOWN, "votes"].sum()),
    }
