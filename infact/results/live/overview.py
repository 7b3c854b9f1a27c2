"""The live chats of a study's export: per-system chat statistics and the blind arena ranking
(`analyze --study` on a live study; `analyze transcripts.jsonl` is `infact.results.analyze.analyze_file`)."""

from __future__ import annotations

from infact.results.live.analysis import live_summary
from infact.stats import N_BOOT


def live_overview(t) -> dict:
    """Per-system chat statistics and the blind arena ranking of an export's `Tables`."""
    summary = live_summary(t.transcripts)
    from infact.results.ranking.ledger import design_of_tables

    summary["arena"] = arena_ranking(t.votes, design_of_tables(t))
    return summary


def arena_ranking(votes, openings: dict[str, str] | None = None, design: dict | None = None) -> dict:
    """The ranking of the arena votes (issue 13's analysis). Votes where a system named itself
    (not blind) or failed and was skipped (not about quality) are left out and counted. `openings`
    (conversation id → first message, integrity.openings_from_records) caps repeated openings; `design`: the
    ledger's study systems and scheduling (design_of_tables)."""
    from infact.errors import InfactError
    from infact.results.ranking.analysis import analyze_votes

    leaked = votes["identity_leak"].astype(bool)
    skipped = votes["system_skipped"].astype(bool)
    kept = votes[~(leaked | skipped)]
    counts = {
        "ranked_votes": int(len(kept)),
        "identity_leak_votes_left_out": int(leaked.sum()),
        "skipped_system_votes_left_out": int((skipped & ~leaked).sum()),
    }
    try:
        found = analyze_votes(kept, n_boot=N_BOOT, seed=0, source="arena votes", openings=openings, design=design)
        return {**counts, **found}
    except InfactError as exc:  # too few votes, or systems not yet connected by any vote
        return {**counts, "problem": "; ".join(p.message for p in exc.problems)}
