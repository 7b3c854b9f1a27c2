"""How many participants a study needs (`python -m infact plan`).

Three answers, all documented in docs/planner.md:

* balanced assignment (INFACT re-created: the server hands out situations so that
  every one reaches k ratings): ⌈k·P/(n−a)⌉ participants, then ÷(1−e) for exclusions;
* the original INFACT's random sampling (each participant draws n−a situations
  uniformly without replacement): the smallest N for which, with probability
  ≥ 95 %, every situation gets ≥ k ratings (union bound, so it is guaranteed);
* optionally, a power-based N for one pairwise contrast of two systems (paired
  t-test on participant means, with the clustering of ratings in participants).
"""

from __future__ import annotations

import math
from fractions import Fraction

from scipy.stats import binom
from statsmodels.stats.power import TTestPower

from infact.errors import InfactError, Problem

WHERE = "infact plan"
COVERAGE = 0.95  # required probability that every situation reaches k ratings (random sampling)


def _problem(flag: str, message: str) -> Problem:
    return Problem(WHERE, message, key=flag)


def _ceil_div_keep(n: int, e: float) -> int:
    """⌈n / (1 − e)⌉ in exact arithmetic: ⌈39 / 0.8⌉ must be 49, not 48.999… or 49.000…1."""
    return math.ceil(Fraction(n) / (1 - Fraction(str(e))))


def balanced_participants(P: int, n: int, k: int, a: int = 1, e: float = 0.0) -> int:
    return _ceil_div_keep(math.ceil(Fraction(k * P, n - a)), e)


def coverage_bound(N: int, P: int, m: int, k: int, e: float = 0.0) -> float:
    """Lower bound on P(every situation has ≥ k ratings) under random sampling.

    A situation is in a participant's draw with probability m/P and the participant is
    kept with probability 1−e, independently across participants, so its rating count
    is Binomial(N, (1−e)·m/P). The union bound 1 − P·P(count < k) needs no
    independence between situations."""
    miss = binom.cdf(k - 1, N, (1 - e) * m / P)
    return max(0.0, 1.0 - P * float(miss))


def random_participants(P: int, n: int, k: int, a: int = 1, e: float = 0.0, coverage: float = COVERAGE) -> int:
    """Smallest N whose coverage bound reaches `coverage` (the bound grows with N)."""
    m = n - a
    lo = hi = max(1, math.ceil(k * P / m))  # nobody can do better than balanced
    while coverage_bound(hi, P, m, k, e) < coverage:
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if coverage_bound(mid, P, m, k, e) >= coverage:
            hi = mid
        else:
            lo = mid + 1
    return hi


def contrast_sd(sd: float, icc: float, m: int, corr: float = 0.0) -> float:
    """SD of one participant's mean difference between two systems over m situations.

    Each system's rating has SD `sd`; a share `icc` of its variance is the participant's
    own level (repeated over their m situations), the rest varies per situation. The two
    systems' ratings correlate `corr` at both levels (0 = no help from pairing,
    conservative). Var(diff of one rating) = 2·sd²·(1−corr); averaging m situations
    leaves icc + (1−icc)/m of it — the design effect (1+(m−1)·icc)/m."""
    return math.sqrt(2 * sd * sd * (1 - corr) * (icc + (1 - icc) / m))


def power_participants(
    delta: float,
    sd: float,
    icc: float,
    m: int,
    *,
    corr: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    pairs: int = 1,
) -> tuple[int, float]:
    """Participants for a two-sided paired t-test on participant mean differences,
    alpha Bonferroni-split over `pairs` contrasts. Returns (N, standardised effect dz)."""
    dz = delta / contrast_sd(sd, icc, m, corr)
    test, level = TTestPower(), alpha / pairs

    def enough(n: int) -> bool:
        return test.power(effect_size=dz, nobs=n, alpha=level, alternative="two-sided") >= power

    lo = hi = 2  # a t-test needs two participants
    while not enough(hi):
        lo, hi = hi, hi * 2
        if hi > 10_000_000:
            raise InfactError(
                _problem(
                    "--delta",
                    f"the effect (dz = {dz:.4g}) is too small to detect with any study size; "
                    "raise --delta or lower --sd",
                )
            )
    while lo < hi:
        mid = (lo + hi) // 2
        hi, lo = (mid, lo) if enough(mid) else (hi, mid + 1)
    return hi, dz


def validate(P, n, k, a, e, delta, sd, icc, corr, alpha, power, pairs, conditions: int = 1) -> None:
    problems = []
    if conditions < 1:  # between-subjects conditions: every answer is per condition (docs/planner.md)
        problems.append(_problem("--conditions", f"must be 1 or more (got {conditions})"))
    for flag, value in (
        ("--situations", P),
        ("--per-participant", n),
        ("--ratings-per-situation", k),
        ("--pairs", pairs),
    ):
        if value < 1:
            problems.append(_problem(flag, f"must be at least 1 (got {value})"))
    if a < 0:
        problems.append(_problem("--attention-checks", f"cannot be negative (got {a})"))
    if n >= 1 and a >= 0 and n <= a:
        problems.append(
            _problem(
                "--per-participant",
                f"{n} situations per participant leave none to rate after {a} attention check(s): "
                "raise --per-participant above --attention-checks",
            )
        )
    elif P >= 1 and n - a > P:
        problems.append(
            _problem(
                "--per-participant",
                f"each participant would rate {n - a} situations but there are only {P}: "
                "lower --per-participant or add situations",
            )
        )
    if not 0 <= e < 1:
        problems.append(_problem("--exclusion-rate", f"must be a share in [0, 1), e.g. 0.2 for 20 % (got {e})"))
    given = {"--delta": delta, "--sd": sd, "--icc": icc}
    if any(v is not None for v in given.values()):
        for flag in (f for f, v in given.items() if v is None):
            problems.append(_problem(flag, "the power calculation needs --delta, --sd and --icc together"))
        if delta is not None and delta <= 0:
            problems.append(
                _problem("--delta", f"the smallest difference worth detecting must be > 0 scale points (got {delta})")
            )
        if sd is not None and sd <= 0:
            problems.append(_problem("--sd", f"the rating SD must be > 0 (got {sd}); about 1 on a 5-point scale"))
        if icc is not None and not 0 <= icc <= 1:
            problems.append(_problem("--icc", f"must be in [0, 1] (got {icc})"))
    if not -1 < corr < 1:
        problems.append(_problem("--corr", f"must be in (-1, 1) (got {corr})"))
    if not 0 < alpha < 1:
        problems.append(_problem("--alpha", f"must be in (0, 1) (got {alpha})"))
    if not 0 < power < 1 or power <= alpha:
        problems.append(_problem("--power", f"must be in (alpha, 1), e.g. 0.8 (got {power})"))
    if problems:
        raise InfactError(problems)


def plan(
    P: int,
    n: int,
    k: int,
    a: int = 1,
    e: float = 0.0,
    *,
    delta: float | None = None,
    sd: float | None = None,
    icc: float | None = None,
    corr: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    pairs: int = 1,
    coverage: float = COVERAGE,
    conditions: int = 1,
) -> dict:
    """All answers as a JSON-serialisable dict (see the module docstring); per condition with `conditions` > 1."""
    validate(P, n, k, a, e, delta, sd, icc, corr, alpha, power, pairs, conditions)
    m = n - a
    before = math.ceil(Fraction(k * P, m))
    result = {
        "inputs": {
            "situations": P,
            "per_participant": n,
            "attention_checks": a,
            "rated_per_participant": m,
            "ratings_per_situation": k,
            "exclusion_rate": e,
        },
        "balanced": {"participants_before_exclusions": before, "participants": balanced_participants(P, n, k, a, e)},
    }
    n_random = random_participants(P, n, k, a, e, coverage)
    result["random_sampling"] = {
        "participants": n_random,
        "coverage": coverage,
        "coverage_bound_at_n": round(coverage_bound(n_random, P, m, k, e), 4),
        "extra_vs_balanced": n_random - result["balanced"]["participants"],
    }
    needed = result["balanced"]["participants"]
    if delta is not None:
        result["power"] = _power(delta, sd, icc, m, corr, alpha, power, pairs, e)
        needed = max(needed, result["power"]["participants"])
    result["recommended"] = needed * conditions
    if conditions > 1:
        result["conditions"] = {"conditions": conditions, "per_condition": needed}
    return result


def _power(delta, sd, icc, m, corr, alpha, power, pairs, e) -> dict:
    """The power section: participants for the contrast, and the maximum to declare for watching it."""
    from infact.stats.horizon import declared_maximum  # the finite-horizon boundary (docs/ranking.md)

    n_power, dz = power_participants(delta, sd, icc, m, corr=corr, alpha=alpha, power=power, pairs=pairs)
    participants = _ceil_div_keep(n_power, e)
    return {
        "delta": delta,
        "sd": sd,
        "icc": icc,
        "corr": corr,
        "alpha": alpha,
        "power": power,
        "pairs": pairs,
        "alpha_per_test": alpha / pairs,
        "effect_size_dz": round(dz, 4),
        "participants_before_exclusions": n_power,
        "participants": participants,
        # [monitoring] max_participants for the finite-horizon boundary: settled within it as often
        "declared_maximum": declared_maximum(participants, 1, alpha / pairs, power),
    }


def format_plan(r: dict) -> str:
    i, b, rs = r["inputs"], r["balanced"], r["random_sampling"]
    exclusions = f", then ÷ (1 − {i['exclusion_rate']}) for exclusions" if i["exclusion_rate"] else ""
    lines = [
        f"{i['situations']} situations, {i['ratings_per_situation']} ratings each; "
        f"every participant sees {i['per_participant']} "
        f"situations ({i['attention_checks']} attention check(s), {i['rated_per_participant']} rated).",
        "",
        f"Balanced assignment:  {b['participants']} participants  (⌈{i['ratings_per_situation']}·{i['situations']}/"
        f"{i['rated_per_participant']}⌉ = {b['participants_before_exclusions']}{exclusions})",
        f"INFACT random sampling: {rs['participants']} participants  "
        f"(every situation ≥ {i['ratings_per_situation']} ratings "
        f"with probability ≥ {rs['coverage']:.0%}; {rs['extra_vs_balanced']:+d} vs balanced)",
    ]
    if "power" in r:
        p = r["power"]
        split = (
            f", alpha {p['alpha']}/{p['pairs']} pairs (Bonferroni; Holm needs at most this many)"
            if p["pairs"] > 1
            else f", alpha {p['alpha']}"
        )
        lines.append(
            f"Power:                {p['participants']} participants  "
            f"(difference {p['delta']} scale points, SD {p['sd']}, "
            f"ICC {p['icc']}, dz = {p['effect_size_dz']}; power {p['power']}{split}; "
            "paired t-test on participant means)"
        )
        lines.append(
            f"Watched as it runs:   declare [monitoring] max_participants = {p['declared_maximum']} (the power N × "
            "the finite-horizon boundary's inflation: settled within it as often; docs/ranking.md)"
        )
    lines += ["", f"Recommended (balanced{', power' if 'power' in r else ''}): {r['recommended']} participants"]
    if "conditions" in r:
        c = r["conditions"]
        lines[-1] += (
            f" = {c['conditions']} between-subjects conditions × {c['per_condition']} (every figure above is per "
            "condition: situations are balanced, and systems compared, within each)"
        )
    return "\n".join(lines)
