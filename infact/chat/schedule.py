"""Which systems a participant chats with.

Arena mode: the pair comes from the pairwise scheduler of issue 13
(infact/scheduling/pairs.py `choose_pairs`), `balanced` or `adaptive` as
`live.pairs` says — the same rule the pairwise protocol uses. Votes are the stored
`chat_vote` records the ranking counts. Pairs that were compared without such a vote count
as compared all the same (`pending`): participants assigned a pair who have not voted yet,
so twenty arrivals at once do not all get the same pair, and votes the analysis leaves out
(an identity leak, a skipped system), so a system that always names itself does not draw
every new chat to its pairs. The A/B order is `choose_pairs`' random display order.

One system per participant (`arena = false`): the least-met system, ties at random.
Previews never count.
"""

from __future__ import annotations

import random
from collections import Counter

from infact.scheduling.pairs import choose_pairs


def arena_history(records: list[dict]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(votes as (system_a, system_b, winner), pending pairs) from chat_assignment and chat_vote records."""
    records = [r for r in records if not r.get("preview")]
    voted = {r["participant"]: r for r in records if r.get("kind") == "chat_vote"}
    ranked = [v for v in voted.values() if not v.get("identity_leak") and not v.get("skipped")]
    votes = [(v["system_a"], v["system_b"], v["winner"]) for v in ranked]
    pending = [
        tuple(r["systems"][:2])
        for r in records
        if r.get("kind") == "chat_assignment" and len(r.get("systems", ())) == 2 and r.get("participant") not in voted
    ]
    pending += [(v["system_a"], v["system_b"]) for v in voted.values() if v not in ranked]
    return votes, pending


def choose_systems(
    systems: list[str], records: list[dict], *, arena: bool, rng: random.Random, mode: str = "balanced"
) -> list[str]:
    """Systems in chat order: two (A then B) in arena mode, otherwise one."""
    if arena:
        votes, pending = arena_history(records)
        return list(choose_pairs(systems, votes, 1, mode=mode, rng=rng, pending=pending)[0])
    met = Counter(
        s for r in records if r.get("kind") == "chat_assignment" and not r.get("preview") for s in r["systems"]
    )
    low = min(met.get(s, 0) for s in systems)
    return [rng.choice([s for s in systems if met.get(s, 0) == low])]
