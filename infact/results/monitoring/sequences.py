"""Live monitoring: is the order of the systems settled, in a way that survives looking after every vote?

`analyze`'s intervals (the participant bootstrap) are valid for a sample size fixed in advance; the
dashboard refreshes every few seconds, and a researcher who stops when it says "settled" stops
optionally. This module answers the dashboard's question with confidence sequences
(infact/stats/confseq.py, docs/ranking.md "Watching a study"): for every two systems, the
head-to-head margin — share of their direct votes won minus share lost, ties 0 — or, for ratings,
the mean within-participant rating difference, each with a sequence valid at every look at once.

The ranking is *settled* when the separated pairs chain every system into one order: s1 > s2 > … > sK
with each two neighbours separated in that direction (no model assumed: the sequences are on
direct comparisons). `settled_at_votes` is the first vote, in the order the votes were given
(`answered_at`; file order where it is missing), at which that held (it may have reopened since:
`settled` is the state at the last vote).

With a maximum of participants declared in advance (`[monitoring] max_participants`: `maximum=`), each pair gets
the finite-horizon boundary of infact/stats/horizon.py instead, on the first `maximum` participants' answers:
valid at every look up to the maximum and cheaper to settle; answers from later participants settle nothing anew.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from infact.stats import confseq, horizon

TUNED_FOR_VOTES = confseq.TUNED_FOR  # votes of one pair at which the sequence is tightest (docs/ranking.md)
TUNED_FOR_PARTICIPANTS = 100  # ratings: participants at which it is tightest
METHOD = (
    "confidence sequences (Howard et al. 2021: a linear boundary tuned to the expected study size, intersected "
    "with a normal mixture; the participant-cluster variance as in Waudby-Smith et al. 2024's asymptotic "
    "sequences): valid at every look, so stopping when settled keeps the error"
)
HORIZON_METHOD = (
    "a finite-horizon boundary for the declared maximum of participants (O'Brien–Fleming type for continuous "
    "monitoring, constant on the B-value scale; participant-cluster variance about 0, read on t): valid at every "
    "look up to the maximum, so stopping when settled keeps the error; beyond the maximum nothing is settled anew"
)


def given_order(df: pd.DataFrame) -> np.ndarray:
    """Row positions in the order the answers were given: by `answered_at`, rows without one where the file puts
    them (each takes the time of the row above it), ties in file order."""
    if "answered_at" not in df.columns:
        return np.arange(len(df))
    stamps = pd.to_datetime(df["answered_at"], errors="coerce", utc=True, format="ISO8601")
    if stamps.isna().all():
        return np.arange(len(df))
    filled = stamps.ffill().fillna(stamps.min())
    return np.argsort(filled.to_numpy(), kind="stable")


def chain(systems: list[str], better: dict[tuple[int, int], bool]) -> list[str] | None:
    """The one order whose neighbours are all separated (`better[(i, j)]`: i certainly above j), else None.

    Such an order exists exactly when the separated pairs, as arrows, have a unique topological order."""
    k = len(systems)
    into = [0] * k
    for _, j in better:
        into[j] += 1
    order, free = [], [i for i in range(k) if into[i] == 0]
    while len(free) == 1:
        i = free.pop()
        order.append(i)
        for a, b in better:
            if a == i:
                into[b] -= 1
                if into[b] == 0:
                    free.append(b)
    if len(order) < k or len(free) or k < 2:
        return None
    if any((u, v) not in better for u, v in zip(order, order[1:])):
        return None
    return [systems[i] for i in order]


def monitor(
    systems: list[str],
    pair: np.ndarray,
    x: np.ndarray,
    cluster: np.ndarray,
    step: np.ndarray,
    *,
    confidence: float = 0.95,
    tuned_for: float = TUNED_FOR_VOTES,
    prior_variance: float = 1.0,
    maximum: int | None = None,
) -> dict:
    """Sequences for every pair of `systems` and when their order settled.

    Observations in the order given: `pair[t]` an index into combinations(range(K), 2), `x[t]` the
    observation signed for the pair's first system (+1 it won), `cluster[t]` the participant,
    `step[t]` the look it belongs to (a vote's or a participant's count, 1-based; observations of one
    step are looked at together). `maximum`: participants declared in advance as the most the study will have:
    the finite-horizon boundary (stats/horizon.py) instead of the open-ended sequence, on the answers of the first
    `maximum` participants only (in the order they arrived): later participants' answers settle nothing anew."""
    pairs = list(combinations(range(len(systems)), 2))
    alpha = 1 - confidence
    min_units = min_participants(maximum)
    progress = participants_so_far(cluster)
    within = np.ones(len(pair), dtype=bool) if maximum is None else arrival(cluster) <= maximum
    events: list[tuple[int, int, int]] = []  # (step, pair, +1 first above / −1 below / 0 open)
    rows = []
    by_pair = np.argsort(pair, kind="stable")  # each pair's observations, in the order given: one sort, not K² scans
    cuts = np.searchsorted(pair[by_pair], np.arange(len(pairs) + 1))
    for p, (i, j) in enumerate(pairs):
        at = by_pair[cuts[p] : cuts[p + 1]]
        at = at[within[at]]
        path = confseq.sequence(
            cluster[at], x[at], alpha=alpha, tuned_for=tuned_for, prior_variance=prior_variance, min_units=min_units
        )
        if maximum is not None:
            path = horizon.finite(path, np.minimum(progress[at], maximum), maximum, alpha)
        state = np.where(path.lo > 0, 1, np.where(path.hi < 0, -1, 0))
        changes = np.flatnonzero(np.diff(state, prepend=0))
        events += [(int(step[at[c]]), p, int(state[c])) for c in changes]
        if len(at):
            rows.append(_pair_row(systems, i, j, path, int(state[-1])))
    better: dict[tuple[int, int], bool] = {}
    settled_at = None
    events.sort()
    for e, (s, p, st) in enumerate(events):
        i, j = pairs[p]
        better.pop((i, j), None)
        better.pop((j, i), None)
        if st:
            better[(i, j) if st > 0 else (j, i)] = True
        last_of_step = e + 1 == len(events) or events[e + 1][0] != s
        if last_of_step:
            if settled_at is None and chain(systems, better) is not None:
                settled_at = s
    order = chain(systems, better)
    beyond = maximum is not None and not within.all()  # answers from participants after the maximum
    return {"settled": order is not None, "settled_at": settled_at, "order": order, "pairs": rows, "beyond": beyond}


def min_participants(maximum: int | None) -> int:
    """Participants a pair needs before it may separate: the open-ended sequence's burn-in, or the shorter one of
    the declared-maximum boundary (its t reading and variance about 0 do that job there)."""
    return confseq.MIN_UNITS if maximum is None else horizon.MIN_UNITS


def participants_so_far(cluster: np.ndarray) -> np.ndarray:
    """The study's participants so far at each observation (in the order given): the finite horizon's clock."""
    cluster = np.asarray(cluster)
    if not len(cluster):
        return np.zeros(0, dtype=int)
    _, first = np.unique(cluster, return_index=True)
    new = np.zeros(len(cluster), dtype=int)
    new[first] = 1
    return np.cumsum(new)


def arrival(cluster: np.ndarray) -> np.ndarray:
    """Each observation's participant's place in the order of arrival (1: the first to answer)."""
    return pd.factorize(np.asarray(cluster))[0] + 1


def _pair_row(systems, i, j, path, state) -> dict:
    higher, lower, sign = (i, j, 1) if path.mean[-1] >= 0 else (j, i, -1)
    lo, hi = sorted((sign * path.lo[-1], sign * path.hi[-1]))
    return {
        "higher": systems[higher],
        "lower": systems[lower],
        "n": int(path.n[-1]),
        "n_participants": int(path.units[-1]),
        "difference": float(sign * path.mean[-1]),
        "interval": [_finite(lo), _finite(hi)],
        "separated": state != 0,
    }


def _finite(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


def _section(
    result: dict, count: str, n: int, confidence: float, tuned_for: float, unit: str, maximum: int | None = None
) -> dict:
    return {
        "method": METHOD if maximum is None else HORIZON_METHOD,
        "boundary": "anytime" if maximum is None else "finite_horizon",
        "maximum": maximum,  # participants declared in advance ([monitoring] max_participants), else None
        "beyond_maximum": result["beyond"],  # answers from participants after it (they settle nothing anew)
        "unit": unit,
        "confidence": confidence,
        "tuned_for": tuned_for,
        "min_participants": min_participants(maximum),
        "settled": result["settled"],
        f"settled_at_{count}": result["settled_at"],
        f"n_{count}": n,
        "order": result["order"],
        "pairs": result["pairs"],
    }


def _pair_codes(k: int, ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pair index, +1 when a is the pair's first system else −1) for each row of system codes a, b."""
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    pair = lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)  # position of (lo, hi) in combinations(range(k), 2)
    return pair, np.where(ia == lo, 1, -1)


def votes_monitoring(
    votes: pd.DataFrame,
    *,
    confidence: float = 0.95,
    tuned_for: float = TUNED_FOR_VOTES,
    step: np.ndarray | None = None,
    systems: list[str] | None = None,
    maximum: int | None = None,
) -> dict:
    """The `monitoring` section of a pairwise table (prepared: `winner` a system, `tie` or `both_bad`; ties and
    both-bad count 0). `systems`: the ones whose order is watched (default all; votes with another system
    still count as votes given, for `settled_at_votes`). `maximum`: participants declared in advance (monitor)."""
    order = given_order(votes)
    v = votes.iloc[order]
    steps = np.arange(1, len(v) + 1) if step is None else np.asarray(step)[order]
    n = int(steps.max()) if len(steps) else 0
    a, b, winner = (v[c].astype(str) for c in ("system_a", "system_b", "winner"))
    if systems is None:
        systems = set(pd.unique(a)) | set(pd.unique(b))
    systems = sorted(systems)
    ia, ib = (pd.Index(systems).get_indexer(x).astype(np.int64) for x in (a, b))  # −1: a system not watched
    kept = (ia >= 0) & (ib >= 0)
    won = np.where((winner == a).to_numpy(), 1.0, np.where((winner == b).to_numpy(), -1.0, 0.0))[kept]
    pair, sign = _pair_codes(len(systems), ia[kept], ib[kept])
    cluster = pd.factorize(v["participant"].astype(str))[0][kept]
    steps = steps[kept]
    res = monitor(
        systems, pair, won * sign, cluster, steps, confidence=confidence, tuned_for=tuned_for, maximum=maximum
    )
    return _section(res, "votes", n, confidence, tuned_for, "votes (participants as clusters)", maximum)


def best_worst_monitoring(
    choices: pd.DataFrame,
    implied_pairs,
    *,
    confidence: float = 0.95,
    tuned_for: float = TUNED_FOR_VOTES,
    systems=None,
    maximum: int | None = None,
) -> dict:
    """Best–worst choices (prepared: a `shown` list) as the pairs they imply (`implied_pairs`:
    tables.comparisons.best_worst_as_pairwise); a look after every choice (`settled_at_votes` counts choices)."""
    ordered = choices.iloc[given_order(choices)].reset_index(drop=True)
    implied = implied_pairs(ordered)
    per_choice = [2 * len(s) - 3 for s in ordered["shown"]]  # pairs each choice implies (best_worst_as_pairwise)
    step = np.repeat(np.arange(1, len(ordered) + 1), per_choice)
    return votes_monitoring(
        implied, confidence=confidence, tuned_for=tuned_for, step=step, systems=systems, maximum=maximum
    )


def ratings_monitoring(
    ratings: pd.DataFrame,
    *,
    scale_points: int = 5,
    confidence: float = 0.95,
    tuned_for=TUNED_FOR_PARTICIPANTS,
    maximum: int | None = None,
) -> dict:
    """Ratings (prepared: numeric `rating`): per pair of systems, each participant's mean rating difference, a look
    after every participant (in the order they gave their last rating): `settled_at_participants`."""
    df = ratings.iloc[given_order(ratings)]
    people = list(dict.fromkeys(reversed(df["participant"].astype(str).tolist())))[::-1]  # by their last answer
    systems = sorted(df["system"].astype(str).unique())
    means = df.assign(participant=df["participant"].astype(str), system=df["system"].astype(str))
    wide = means.groupby(["participant", "system"])["rating"].mean().unstack().reindex(index=people, columns=systems)
    pair, x, who = [], [], []
    for p, (i, j) in enumerate(combinations(range(len(systems)), 2)):
        d = (wide.iloc[:, i] - wide.iloc[:, j]).to_numpy()
        rated = np.flatnonzero(~np.isnan(d))
        pair += [p] * len(rated)
        x += list(d[rated])
        who += list(rated)
    who_arr = np.asarray(who, dtype=int)
    by_time = np.argsort(who_arr, kind="stable")
    who_arr = who_arr[by_time]
    res = monitor(
        systems,
        np.asarray(pair, dtype=int)[by_time],
        np.asarray(x, dtype=float)[by_time],
        who_arr,
        who_arr + 1,
        confidence=confidence,
        tuned_for=tuned_for,
        prior_variance=((scale_points - 1) / 2) ** 2,
        maximum=maximum,
    )
    return _section(res, "participants", len(people), confidence, tuned_for, "participants", maximum)


def add_ratings_monitoring(result: dict, df: pd.DataFrame, confidence: float, maximum: int | None = None) -> dict:
    """`result` (ratings.analysis.analyze's, one criterion or several) with a `monitoring` section per criterion;
    `df`: the ratings it analysed (ratings.analysis.prepare_ratings)."""
    parts = result.get("criteria") or {None: result}
    for name, part in parts.items():
        rows = df if name is None else df[df["criterion"].astype(str) == name]
        if name is None and part.get("criterion") is not None:
            rows = df[df["criterion"].astype(str) == part["criterion"]]
        part["monitoring"] = ratings_monitoring(
            rows, scale_points=int(part.get("scale_points") or 5), confidence=confidence, maximum=maximum
        )
    return result
