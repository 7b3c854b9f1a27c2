"""pairwise.csv and best_worst.csv: recognising, checking and reshaping them.

pairwise.csv has one row per vote: `participant, situation_id, criterion, system_a,
system_b, shown_left, winner, seconds, justification` (`winner` is a system's name,
`tie` or `both_bad`), optionally followed by style covariates `length_a, length_b, items_a, items_b`.
best_worst.csv has `participant, situation_id, criterion, systems` (names joined with `|`),
`best, worst`. Both are written by `python -m infact export` and by `infact.results.tables.votes`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from infact.errors import InfactError, OptionError, Problem
from infact.participation.steps.best_worst import BEST_WORST
from infact.participation.steps.pairwise import PAIRWISE
from infact.results.tables.checks import blank_problems, csv_line, row_problem
from infact.stats import bradley_terry as ranking
from infact.values import bool_column

# The first columns as issue 13 specifies them, and the required ones: from the kinds' declarations.
PAIRWISE_COLUMNS = [c for c in PAIRWISE.names[: PAIRWISE.names.index("justification") + 1] if c != "condition"]
PAIRWISE_REQUIRED = tuple(PAIRWISE.required)
BEST_WORST_COLUMNS = [c for c in BEST_WORST.names[: BEST_WORST.names.index("worst") + 1] if c != "condition"]
BEST_WORST_REQUIRED = tuple(BEST_WORST.required)
TIE = "tie"
BOTH_BAD = "both_bad"  # "both bad" (protocol/live `allow_both_bad`): a tie in the fit, counted apart
NO_WINNER = (TIE, BOTH_BAD)
SEP = "|"
STYLE_COVARIATES = ("length", "items")


def prepare_pairwise(df: pd.DataFrame, source: str = "pairwise.csv", include_flagged: bool = False) -> pd.DataFrame:
    """Checked votes as text columns; flagged participants dropped unless asked. Raises naming the line."""
    PAIRWISE.check_columns(df.columns, source)
    problems = blank_problems(df, PAIRWISE_REQUIRED, source)
    if problems:
        raise InfactError(problems)
    out = df.assign(**{c: df[c].astype(str).str.strip() for c in PAIRWISE_REQUIRED})
    same = out["system_a"] == out["system_b"]
    row_problem(
        problems,
        out,
        same,
        source,
        "system_b",
        lambda i: f"system_a and system_b are both {out['system_a'][i]!r}; a vote compares two different systems.",
    )
    bad = ~(out["winner"].isin(NO_WINNER) | (out["winner"] == out["system_a"]) | (out["winner"] == out["system_b"]))
    row_problem(
        problems,
        out,
        bad,
        source,
        "winner",
        lambda i: (
            f"winner {out['winner'][i]!r} is neither {out['system_a'][i]!r}, {out['system_b'][i]!r} "
            f"nor 'tie' or 'both_bad' ({int(bad.sum())} row(s)); write the winning system's name, 'tie' or 'both_bad'."
        ),
    )
    if problems:
        raise InfactError(problems)
    if "excluded" in out.columns and not include_flagged:
        out = out[~bool_column(out["excluded"])]
    return out


def prepare_best_worst(df: pd.DataFrame, source: str = "best_worst.csv", include_flagged: bool = False) -> pd.DataFrame:
    """Checked best–worst choices with a `shown` list column."""
    BEST_WORST.check_columns(df.columns, source)
    out = df.assign(**{c: df[c].astype(str).str.strip() for c in BEST_WORST_REQUIRED})
    shown = out["systems"].str.split(SEP, regex=False).map(lambda xs: [x.strip() for x in xs if x.strip()])
    problems: list[Problem] = []
    few = shown.map(len) < 3
    row_problem(
        problems,
        out,
        few,
        source,
        "systems",
        f"{int(few.sum())} row(s) show fewer than 3 systems; best–worst needs 3 or more names joined with '{SEP}'.",
    )
    for col in ("best", "worst"):
        bad = ~pd.Series([v in s for v, s in zip(out[col], shown)], index=out.index)
        row_problem(
            problems,
            out,
            bad,
            source,
            col,
            lambda i, col=col, bad=bad: (
                f"{col} {out[col][i]!r} is not among the row's systems ({int(bad.sum())} row(s))."
            ),
        )
    same = out["best"] == out["worst"]
    row_problem(problems, out, same, source, "worst", "best and worst are the same system; pick two different ones.")
    if problems:
        raise InfactError(problems)
    out = out.assign(shown=shown)
    if "excluded" in out.columns and not include_flagged:
        out = out[~bool_column(out["excluded"])]
    return out


# --------------------------------------------------------------------------- reshaping


def ratings_as_pairwise(ratings: pd.DataFrame) -> pd.DataFrame:
    """Preferences implied by a rating table: within each participant × situation (× criterion),
    every two systems rated form one vote, won by the higher rating (equal ratings tie)."""
    keys = ["participant", "situation_id"] + (["criterion"] if "criterion" in ratings.columns else [])
    df = ratings.assign(rating=pd.to_numeric(ratings["rating"]))
    m = df.merge(df, on=keys, suffixes=("_a", "_b"))
    m = m[m["system_a"].astype(str) < m["system_b"].astype(str)]
    winner = np.where(
        m["rating_a"] > m["rating_b"], m["system_a"], np.where(m["rating_a"] < m["rating_b"], m["system_b"], TIE)
    )
    out = m[keys + ["system_a", "system_b"]].assign(winner=winner)
    if "excluded_a" in m.columns:
        out["excluded"] = m["excluded_a"]
    if "criterion" not in out.columns:
        out["criterion"] = None
    return out.reset_index(drop=True)


def best_worst_as_pairwise(bw: pd.DataFrame) -> pd.DataFrame:
    """Pairs a best–worst choice implies: best beats every other shown system, and every
    other beats the worst (best over worst once)."""
    rows = []
    for r in bw.itertuples(index=False):
        for s in r.shown:
            if s != r.best:
                rows.append((r.participant, r.situation_id, r.criterion, r.best, s, r.best))
            if s not in (r.best, r.worst):
                rows.append((r.participant, r.situation_id, r.criterion, s, r.worst, s))
    return pd.DataFrame(rows, columns=["participant", "situation_id", "criterion", "system_a", "system_b", "winner"])


def votes_design(votes: pd.DataFrame, covariates: tuple[str, ...] = (), source: str = "pairwise.csv") -> ranking.Design:
    """Codes for ranking.design; covariates become Chatbot Arena's normalised, standardised differences."""
    systems = sorted(set(votes["system_a"].unique()) | set(votes["system_b"].unique()))
    a, b = (pd.Categorical(votes[c], categories=systems).codes for c in ("system_a", "system_b"))
    outcome = np.where(votes["winner"] == votes["system_a"], 0, np.where(votes["winner"] == votes["system_b"], 1, 2))
    cluster, clusters = pd.factorize(votes["participant"], sort=True)
    z = style_features(votes, covariates, source) if covariates else None
    return ranking.design(a, b, outcome, cluster, systems, [str(c) for c in clusters], z, list(covariates))


def style_features(votes: pd.DataFrame, covariates, source: str) -> np.ndarray:
    """(n, q): (x_a − x_b) / (x_a + x_b) per covariate, divided by its SD over votes."""
    cols = []
    for name in covariates:
        need = [f"{name}_a", f"{name}_b"]
        missing = [c for c in need if c not in votes.columns]
        if missing:
            raise OptionError(
                "covariates",
                f"{{covariates}} {name} needs columns {', '.join(need)} (written by "
                "`python -m infact export`); add them or drop the covariate.",
                key=missing[0],
                file=source,
            )
        xa, xb = (pd.to_numeric(votes[c], errors="coerce").to_numpy(dtype=float) for c in need)
        if np.isnan(xa).any() or np.isnan(xb).any():
            bad = pd.Series(np.isnan(xa) | np.isnan(xb), index=votes.index)
            raise InfactError(
                Problem(
                    source, f"{name}_a/{name}_b must be numbers in every row.", line=csv_line(votes, bad), key=need[0]
                )
            )
        tot = xa + xb
        f = np.divide(xa - xb, tot, out=np.zeros_like(tot), where=tot != 0)
        sd = f.std()
        cols.append(f / sd if sd > 0 else f)
    return np.column_stack(cols)


# --------------------------------------------------------------------------- descriptive statistics


def _codes(votes: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Sorted systems and, per vote, the lower and higher system index and who won (+1 lower, −1 higher, 0 tie)."""
    systems = sorted(set(votes["system_a"].unique()) | set(votes["system_b"].unique()))
    a, b = (pd.Categorical(votes[c], categories=systems).codes.astype(np.int64) for c in ("system_a", "system_b"))
    won = np.where(votes["winner"] == votes["system_a"], 1, np.where(votes["winner"] == votes["system_b"], -1, 0))
    return systems, np.minimum(a, b), np.maximum(a, b), np.where(a < b, won, -won)


def win_rates(votes: pd.DataFrame) -> dict[str, dict[str, float]]:
    """{a: {b: share of a's votes against b that a won, ties and both-bad votes counted half}}."""
    systems, lo, hi, point = _codes(votes)
    k = len(systems)
    n = np.bincount(lo * k + hi, minlength=k * k).reshape(k, k)
    lo_score = np.bincount(lo * k + hi, (point + 1) / 2.0, minlength=k * k).reshape(k, k)  # win 1, tie ½
    n, score = n + n.T, lo_score + (n - lo_score).T  # the higher one scores what the lower did not
    return {
        s: {t: (float(score[i, j] / n[i, j]) if n[i, j] else None) for j, t in enumerate(systems) if j != i}
        for i, s in enumerate(systems)
    }


def sign_tests(votes: pd.DataFrame) -> list[dict]:
    """Per pair: each participant's net preference (wins − losses, ties ignored) is one sign;
    exact binomial test of positive vs negative signs, Holm-adjusted over pairs."""
    from infact.stats.binomial import holm, sign_test_p

    systems, lo, hi, point = _codes(votes)
    k = len(systems)
    person, people = pd.factorize(votes["participant"])
    key, where = np.unique((lo * k + hi) * len(people) + person, return_inverse=True)
    net, pair = np.bincount(where, point), key // len(people)  # per pair × participant
    count = [np.bincount(pair[m], minlength=k * k) for m in (net > 0, net < 0, net == 0)]
    rows = [(i, j) for i, j in combinations(range(k), 2)]
    at = np.array([i * k + j for i, j in rows], dtype=np.int64)
    prefer_a, prefer_b, even = (c[at] if len(at) else c[:0] for c in count)
    ps = sign_test_p(prefer_a, prefer_a + prefer_b)
    adj = holm(ps)
    return [
        {
            "a": systems[i],
            "b": systems[j],
            "n_participants": int(prefer_a[r] + prefer_b[r] + even[r]),
            "prefer_a": int(prefer_a[r]),
            "prefer_b": int(prefer_b[r]),
            "even": int(even[r]),
            "p": float(ps[r]),
            "p_holm": float(adj[r]),
        }
        for r, (i, j) in enumerate(rows)
    ]


def best_worst_scores(bw: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """Counting scores (best − worst) / times shown, best first, with participant-bootstrap CIs."""
    systems = sorted({s for xs in bw["shown"] for s in xs})
    idx = {s: i for i, s in enumerate(systems)}
    cl, clusters = pd.factorize(bw["participant"], sort=True)
    net, shown = np.zeros((len(clusters), len(systems))), np.zeros((len(clusters), len(systems)))
    np.add.at(net, (cl, bw["best"].map(idx).to_numpy()), 1)
    np.add.at(net, (cl, bw["worst"].map(idx).to_numpy()), -1)
    for c, xs in zip(cl, bw["shown"]):
        shown[c, [idx[s] for s in xs]] += 1
    best = np.zeros(len(systems))
    np.add.at(best, bw["best"].map(idx).to_numpy(), 1)
    w = ranking.boot_weights(len(clusters), n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = net.sum(0) / shown.sum(0)
        reps = (w @ net) / (w @ shown)
    lo, hi = np.nanpercentile(reps, [2.5, 97.5], axis=0)
    order = np.argsort(-score, kind="stable")
    return [
        {
            "system": systems[i],
            "score": score[i],
            "ci95": [lo[i], hi[i]],
            "n_shown": int(shown[:, i].sum()),
            "n_best": int(best[i]),
            "n_worst": int(best[i] - net[:, i].sum()),
        }
        for i in order
    ]


def features_from_votes(votes: pd.DataFrame) -> pd.DataFrame | None:
    """situation_id, system, length, items from a pairwise table's covariate columns, if present."""
    need = {"situation_id", "length_a", "length_b"}
    if not need <= set(votes.columns):
        return None
    parts = []
    for side in ("a", "b"):
        cols = {f"system_{side}": "system", f"length_{side}": "length"}
        if f"items_{side}" in votes.columns:
            cols[f"items_{side}"] = "items"
        parts.append(votes[["situation_id", *cols]].rename(columns=cols))
    f = pd.concat(parts).drop_duplicates(["situation_id", "system"])
    f["length"] = pd.to_numeric(f["length"], errors="coerce")
    return f
