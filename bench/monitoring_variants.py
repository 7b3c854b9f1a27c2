"""The variants of the anytime-valid sequence weighed for issue 37's goal 5, on bench/monitoring.py's data.

    python bench/monitoring_variants.py [--studies 1000] [--seed 100]

Tuning ran on seeds 100+ (the figures in bench/README.md); the method chosen was then measured by
bench/monitoring.py on seeds 1 / 2 / 3. For two systems (the cases where errors were seen: five systems and
ratings were 0–1.4%), per variant: `false_no_ties` / `false_ties` (share of studies of two equal systems ever
called settled) and `ratio` (votes after which 80% of studies of a gap of 0.3 had settled, over the votes at
which the fixed-sample interval separates them in 80% of studies at one look, the same for every variant).
Variants: the boundary read as a t quantile with C − 1 degrees of freedom (Cornish–Fisher) or not, the minimum
of participants before a pair may separate, ρ tuned for 250 / 500 / 1,000 votes and the variance lagged one
vote (predictable). Then `ideal`: independent votes with their variance known, ρ tuned for 250–3,000 votes
(the normal mixture's own floor), and the same calibrated to spend all of α within the 3,000 votes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from monitoring import votes_study  # bench/monitoring.py: the same simulated studies

from infact.stats import confseq

VARIANTS = {  # name: (t reading, minimum of participants, ρ tuned for votes, lagged variance)
    "chosen: no t reading, 30 participants": (False, 30, 500, False),
    "before: t reading, 20 participants": (True, 20, 500, False),
    "no t reading, 20 participants": (False, 20, 500, False),
    "no t reading, 10 participants": (False, 10, 500, False),
    "t reading, 10 participants": (True, 10, 500, False),
    "chosen, rho for 250 votes": (False, 30, 250, False),
    "chosen, rho for 1000 votes": (False, 30, 1000, False),
    "chosen, variance lagged one vote": (False, 30, 500, True),
}


def half_width(cluster, x, t_reading: bool, min_units: int, tuned_for: float, lagged: bool):
    """(mean, half-width, may separate) at every look, from confseq.sequence's running cluster variance."""
    path = confseq.sequence(cluster, x, min_units=1)
    per_unit = path.variance / path.n
    if lagged:
        per_unit = np.concatenate([[1.0], per_unit[:-1]])
    v = per_unit * path.n
    b = confseq.boundary(v, confseq.rho_for(tuned_for * per_unit, 0.05), 0.05)
    if t_reading:
        b = b * (1 + (b * b / v + 1) / (4 * np.maximum(path.units - 1, 1)))
    return path.mean, b / path.n, path.units >= min_units


def measure(variant, studies: int, seed: int, votes: int = 3000) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for nu, label in ((0.0, "false_no_ties"), (0.3, "false_ties")):
        hits = 0
        for _ in range(studies):
            _, x, cluster = votes_study(np.zeros(2), nu, votes, rng)
            mean, h, ok = half_width(cluster, x, *variant)
            hits += bool(((np.abs(mean) > h) & ok).any())
        out[label] = hits / studies
    first, separated = [], []
    for _ in range(studies):
        _, x, cluster = votes_study(np.array([0.3, 0.0]), 0.0, votes, rng)
        mean, h, ok = half_width(cluster, x, *variant)
        hit = np.flatnonzero((mean > h) & ok)
        first.append(hit[0] + 1 if len(hit) else np.inf)
        path = confseq.sequence(cluster, x)
        separated.append(path.mean - path.fixed_half_width() > 0)
    fixed = int(np.argmax(np.mean(separated, axis=0) >= 0.8)) + 1
    out["ratio"] = float(np.quantile(first, 0.8)) / fixed
    return out


def ideal(studies: int, seed: int, votes: int = 3000, gap: float = 0.3) -> None:
    """Independent ±1 votes, variance known: the normal mixture's own floor, by ρ and by α spent within `votes`."""
    rng = np.random.default_rng(seed)
    p = 1 / (1 + np.exp(-gap))
    var = 1 - (2 * p - 1) ** 2
    n = np.arange(1, votes + 1)
    walks = np.cumsum(np.where(rng.random((studies, votes)) < p, 1.0, -1.0), axis=1)
    nulls = np.cumsum(np.where(rng.random((studies, votes)) < 0.5, 1.0, -1.0), axis=1)
    share = (walks > confseq.fixed_half_width(n * var, 0.95)).mean(axis=0)
    fixed = int(np.argmax(share >= 0.8)) + 1
    for alpha in (0.05, 0.08, 0.1):
        for tuned in (250, 500, 1000, 3000) if alpha == 0.05 else (500,):
            half = confseq.boundary(n * var, confseq.rho_for(tuned * var, alpha), alpha)
            hit = walks > half
            first = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, np.inf)
            wrong = (np.abs(nulls) > confseq.boundary(n * 1.0, confseq.rho_for(tuned, alpha), alpha)).any(axis=1)
            print(
                f"ideal alpha={alpha} rho_for_votes={tuned}: false={wrong.mean():.4f} "
                f"ratio={np.quantile(first, 0.8) / fixed:.2f} ({np.quantile(first, 0.8):.0f} / {fixed} votes)"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=100)
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"studies={args.studies} seed={args.seed}")
    for name, variant in VARIANTS.items():
        m = measure(variant, args.studies, args.seed)
        print(f"{name}: false_no_ties={m['false_no_ties']:.4f} false_ties={m['false_ties']:.4f} ratio={m['ratio']:.2f}")
    ideal(4 * args.studies, args.seed)
    print(f"seconds={time.perf_counter() - t0:.0f}")


if __name__ == "__main__":
    main()
