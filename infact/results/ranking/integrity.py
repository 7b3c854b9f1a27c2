"""Vote integrity: votes that should not steer a ranking unseen, each flagged with its reason, and the
ranking refitted without them (issue 27; docs/ranking.md, "Vote integrity").

- **Repeated situation**: a participant voting on the same pair, situation and criterion again (a reload
  that re-asked, a second sitting, a participant who found a way to vote twice). The first `repeat_cap`
  votes count; the later ones are flagged (FastChat's `deduplication.py` caps repeated prompts the same way).
- **Repeated opening** (live arena): a participant opening chats with the same first message in more than
  `repeat_cap` votes (the two chats of one vote naturally share it, so they count once). Needs the openings
  (conversation id → first user message, from transcripts.jsonl).
- **Anomalous participant**: a participant whose votes are unlikely under the model fitted without them,
  against simulated participants (infact/results/ranking/anomaly.py); all their votes are flagged.
- **Faster than reading**: a pairwise vote given in fewer seconds than the study's minimum reading time
  (`quality.min_situation_seconds`). Live votes are not timed this way: the reading happened in the chats.

Flags are reported, never dropped silently: the main ranking keeps every vote, `without_flagged` is the
same fit without the flagged ones, and `order_changed` says whether the order of the systems moved.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import scipy.sparse as sp

from infact.results.ranking.anomaly import ANOMALOUS, anomaly_scores
from infact.stats import bradley_terry as bt

REPEATED_SITUATION = "repeated situation"
REPEATED_OPENING = "repeated opening"
TOO_FAST = "faster than reading"
DEFAULT_MIN_SECONDS = 3.0  # quality.min_situation_seconds' default (infact/study/quality_config.py)


def _repeats(votes: pd.DataFrame, keys: list[str], cap: int) -> pd.Series:
    """True for each vote beyond the first `cap` of its key (in step order when known, else file order);
    a vote missing any key is never a repeat."""
    # the keys as one integer per vote (a groupby on several text columns cost ~10x more at 100k votes)
    key, missing = np.zeros(len(votes), dtype=np.int64), np.zeros(len(votes), dtype=bool)
    for k in keys:
        c = pd.factorize(votes[k])[0].astype(np.int64)
        key, missing = key * (int(c.max(initial=0)) + 1) + np.maximum(c, 0), missing | (c < 0)
        key = pd.factorize(key)[0].astype(np.int64)  # renumbered after each key: no overflow
    key[missing] = -1 - np.arange(int(missing.sum()))  # each its own key: counted with no other vote
    order = np.argsort(votes["step_index"].to_numpy(), kind="stable") if "step_index" in votes.columns else None
    ordered = key if order is None else key[order]
    rank = pd.Series(ordered).groupby(ordered, sort=False).cumcount().to_numpy()
    beyond = np.empty(len(votes), dtype=bool)
    beyond[slice(None) if order is None else order] = rank >= cap
    return pd.Series(beyond & ~missing, index=votes.index)


def _opening_repeats(votes: pd.DataFrame, openings: dict[str, str], cap: int) -> pd.Series:
    if "conversation_a" not in votes.columns or not openings:
        return pd.Series(False, index=votes.index)
    text = votes["conversation_a"].map(lambda c: " ".join(str(openings.get(c) or "").lower().split()) or None)
    return _repeats(votes.assign(_opening=text), ["participant", "_opening"], cap)


def flag_votes(
    votes: pd.DataFrame,
    *,
    repeat_cap: int = 1,
    min_seconds: float | None = DEFAULT_MIN_SECONDS,
    openings: dict[str, str] | None = None,
) -> pd.DataFrame:
    """One row per flagged vote: its index in `votes`, participant, situation, pair and reasons (joined `; `)."""
    protocol = (
        votes["conversation_a"].isna() if "conversation_a" in votes.columns else pd.Series(True, index=votes.index)
    )
    keys = [c for c in ("participant", "situation_id", "criterion", "system_a", "system_b") if c in votes.columns]
    filled = votes.assign(criterion=votes["criterion"].fillna("")) if "criterion" in votes.columns else votes
    # without situation ids (an imported table) a pair voted twice is no repeat: the check needs them
    repeated = _repeats(filled, keys, repeat_cap) & protocol if "situation_id" in keys else protocol & False
    checks = {REPEATED_SITUATION: repeated}
    checks[REPEATED_OPENING] = _opening_repeats(votes, openings or {}, repeat_cap)
    if min_seconds and "seconds" in votes.columns:
        seconds = pd.to_numeric(votes["seconds"], errors="coerce")
        checks[TOO_FAST] = (seconds < min_seconds) & protocol
    hits = pd.DataFrame(checks)
    hits = hits[hits.any(axis=1)]  # the reasons are joined for flagged votes only (few, even in 100k)
    reasons = hits.apply(lambda row: "; ".join(r for r, hit in row.items() if hit), axis=1).astype(str)
    columns = [c for c in ("participant", "situation_id", "system_a", "system_b") if c in votes.columns]
    return votes.loc[hits.index, columns].assign(reasons=reasons)


# The anomaly score's cost grows with the participants (one refit each): at arena scale it is asked for, not given.
ANOMALY_MAX_PARTICIPANTS = 500


def integrity(
    votes: pd.DataFrame,
    refit,
    ranking_rows: list[dict],
    *,
    repeat_cap: int = 1,
    min_seconds: float | None = DEFAULT_MIN_SECONDS,
    openings: dict[str, str] | None = None,
    line_offset: int | None = None,
    anomaly_quantile: float | None = 0.99,
    anomaly_max_participants: int | None = ANOMALY_MAX_PARTICIPANTS,
) -> dict:
    """The flags and the ranking without them. `refit(votes)` is the analysis' own fit (a result with
    `ranking`); `line_offset`: add it to a vote's index for its line in the file (None: votes have no line).
    The anomaly score refits the model once per participant: above `anomaly_max_participants` (None: no limit)
    it is skipped, and the result says so (`anomaly_skipped`)."""
    flagged = flag_votes(votes, repeat_cap=repeat_cap, min_seconds=min_seconds, openings=openings)
    skipped = _anomaly_skipped(votes, anomaly_quantile, anomaly_max_participants)
    anomaly_quantile = None if skipped else anomaly_quantile
    scores = anomaly_scores(votes, quantile=anomaly_quantile, n_sim=200) if anomaly_quantile else []
    odd = {r["participant"] for r in scores if r["flagged"]}
    if odd:  # every vote of an anomalous participant, with the reason added to any it already has
        theirs = votes[votes["participant"].isin(odd)]
        columns = [c for c in ("participant", "situation_id", "system_a", "system_b") if c in votes.columns]
        merged = pd.concat([flagged, theirs[columns].assign(reasons=ANOMALOUS)])
        flagged = merged.groupby(level=0, sort=True).agg(
            {**dict.fromkeys(columns, "first"), "reasons": lambda r: "; ".join(r)}
        )
    counts = {r: int(flagged["reasons"].str.contains(r, regex=False).sum()) for r in CHECKS}
    out = {
        "repeat_cap": repeat_cap,
        "min_seconds": min_seconds,
        "anomaly_quantile": anomaly_quantile,
        "anomaly_skipped": skipped,
        "participants": scores,  # the anomaly score of each participant with enough votes, lowest p first
        "n_flagged": len(flagged),
        "reasons": counts,
        "flagged": _flag_rows(flagged, line_offset),
        "without_flagged": None,
        "order_changed": False,
    }
    kept = votes.drop(index=flagged.index)
    if len(flagged) and kept["participant"].nunique() >= 2 and len(kept):
        res = refit(kept)
        out["without_flagged"] = {
            "n_votes": len(kept),
            "ranking": res["ranking"],
            "settled": res["settled"],
            "tie_parameter": res["tie_parameter"],
        }
        out["order_changed"] = [r["system"] for r in res["ranking"]] != [r["system"] for r in ranking_rows]
    return out


def _flag_rows(flagged: pd.DataFrame, line_offset: int | None) -> list[dict]:
    """The flagged votes as JSON-ready rows, each with its line in the file (iterrows cost ~0.1 s per 1,000)."""
    lines = [int(i) + line_offset if line_offset is not None else None for i in flagged.index]
    rows = flagged.astype(object).where(flagged.notna(), None).to_dict("records")
    return [{"line": line, **row} for line, row in zip(lines, rows)]


def _anomaly_skipped(votes: pd.DataFrame, quantile: float | None, max_participants: int | None) -> str | None:
    """Why the anomaly score is left out (too many participants to refit once each), or None."""
    n_people = votes["participant"].nunique()
    if not (quantile and max_participants and n_people > max_participants):
        return None
    return (
        f"{n_people} participants, over --anomaly-max-participants {max_participants}: the score refits the model "
        "once per participant (pass --anomaly-max-participants 0 to compute it anyway)"
    )


CHECKS = (REPEATED_SITUATION, REPEATED_OPENING, TOO_FAST, ANOMALOUS)


def design_without(d: bt.Design, removed: pd.DataFrame) -> bt.Design | None:
    """`d` less the `removed` votes (rows of the votes `d` was built from): the design the kept votes would give,
    made by subtracting counts instead of rebuilding it from the table. None when a participant or a system
    would be left without a vote (the kept votes' own design then has fewer of them: build that one)."""
    from infact.results.ranking.fragility import vote_cells_of_rows

    where = {c: i for i, c in enumerate(d.clusters)}
    rows = removed["participant"].astype(str).map(where).to_numpy()
    minus = sp.csr_matrix((np.ones(len(removed)), (rows, vote_cells_of_rows(removed, d))), shape=d.cluster_counts.shape)
    m = (d.cluster_counts - minus).tocsr()
    m.eliminate_zeros()
    totals = np.asarray(m.sum(axis=0)).reshape(-1, 3)
    shown = np.bincount(np.r_[d.a, d.b], np.r_[totals.sum(axis=1), totals.sum(axis=1)], len(d.systems))
    if (np.asarray(m.sum(axis=1)).ravel() == 0).any() or (shown == 0).any():
        return None
    keep = np.flatnonzero(totals.sum(axis=1) > 0)  # a pair none of the kept votes compare is no pattern
    cells = (keep[:, None] * 3 + np.arange(3)).ravel()
    return dataclasses.replace(
        d, a=d.a[keep], b=d.b[keep], z=d.z[keep], cluster_counts=m[:, cells], with_ties=bool(totals[:, 2].sum() > 0)
    )


def openings_from_records(records: list[dict]) -> dict[str, str]:
    """Conversation id → the participant's first message, from a store's chat_message records."""
    out: dict[str, tuple[int, str]] = {}
    for r in records:
        if r.get("kind") == "chat_message" and r.get("role") == "user" and r.get("conversation_id"):
            turn = r.get("turn") or 0
            if r["conversation_id"] not in out or turn < out[r["conversation_id"]][0]:
                out[r["conversation_id"]] = (turn, str(r.get("text") or ""))
    return {c: text for c, (_, text) in out.items()}
