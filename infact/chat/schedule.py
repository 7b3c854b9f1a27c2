"""Which systems a participant chats with.

Balanced: the least-met system (or, in arena mode, the least-met pair of systems)
goes next, ties broken at random, and the A/B order is random. Counts come from
the stored `chat_assignment` records of other participants (previews never count).

This is the seam for issue 13's scheduler (adaptive pairs where the ranking is
least certain): `choose_systems` is the one function to replace.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations


def choose_systems(systems: list[str], records: list[dict], *, arena: bool, rng: random.Random) -> list[str]:
    """Systems in chat order: two (A then B) in arena mode, otherwise one."""
    assigned = [tuple(r["systems"]) for r in records
                if r.get("kind") == "chat_assignment" and not r.get("preview")]
    if not arena:
        met = Counter(s for pair in assigned for s in pair)
        low = min(met.get(s, 0) for s in systems)
        return [rng.choice([s for s in systems if met.get(s, 0) == low])]
    met_pairs = Counter(frozenset(p) for p in assigned if len(p) == 2)
    pairs = [frozenset(p) for p in combinations(systems, 2)]
    low = min(met_pairs.get(p, 0) for p in pairs)
    pair = sorted(rng.choice([p for p in pairs if met_pairs.get(p, 0) == low]))
    rng.shuffle(pair)
    return pair
