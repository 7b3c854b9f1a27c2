"""Watching a study after every vote: false "settled" and the votes needed to settle, anytime-valid vs fixed-sample.

    python bench/monitoring.py [--studies 1000] [--gap-studies 4000] [--votes 3000] [--participants-ratings 150]
                               [--seed 0]

Simulated studies with participant heterogeneity (each participant's log-strengths are the systems'
plus N(0, 0.3²); 20 votes each, five participants voting at once, their votes interleaved). A look
after every vote (every participant for ratings) with infact.results.monitoring.sequences.monitor — the
function behind `analyze`'s `monitoring` section and the dashboard's "settled":

- `false_settled_*`: share of studies of equal systems that were ever called settled, with its
  exact binomial 95% upper bound (target: share <= 0.05): 2 and 5 systems, without and with
  Davidson ties (ν = 0.3); ratings of 2 and 3 equal systems (5-point scale, 150 participants);
  `peeking_fixed_*`: the same for the fixed-sample 95% interval watched after every vote (the problem);
- `votes_to_settle_*`: votes after which 80% of `--gap-studies` studies of two systems 0.3 apart in
  log-strength had settled; the fixed-sample interval's figure is the vote count at which 80% of the same
  studies' one final look separates them (4,000 studies: with 500 that figure alone moved by ±7% between
  seeds). `ratio` = sequence / fixed (goal <= 1.5); `ideal_ratio`: the same for independent votes whose
  variance is known (the sequence's floor in this setting), `ideal_ratio_mixture` the normal mixture's alone
  (the method before); 4× `--studies` studies.

The same for a **declared maximum** (`[monitoring] max_participants`: the finite-horizon boundary of
infact/stats/horizon.py, looking at the first N participants' votes only):

- `false_settled_horizon_*_maxN`: declared at the whole simulated study (150 participants: every look spends
  the error, the worst case) and, for 2 systems, at the planned maximum below;
- the maximum is declared as a researcher would: `planned_votes` is the fixed-sample power analysis for the gap
  0.3 (80% power, two-sided 5%, the design effect of this simulation's heterogeneity, as a pilot would estimate
  it), × the inflation factor of the boundary at that maximum (horizon.declared_maximum: 1.28 at ~43
  participants); `votes_to_settle_horizon` is the 80% quantile of the first separation (inf when fewer than
  80% separated by the maximum; the share is printed), `ratio_horizon` over the same fixed-sample figure as
  `ratio`. `_2x`: twice that maximum declared (the cost of over-declaring); `_power90`: the maximum of a 90%-power
  analysis.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from statistics import NormalDist

import numpy as np
from scipy.stats import beta

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from infact.results.monitoring.sequences import TUNED_FOR_VOTES, arrival, monitor, participants_so_far
from infact.stats import confseq, horizon

TAU = 0.3  # participant heterogeneity: SD of a participant's own log-strengths around the systems'
PER_PARTICIPANT = 20
AT_ONCE = 5
PEEK_FROM = 30  # the fixed-sample interval is watched from this many participants on (the figures before kept it)


def upper95(k: int, n: int) -> float:
    """Exact (Clopper–Pearson) one-sided 95% upper bound of a binomial share."""
    return 1.0 if k == n else float(beta.ppf(0.95, k + 1, n - k))


def votes_study(theta: np.ndarray, nu: float, n_votes: int, rng) -> tuple:
    """(pair index, x signed for the pair's first system, participant) of one simulated study."""
    k = len(theta)
    people = -(-n_votes // PER_PARTICIPANT)
    own = theta[None, :] + rng.normal(0, TAU, (people, k))
    cluster = np.repeat(np.arange(people), PER_PARTICIPANT)[:n_votes]
    for g in range(0, people, AT_ONCE):  # five at once: their votes interleave
        idx = np.flatnonzero((cluster >= g) & (cluster < g + AT_ONCE))
        cluster[idx] = rng.permutation(cluster[idx])
    i, j = np.triu_indices(k, 1)
    pair = rng.integers(0, len(i), n_votes)
    d = own[cluster, i[pair]] - own[cluster, j[pair]]
    ea, eb = np.exp(d / 2), np.exp(-d / 2)
    u = rng.random(n_votes) * (ea + eb + nu)
    x = np.where(u < ea, 1.0, np.where(u < ea + eb, -1.0, 0.0))
    return pair, x, cluster


def ratings_study(k: int, n_people: int, rng, situations: int = 4) -> tuple:
    """Equal systems on a 5-point scale: participant bias, participant × system effect, noise."""
    bias = rng.normal(0, 0.7, (n_people, 1))
    taste = rng.normal(0, 0.4, (n_people, k))
    latent = 3 + bias[:, :, None] + taste[:, :, None] + rng.normal(0, 0.9, (n_people, k, situations))
    means = np.clip(np.rint(latent), 1, 5).mean(axis=2)
    i, j = np.triu_indices(k, 1)
    pair = np.tile(np.arange(len(i)), n_people)
    who = np.repeat(np.arange(n_people), len(i))
    return pair, means[who, i[pair]] - means[who, j[pair]], who


def false_settled(k: int, nu: float, args, rng, maxima: tuple) -> tuple[int, list[int], int]:
    """Studies ever called settled: anytime, finite horizon at each declared maximum (participants), fixed."""
    names = [f"S{s}" for s in range(k)]
    ours, fixed, declared = 0, 0, [0] * len(maxima)
    for _ in range(args.studies):
        pair, x, cluster = votes_study(np.zeros(k), nu, args.votes, rng)
        steps = np.arange(1, len(x) + 1)
        ours += monitor(names, pair, x, cluster, steps)["settled_at"] is not None
        for m, maximum in enumerate(maxima):
            declared[m] += monitor(names, pair, x, cluster, steps, maximum=maximum)["settled_at"] is not None
        if k == 2:
            path = confseq.sequence(cluster, x)
            watched = path.units >= PEEK_FROM
            fixed += bool((np.abs(path.mean) > path.fixed_half_width())[watched].any())
    return ours, declared, fixed


def false_settled_ratings(k: int, args, rng) -> tuple[int, int]:
    """Studies ever called settled: anytime, and finite horizon declared at the study's length."""
    names = [f"S{s}" for s in range(k)]
    hits = declared = 0
    for _ in range(args.studies):
        pair, x, who = ratings_study(k, args.participants_ratings, rng)
        res = monitor(names, pair, x, who, who + 1, tuned_for=100, prior_variance=4.0)
        hits += res["settled_at"] is not None
        res = monitor(names, pair, x, who, who + 1, prior_variance=4.0, maximum=args.participants_ratings)
        declared += res["settled_at"] is not None
    return hits, declared


def planned_votes(power: float = 0.8, gap: float = 0.3, alpha: float = 0.05) -> float:
    """A power analysis's votes for the fixed-sample design: n = ((z_{α/2} + z_β) / μ)² · σ², σ² per vote with the
    design effect of PER_PARTICIPANT votes per participant — the simulation's own heterogeneity (TAU), i.e. what
    a pilot study would estimate. Computed on 10⁶ simulated participants (fixed seed)."""
    d = gap + np.random.default_rng(0).normal(0, TAU * np.sqrt(2), 1_000_000)
    mu_i = np.tanh(d / 2)  # a participant's expected vote, +1 / −1 coded
    mu = mu_i.mean()
    per_vote = (1 - mu_i**2).mean() + PER_PARTICIPANT * mu_i.var()
    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    return (z / mu) ** 2 * per_vote


def votes_to_settle(args, rng, maxima: tuple, gap: float = 0.3) -> tuple[float, list[float], list[float], int]:
    """80% quantiles of the first vote at which the pair separates: anytime; finite horizon at each declared
    maximum (participants; a study not separated by then counts as never) and the share separated by it; the
    fixed interval's 80% point."""
    first, declared, separated = [], [[] for _ in maxima], []
    for _ in range(args.gap_studies):
        pair, x, cluster = votes_study(np.array([gap, 0.0]), 0.0, args.votes, rng)
        path = confseq.sequence(cluster, x, tuned_for=TUNED_FOR_VOTES)
        first.append(path.first_separated() or np.inf)
        for m, maximum in enumerate(maxima):
            declared[m].append(first_within(cluster, x, maximum))
        separated.append(path.mean - path.fixed_half_width() > 0)
    ours = float(np.quantile(first, 0.8))
    share = np.mean(separated, axis=0)
    fixed = int(np.argmax(share >= 0.8)) + 1 if (share >= 0.8).any() else np.inf
    return ours, [q80(d) for d in declared], [float(np.isfinite(d).mean()) for d in declared], fixed


def q80(first: list[float]) -> float:
    """The 80% quantile of first separations; inf when more than 20% of studies never separated."""
    first = np.asarray(first, dtype=float)
    return float(np.quantile(first, 0.8)) if np.mean(np.isinf(first)) <= 0.2 else np.inf


def first_within(cluster: np.ndarray, x: np.ndarray, maximum: int) -> float:
    """The first vote (of the whole study) at which the finite-horizon boundary separates the pair, looking at the
    first `maximum` participants' votes as `monitor` does; inf when it does not by then."""
    keep = np.flatnonzero(arrival(cluster) <= maximum)
    path = confseq.sequence(cluster[keep], x[keep], min_units=horizon.MIN_UNITS)
    path = horizon.finite(path, np.minimum(participants_so_far(cluster)[keep], maximum), maximum)
    k = path.first_separated()
    return float(keep[k - 1] + 1) if k else np.inf


def votes_to_settle_ideal(args, rng, gap: float = 0.3) -> tuple[float, float, int]:
    """The floors here: independent votes (no participants) and their variance known, a look after every vote —
    for the sequence's boundary, tuned at the same multiple of this setting's fixed-sample size as the studies'
    (TUNED_FOR_VOTES / planned_votes()), and for the normal mixture alone (ρ for 500 votes, the method before,
    whose floor is flat there); the fixed-sample interval with the same known variance at one look."""
    p = 1 / (1 + np.exp(-gap))
    mu, var = 2 * p - 1, 1 - (2 * p - 1) ** 2
    n = np.arange(1, args.votes + 1)
    z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)
    tuned = TUNED_FOR_VOTES / planned_votes() * (z / mu) ** 2 * var
    halves = (
        confseq.combined_boundary(n * var, tuned * var, 0.05),
        confseq.boundary(n * var, confseq.rho_for(500 * var, 0.05), 0.05),
    )
    fixed_half = confseq.fixed_half_width(n * var, 0.95)
    first, separated = ([], []), []
    for _ in range(4 * args.studies):
        s = np.cumsum(np.where(rng.random(args.votes) < p, 1.0, -1.0))
        for f, half in zip(first, halves):
            hit = np.flatnonzero(s > half)
            f.append(hit[0] + 1 if len(hit) else np.inf)
        separated.append(s > fixed_half)
    share = np.mean(separated, axis=0)
    return float(np.quantile(first[0], 0.8)), float(np.quantile(first[1], 0.8)), int(np.argmax(share >= 0.8)) + 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--gap-studies", type=int, default=4000)
    ap.add_argument("--votes", type=int, default=3000)
    ap.add_argument("--participants-ratings", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    n = args.studies
    print(
        f"studies={n} gap_studies={args.gap_studies} votes={args.votes} "
        f"participants_ratings={args.participants_ratings} seed={args.seed}"
    )
    print(
        f"method=line({confseq.LINE_SHARE}*alpha) & normal_mixture tuned_for_votes={TUNED_FOR_VOTES} "
        f"min_participants={confseq.MIN_UNITS} horizon_min_participants={horizon.MIN_UNITS} tau={TAU}"
    )
    planned = planned_votes()
    maximum = horizon.declared_maximum(planned, PER_PARTICIPANT)  # participants declared in advance (80% power)
    maximum_90 = horizon.declared_maximum(planned_votes(power=0.9), PER_PARTICIPANT)  # the same plan at 90% power
    whole = -(-args.votes // PER_PARTICIPANT)  # the whole simulated study: every look spends the error
    print(f"planned_votes={planned:.0f} inflation={horizon.inflation(0.05, 0.8, maximum):.3f}")
    print(f"boundary_c={horizon.constant(0.05):.4f} (|Z_n| >= c * sqrt(maximum / participants so far))")
    print(f"declared_maximum={maximum} participants ({maximum * PER_PARTICIPANT} votes); whole_study={whole}")
    for k, nu, label in [(2, 0.0, "2_no_ties"), (2, 0.3, "2_ties"), (5, 0.0, "5_no_ties"), (5, 0.3, "5_ties")]:
        maxima = (whole, maximum) if k == 2 else (whole,)
        ours, declared, fixed = false_settled(k, nu, args, rng, maxima)
        print(f"false_settled_{label}={ours / n:.4f} upper95={upper95(ours, n):.4f} ({ours}/{n})")
        for m, hits in zip(maxima, declared):
            print(f"false_settled_horizon_{label}_max{m}={hits / n:.4f} upper95={upper95(hits, n):.4f} ({hits}/{n})")
        if k == 2:
            print(f"peeking_fixed_{label}={fixed / n:.4f} (the fixed-sample interval watched after every vote)")
    for k in (2, 3):
        hits, declared = false_settled_ratings(k, args, rng)
        print(f"false_settled_ratings_{k}={hits / n:.4f} upper95={upper95(hits, n):.4f} ({hits}/{n})")
        m = args.participants_ratings
        print(f"false_settled_horizon_ratings_{k}_max{m}={declared / n:.4f} upper95={upper95(declared, n):.4f}")
    ours, declared, by_max, fixed = votes_to_settle(args, rng, (maximum, 2 * maximum, maximum_90))
    print(f"votes_to_settle_sequence={ours:.0f}")
    for label, m, d, share in zip(("", "_2x", "_power90"), (maximum, 2 * maximum, maximum_90), declared, by_max):
        print(f"votes_to_settle_horizon{label}={d:.0f} (declared maximum {m} participants; {share:.1%} settled by it)")
    print(f"votes_to_settle_fixed={fixed} (the plan: {planned:.0f})")
    print(f"ratio={ours / fixed:.2f} (anytime; goal <= 1.5)")
    print(f"ratio_horizon={declared[0] / fixed:.2f} (declared maximum from the 80% power analysis; goal <= 1.5)")
    print(f"ratio_horizon_2x={declared[1] / fixed:.2f} (twice that maximum: the cost of over-declaring)")
    print(f"ratio_horizon_power90={declared[2] / fixed:.2f} (the maximum of a 90% power analysis)")
    ideal, ideal_mixture, ideal_fixed = votes_to_settle_ideal(args, rng)
    print(f"ideal_ratio={ideal / ideal_fixed:.2f} (the sequence's floor: {ideal:.0f} / {ideal_fixed} votes)")
    print(f"ideal_ratio_mixture={ideal_mixture / ideal_fixed:.2f} (the normal mixture alone, the method before)")
    print(f"seconds={time.perf_counter() - t0:.0f}")


if __name__ == "__main__":
    main()
