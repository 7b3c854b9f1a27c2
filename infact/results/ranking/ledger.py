"""The leaderboard ledger: which version of each system a ranking compared, how often, from when to when,
against the share of exposure the design intends (issue 27; docs/ranking.md, "The ledger").

"The Leaderboard Illusion" (Singh et al., 2025) showed arena rankings moved by what a leaderboard does not
show: systems tested privately and withdrawn, systems shown far more often than others, versions swapped
under one name. The ledger puts those facts beside the ranking: per system and version (stamped on every
vote when it was shown: infact/study/situations.py, "A system's version"), its votes, its first and last vote,
its share of exposure, the share the scheduler intends (balanced pairs: 1 / systems in the study; adaptive: no
fixed share), and whether it is still in the study (a removed system keeps its row: when it was voted on and
how many votes it had).

A vote here is any answer that showed systems, each in one *place*: a pairwise vote has two, a best–worst
choice one per system of its set; each kind says where its rows showed them (`Places`: pair_places,
shown_places; KindResults.places), so the counting is one and the same for every kind.

It is one grouping of the vote table, no refit: cheap beside the ranking (bench/vote_integrity.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from infact.study.situations import VERSION_UNKNOWN as UNKNOWN
from infact.values import bool_column

IN_STUDY, REMOVED = "in study", "removed"
INTENDED = {
    "balanced": "balanced pairs (best–worst: the least-shown systems first): every pair (system) equally often, "
    "so each of the study's systems in 1 / k of the places",
    "adaptive": "adaptive pairs: balanced until every pair has a few votes, then the pairs whose order is least "
    "certain, so no share is intended: strong and weak systems are shown less once their place is settled",
    "mixed": "the study's pairs or sets scheduled differently (protocol, best–worst, live arena): no one share is "
    "intended",
}


def design_of(cfg) -> str | None:
    """How the study schedules its pairs: protocol.pairs for pairwise studies, live.pairs for a live arena,
    balanced for best–worst sets (`mixed` when a study does several, differently)."""
    modes = set()
    if any(b in ("pairwise", "pairwise_dialog") for b in cfg.blocks):
        modes.add(cfg.protocol.pairs)
    if "best_worst" in cfg.blocks:  # its sets show the least-shown systems first (participation/protocols.py)
        modes.add("balanced")
    if cfg.live.enabled and cfg.live.arena:
        modes.add(cfg.live.pairs)
    return modes.pop() if len(modes) == 1 else ("mixed" if modes else None)


def design_of_tables(t) -> dict | None:
    """The study's systems and pair scheduling as an export's `Tables` holds them (the ledger's statuses and
    intended shares; infact/results/ranking/ledger.py)."""
    return {"systems": list(t.systems), "design": t.design} if getattr(t, "systems", None) else None


@dataclass(frozen=True)
class Places:
    """Where a table's rows showed the systems, one entry per place: row `row[j]` showed `system[j]` in its
    version `version[j]` (missing: unknown). A kind says what its places are (pair_places, shown_places)."""

    row: np.ndarray
    system: pd.Series
    version: pd.Series


def _column(votes: pd.DataFrame, name: str) -> pd.Series:
    """A column, or all missing when the table lacks it (a file written before it was declared)."""
    return votes[name] if name in votes.columns else pd.Series(pd.NA, index=votes.index, dtype=object)


def pair_places(votes: pd.DataFrame) -> Places:
    """A vote's two places: system_a in version_a, system_b in version_b (pairwise.csv)."""

    def stack(a: str, b: str) -> pd.Series:
        return pd.concat([_column(votes, a), _column(votes, b)], ignore_index=True)

    return Places(np.tile(np.arange(len(votes)), 2), stack("system_a", "system_b"), stack("version_a", "version_b"))


SEP = "|"  # best_worst.csv joins the shown systems, and their versions in the same order, with it


def shown_places(choices: pd.DataFrame) -> Places:
    """A best–worst answer's places: every system of `systems`, in the version at the same position of
    `versions` (best_worst.csv; a missing or shorter `versions` leaves the rest unknown)."""
    names = _column(choices, "systems").fillna("").astype(str).str.split(SEP, regex=False)
    versions = _column(choices, "versions").map(lambda v: str(v).split(SEP) if isinstance(v, str) else [])
    rows, systems, shown = [], [], []
    for i, (xs, vs) in enumerate(zip(names, versions)):
        for j, x in enumerate(xs):
            if x.strip():  # a blank name between two separators shows nothing (prepare_best_worst drops it too)
                rows.append(i)
                systems.append(x.strip())
                shown.append(vs[j].strip() if j < len(vs) else None)
    return Places(np.asarray(rows, dtype=np.int64), pd.Series(systems, dtype=object), pd.Series(shown, dtype=object))


def _codes(votes: pd.DataFrame, names: tuple[str, ...], *, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The columns `names` stacked, factorized once: (codes, values); see _factorize."""
    parts = [_column(votes, c) for c in names]
    return _factorize(pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0], sort=sort)


def _factorize(values: pd.Series, *, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(codes, values); a missing value is code -1, and so is a blank one unless `sort` (times: never blank but
    missing). Integer codes keep the grouping cheap at arena scale (arrow strings are slow to group and compare
    one by one)."""
    codes, uniques = pd.factorize(values, sort=sort)
    uniques = np.asarray(uniques, dtype=object)
    blank = [] if sort else np.flatnonzero([str(v).strip() == "" for v in uniques])
    if len(blank):
        codes = np.where(np.isin(codes, blank), -1, codes)
    return np.asarray(codes, dtype=np.int64), uniques


def _excluded(votes: pd.DataFrame) -> np.ndarray:
    """The `excluded` column as booleans (a typed column directly; text as `bool_column` reads it)."""
    if "excluded" not in votes.columns:
        return np.zeros(len(votes), bool)
    column = votes["excluded"]
    if pd.api.types.is_bool_dtype(column.dtype):
        return column.fillna(False).to_numpy(dtype=bool)
    return bool_column(column).to_numpy()


def _first_last(votes: pd.DataFrame, row: np.ndarray, group: np.ndarray, n_groups: int) -> tuple[list, list]:
    """Each group's first and last `answered_at`, as written (None where no vote of it has a time): the votes'
    times ranked by one Arrow sort (UTC ISO text sorts as time does, with or without milliseconds: '+' sorts
    before '.'), then each group's lowest and highest rank (`row`: each place's vote, `group`: its group)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    first, last = [None] * n_groups, [None] * n_groups
    if "answered_at" not in votes.columns or not len(votes):
        return first, last
    text = pa.array(votes["answered_at"].astype("string[pyarrow]"), type=pa.large_string())
    if isinstance(text, pa.ChunkedArray):  # a table put together from several (pd.concat)
        text = text.combine_chunks()
    n = len(text)
    order = pc.sort_indices(text).to_numpy()  # nulls (no time) last
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    rank[~pc.is_valid(text).to_numpy(zero_copy_only=False)] = -1
    rank = rank[row]  # each place ranked as its vote
    low, high = np.full(n_groups, n), np.full(n_groups, -1)
    np.minimum.at(low, group, np.where(rank < 0, n, rank))
    np.maximum.at(high, group, rank)
    for k in range(n_groups):
        if high[k] >= 0:
            first[k], last[k] = text[int(order[low[k]])].as_py(), text[int(order[high[k]])].as_py()
    return first, last


def _places(votes: pd.DataFrame, places: Places) -> pd.DataFrame:
    """One row per (criterion, system, version) shown: its votes, excluded votes, first and last vote."""
    crit, crits = _codes(votes, ("criterion",))
    system, systems = _factorize(places.system)
    version, versions = _factorize(places.version)
    crit, excluded = crit[places.row], _excluded(votes)[places.row]  # each place as its vote
    # one integer key per (criterion, system, version); code -1 (none) becomes the last of each
    sizes = (len(crits) + 1, len(systems) + 1, len(versions) + 1)
    key = np.ravel_multi_index((crit % sizes[0], system % sizes[1], version % sizes[2]), sizes)
    groups, group = np.unique(key, return_inverse=True)
    votes_n, excluded_n = np.bincount(group), np.bincount(group, weights=excluded).astype(int)
    first, last = _first_last(votes, places.row, group, len(groups))
    c, s, v = np.unravel_index(groups, sizes)
    return pd.DataFrame(
        {
            "criterion": np.append(crits, "")[c],
            "system": np.append(systems, "").astype(str)[s],
            "version": np.append(versions, UNKNOWN)[v],
            "votes": votes_n,
            "excluded_votes": excluded_n,
            "first_vote": first,
            "last_vote": last,
        }
    )


def ledger_frame(
    votes: pd.DataFrame,
    *,
    systems: Sequence[str] | None = None,
    design: str | None = None,
    places: Callable[[pd.DataFrame], Places] = pair_places,
) -> pd.DataFrame:
    """ledger.csv's rows (infact/results/tables/schemas.py LEDGER) of a vote table: one grouping, no refit.
    `systems`: the study's systems now (None: unknown, no status or intended share); `design`: design_of;
    `places`: where the table's rows showed the systems (its kind's: pair_places, shown_places)."""
    out = _places(votes, places(votes))
    criteria = out["criterion"].unique() if len(out) else [""]
    per_criterion = out.groupby("criterion")["votes"].transform("sum")  # every place of its votes
    out["share"] = out["votes"] / per_criterion
    out["system_share"] = out.groupby(["criterion", "system"])["share"].transform("sum")
    out = _with_unvoted(out, systems, criteria)
    out["status"] = None if systems is None else out["system"].map(lambda s: IN_STUDY if s in systems else REMOVED)
    k = len(systems or ())
    intended = 1 / k if design == "balanced" and k else None
    out["intended_share"] = out["status"].map(lambda s: intended if s == IN_STUDY else None)
    out["design"] = design
    return out.sort_values(["criterion", "system", "first_vote"], kind="stable", na_position="last").reset_index(
        drop=True
    )


def ledger_frames(
    placed: Sequence[tuple[str, pd.DataFrame, Callable[[pd.DataFrame], Places]]],
    *,
    systems: Sequence[str] | None = None,
    design: str | None = None,
) -> pd.DataFrame:
    """ledger.csv: the ledger_frame of each (file, table, places), its rows marked with the file as `table`
    (a study with votes and best–worst choices ranks each apart, so each has its own shares)."""
    frames = [
        ledger_frame(table, systems=systems, design=design, places=places).assign(table=file)
        for file, table, places in placed
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["table"])


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


def ledger(
    votes: pd.DataFrame,
    *,
    systems: Sequence[str] | None = None,
    design: str | None = None,
    places: Callable[[pd.DataFrame], Places] = pair_places,
) -> dict:
    """The ledger of one ranking's votes (JSON-ready): its rows, the design, the systems removed from the study
    and those whose version changed while votes were collected (`places`: as ledger_frame)."""
    frame = ledger_frame(votes, systems=systems, design=design, places=places)
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
