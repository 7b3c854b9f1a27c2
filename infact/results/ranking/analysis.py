"""`analyze` for preference data: pairwise votes, best–worst choices, and ratings read as preferences.

Each returns plain JSON-ready data like `analysis.analyze`; several criteria give
`{"criteria": {name: result}}`, one criterion its result directly. Methods: docs/ranking.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.errors import InfactError, Problem
from infact.results.monitoring import sequences as monitoring
from infact.results.ranking import balance, both_bad, conditions, integrity, provisional
from infact.results.ranking import fragility as ranking_fragility
from infact.results.ranking import ledger as ranking_ledger
from infact.results.ratings.analysis import criterion_names
from infact.results.tables import comparisons as pt
from infact.stats import N_BOOT
from infact.stats import bradley_terry as ranking
from infact.values import json_ready


def _by_criterion(df: pd.DataFrame, criterion: str | None, source: str, one) -> dict:
    names = criterion_names(df, criterion, source)
    if len(names) <= 1:
        part = df[df["criterion"].astype(str) == names[0]] if names else df
        return json_ready({"criterion": names[0] if names else None, **one(part)})
    return json_ready(
        {
            "n_participants": int(df["participant"].nunique()),
            "criteria": {n: {"criterion": n, **one(df[df["criterion"].astype(str) == n])} for n in names},
        }
    )


def _empty(df: pd.DataFrame, source: str) -> None:
    if df.empty:
        raise InfactError(
            Problem(
                source, "no votes left after dropping flagged participants; pass --include-flagged or check the file."
            )
        )


INTEGRITY_BOOT = 200  # bootstrap replicates of the ranking without the flagged votes (its order is what is compared)


def analyze_votes(
    votes: pd.DataFrame,
    *,
    criterion: str | None = None,
    covariates: tuple[str, ...] = (),
    include_flagged: bool = False,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
    source: str = "pairwise.csv",
    prepared: bool = False,
    min_votes: int = provisional.MIN_VOTES,
    reweight: bool = False,
    design: dict | None = None,
    maximum: int | None = None,
    **checks,
) -> dict:
    """Ranking, ties, win rates, sign tests, balance, fragility, the ledger (`design`), the watched `monitoring`
    (`maximum`: participants declared in advance), style-controlled or reweighted rankings per criterion; provisional
    under `min_votes` decisive votes. `integrity`: flagged votes (`checks`), and the ranking without them."""
    _empty(df := votes if prepared else pt.prepare_pairwise(votes, source, include_flagged), source)
    opts = dict(n_boot=n_boot, seed=seed, confidence=confidence)
    checks["line_offset"] = None if prepared else 2  # votes read from a file are named by their line (header: 1)

    def one(part: pd.DataFrame) -> dict:
        d = pt.votes_design(part)
        res = ranking.rank_systems(d, centre_on=provisional.established(d, min_votes), **opts)
        order = provisional.mark(res, part, min_votes)
        out = {
            "kind": "pairwise",
            "n_votes": res.pop("n_votes"),
            "n_participants": res.pop("n_participants"),
            "n_situations": int(part["situation_id"].nunique()) if "situation_id" in part.columns else None,
            "n_ties": int((part["winner"] == pt.TIE).sum()),
            "n_both_bad": int((part["winner"] == pt.BOTH_BAD).sum()),  # ties in the fit, counted apart
            **res,
            "win_rates": pt.win_rates(part),
            "pairwise": pt.sign_tests(part),
            "balance": balance.balance(part),
            "ledger": ranking_ledger.ledger(part, **(design or {})),  # one grouping of the votes, no refit
            "monitoring": monitoring.votes_monitoring(part, confidence=confidence, systems=order, maximum=maximum),
        }
        out["integrity"] = integrity.integrity(
            part,
            lambda kept: _fit(kept, min_votes, {**opts, "n_boot": min(n_boot, INTEGRITY_BOOT)}, (d, part)),
            res["ranking"],
            **checks,
        )
        out.update({} if (rates := both_bad.both_bad_rates(part, confidence)) is None else {"both_bad": rates})
        if "shown_left" in part.columns:
            out["left_side"] = left_side(part)
        out.update(_other_fits(part, d, covariates, reweight, source, min_votes, opts))
        if not prepared:  # votes read from a file: each named by its line (implied votes have none)
            # fewer than two established systems: the fragility of the whole (provisional) order
            out["fragility"] = ranking_fragility.fragility(
                part, d, order if len(order) >= 2 else [r["system"] for r in res["ranking"]]
            )
        return out

    return _by_criterion(df, criterion, source, one)


def _established(res: dict) -> list[str]:
    """The ranking's systems that are not provisional: the ones whose order is watched."""
    return [r["system"] for r in res["ranking"] if not r.get("provisional")]


def _other_fits(part, d, covariates, reweight: bool, source: str, min_votes: int, opts: dict) -> dict:
    """The style-controlled and the pair-reweighted rankings, where asked for; a between-subjects study's rankings
    per condition and its condition × system test (ranking/conditions.py)."""
    out = {}
    if (per := conditions.by_condition(part, pt.votes_design, **opts)) is not None:
        out["conditions"] = per
    if covariates:
        styled = ranking.rank_systems(
            pt.votes_design(part, tuple(covariates), source),
            centre_on=provisional.established(d, min_votes),
            **opts,
        )
        provisional.mark(styled, part, min_votes)
        out["style_controlled"] = {k: styled[k] for k in ("ranking", "tie_parameter", "covariates", "settled")}
    if reweight:
        weighted = ranking.rank_systems(
            balance.reweighted_design(d), centre_on=provisional.established(d, min_votes), **opts
        )
        provisional.mark(weighted, part, min_votes)
        out["reweighted"] = {k: weighted[k] for k in ("ranking", "tie_parameter", "settled")}
    return out


def _fit(votes: pd.DataFrame, min_votes: int, opts: dict, within: tuple | None = None) -> dict:
    """The ranking of `votes` as analyze_votes fits it (provisional systems marked). `within`: (design, votes)
    of a table that `votes` is a subset of, whose design then loses the other votes' counts (no rebuild)."""
    d = None
    if within is not None:
        full_design, full = within
        d = integrity.design_without(full_design, full.loc[full.index.difference(votes.index)])
    d = d if d is not None else pt.votes_design(votes)
    res = ranking.rank_systems(d, centre_on=provisional.established(d, min_votes), **opts)
    provisional.mark(res, votes, min_votes, d)
    return res


SAME_SIDE_MIN_VOTES = 5
SAME_SIDE_SHARE = 0.9


def left_side(votes: pd.DataFrame) -> dict | None:
    """Share of decisive votes won by the response shown on the left, with an exact binomial test, and the
    participants who chose the same side in at least 90% of 5 or more decisive votes (`same_side`:
    a pairwise straight-liner, since balanced sides make that unlikely for an attentive reader)."""
    from infact.stats.binomial import sign_test_p

    shown = votes["shown_left"].astype(str)
    known = (shown == votes["system_a"]) | (shown == votes["system_b"])
    decisive = known & ~votes["winner"].isin(pt.NO_WINNER)
    n = int(decisive.sum())
    if not n:
        return None
    left_won = votes["winner"][decisive] == shown[decisive]
    k = int(left_won.sum())
    per = left_won.groupby(votes["participant"][decisive]).agg(["mean", "size"])
    per = per[
        (per["size"] >= SAME_SIDE_MIN_VOTES) & ((per["mean"] >= SAME_SIDE_SHARE) | (per["mean"] <= 1 - SAME_SIDE_SHARE))
    ]
    return {
        "n_decisive": n,
        "left_wins_share": k / n,
        "p": float(sign_test_p(k, n)[0]),
        "same_side": {
            str(p): {"n_decisive": int(r["size"]), "left_share": float(r["mean"])} for p, r in per.iterrows()
        },
    }


def analyze_best_worst(
    choices: pd.DataFrame,
    *,
    criterion: str | None = None,
    include_flagged: bool = False,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
    source: str = "best_worst.csv",
    min_votes: int = provisional.MIN_VOTES,
    design: dict | None = None,
    maximum: int | None = None,
) -> dict:
    """Counting scores, a Bradley–Terry ranking on the implied pairs and, for sets of three, Plackett–Luce; the
    ledger of the systems shown (ranking/ledger.py, one place per system per choice; `design`: as analyze_votes)."""
    df = pt.prepare_best_worst(choices, source, include_flagged)
    _empty(df, source)

    def one(part: pd.DataFrame) -> dict:
        implied = pt.best_worst_as_pairwise(part)
        d = pt.votes_design(implied)
        res = ranking.rank_systems(
            d, n_boot=n_boot, seed=seed, confidence=confidence, centre_on=provisional.established(d, min_votes)
        )
        provisional.mark(res, implied, min_votes)
        per = conditions.by_condition(  # a between-subjects study: each condition's choices, as pairs
            part,
            lambda rows: pt.votes_design(pt.best_worst_as_pairwise(rows)),
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        )
        return {
            "kind": "best_worst",
            "n_choices": int(len(part)),
            "n_participants": res["n_participants"],
            "scores": pt.best_worst_scores(part, n_boot, seed),
            "ranking": res["ranking"],
            "settled": res["settled"],
            "plackett_luce": plackett_luce(part),
            "bootstrap": res["bootstrap"],
            "ledger": ranking_ledger.ledger(part, places=ranking_ledger.shown_places, **(design or {})),
            "monitoring": monitoring.best_worst_monitoring(
                part, pt.best_worst_as_pairwise, confidence=confidence, systems=_established(res), maximum=maximum
            ),
            **({"conditions": per} if per is not None else {}),
        }

    return _by_criterion(df, criterion, source, one)


def plackett_luce(bw: pd.DataFrame) -> dict | None:
    """Plackett–Luce log-strengths (choix) when every choice shows exactly three systems,
    so best > middle > worst is a complete ranking; None otherwise."""
    import choix

    if not (bw["shown"].map(len) == 3).all():
        return None
    systems = sorted({s for xs in bw["shown"] for s in xs})
    idx = {s: i for i, s in enumerate(systems)}
    rankings = [
        (idx[r.best], idx[next(s for s in r.shown if s not in (r.best, r.worst))], idx[r.worst])
        for r in bw.itertuples(index=False)
    ]
    # Iterative Luce spectral ranking converges to the same maximum-likelihood strengths as
    # choix.opt_rankings (checked to 1e-5 in the tests) hundreds of times faster: opt_rankings
    # calls scipy's logsumexp once per ranking per iteration (16 s for 300 choices).
    params = choix.ilsr_rankings(len(systems), rankings, alpha=ranking.RIDGE / max(len(rankings), 1))
    params = params - params.mean()
    order = np.argsort(-params, kind="stable")
    return {
        "method": "choix.ilsr_rankings (maximum likelihood, iterative Luce spectral ranking, weak regularisation)",
        "ranking": [{"system": systems[i], "strength": float(params[i]), "rank": r + 1} for r, i in enumerate(order)],
    }


def analyze_ratings_as_pairwise(
    ratings: pd.DataFrame,
    *,
    criterion: str | None = None,
    include_flagged: bool = False,
    n_boot: int = N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
    source: str = "ratings.csv",
    min_votes: int = provisional.MIN_VOTES,
    maximum: int | None = None,
) -> dict:
    """A rating study ranked by the preferences implied within each participant × situation."""
    from infact.results.ratings.analysis import prepare_ratings, validate_ratings

    validate_ratings(ratings, source)
    df, _info = prepare_ratings(ratings, include_flagged)
    votes = pt.ratings_as_pairwise(df)
    if votes.empty:
        raise InfactError(
            Problem(
                source,
                "no participant rated two systems in one situation, so no preference is "
                "implied; --as-pairwise needs every situation to show two or more systems.",
            )
        )
    result = analyze_votes(
        votes,
        criterion=criterion,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        source=source,
        prepared=True,
        min_votes=min_votes,
        maximum=maximum,
    )
    result["as_pairwise"] = True
    return result
