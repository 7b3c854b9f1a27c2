"""Which cut points a study uses: all of them, or a seeded sample, optionally
stratified by position in the dialog or by whether a movie was already mentioned.

Deterministic for a seed; the selection keeps the situations' file order.
Strata get seats in proportion to their size (largest remainder), so a sample
mirrors the data set instead of over-representing small strata.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from infact.errors import ConfigError, Problem
from infact.study.situations import Situation

MODES = ("all", "sample")
STRATA = ("position", "item_mentioned")
POSITION_BUCKETS = ("early", "middle", "late")  # [0, 1/3), [1/3, 2/3), [2/3, 1]


def _bad(message: str, key: str) -> ConfigError:
    return ConfigError(Problem("study.toml", message, key=key))


def _positions(situations: Sequence[Situation]) -> list[float]:
    """meta.relative_position, else turn / n_turns, else the cut's rank among its dialog's cuts."""
    lengths: dict[str, list[int]] = {}
    for s in situations:
        lengths.setdefault(s.dialog_id, []).append(len(s.context))
    for v in lengths.values():
        v.sort()
    out = []
    for s in situations:
        m = s.meta
        if isinstance(m.get("relative_position"), (int, float)):
            out.append(float(m["relative_position"]))
        elif isinstance(m.get("turn"), int) and isinstance(m.get("n_turns"), int) and m["n_turns"] > 0:
            out.append(m["turn"] / m["n_turns"])
        else:
            cuts = lengths[s.dialog_id]
            out.append((cuts.index(len(s.context)) + 0.5) / len(cuts))
    return out


def strata(situations: Sequence[Situation], stratify: str) -> list[str]:
    """The stratum label of each situation."""
    if stratify == "position":
        return [POSITION_BUCKETS[min(int(p * 3), 2)] for p in _positions(situations)]
    if stratify == "item_mentioned":
        labels = []
        for s in situations:
            v = s.meta.get("item_mentioned")
            if not isinstance(v, bool):
                from infact.text.items import mentions_item  # older files lack the flag

                v = any(mentions_item(t.text) for t in s.context)
            labels.append("item_mentioned" if v else "no_item_mentioned")
        return labels
    raise _bad(f"unknown stratify {stratify!r}: use one of {', '.join(STRATA)} or leave it out", "sampling.stratify")


def allocate(sizes: dict[str, int], size: int) -> dict[str, int]:
    """Proportional seats per stratum, rounded by largest remainder (ties: first stratum)."""
    total = sum(sizes.values())
    exact = {k: size * n / total for k, n in sizes.items()}
    seats = {k: int(v) for k, v in exact.items()}
    order = sorted(sizes, key=lambda k: -(exact[k] - seats[k]))
    for k in order[: size - sum(seats.values())]:
        seats[k] += 1
    return seats


def select_situations(
    situations: Sequence[Situation],
    *,
    mode: str = "all",
    size: int | None = None,
    seed: int = 0,
    stratify: str | None = None,
) -> list[Situation]:
    situations = list(situations)
    if mode not in MODES:
        raise _bad(f'unknown sampling mode {mode!r}: use "all" or "sample"', "sampling.mode")
    if stratify is not None and stratify not in STRATA:
        raise _bad(
            f"unknown stratify {stratify!r}: use one of {', '.join(STRATA)} or leave it out", "sampling.stratify"
        )
    if mode == "all":
        return situations
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise _bad(f'mode = "sample" needs size = a whole number of situations >= 1 (got {size!r})', "sampling.size")
    if size > len(situations):
        raise _bad(
            f'size = {size} but only {len(situations)} situations are available: lower it or use mode = "all"',
            "sampling.size",
        )
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise _bad(f"seed must be an integer (got {seed!r})", "sampling.seed")
    rng = random.Random(seed)
    if stratify is None:
        chosen = rng.sample(range(len(situations)), size)
    else:
        groups: dict[str, list[int]] = {}
        for i, label in enumerate(strata(situations, stratify)):
            groups.setdefault(label, []).append(i)
        seats = allocate({k: len(v) for k, v in sorted(groups.items())}, size)
        chosen = [i for k in sorted(groups) for i in rng.sample(groups[k], seats[k])]
    return [situations[i] for i in sorted(chosen)]
