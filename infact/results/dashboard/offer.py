"""What the dashboard offers for a study: its sections, what each shows, which downloads.

A study's protocols decide what it collects — ratings (the rating protocol, and a live
chat's rubric), votes (pairwise and ACUTE-style), best–worst choices, conversation annotations,
live chats and their arena votes — and one study can mix them (`[flow]` blocks; the live demo
rates situations, then chats and votes). Each section shows a part per collected kind; a section
none of them fills is not offered, nor is a download whose table has no rows. No Streamlit here: pages/dashboard.py
lays these out, tests call them directly.
"""

from __future__ import annotations

RATINGS, VOTES, BEST_WORST, ANNOTATIONS = "ratings", "votes", "best_worst", "annotations"
CHATS, ARENA = "chats", "arena"
RANKED = (VOTES, BEST_WORST, ARENA)  # kinds that make a ranking of the systems
PER_SITUATION = (RATINGS, VOTES, BEST_WORST)  # kinds answered on situations (the Situations section)
ANALYSED = (RATINGS, ANNOTATIONS, *RANKED)  # kinds with statistics
BLOCK_KINDS = {
    "rating": RATINGS,
    "pairwise": VOTES,
    "pairwise_dialog": VOTES,
    "best_worst": BEST_WORST,
    "conversation": ANNOTATIONS,
}
RATING_FILES = ("ratings.csv", "ratings_wide.csv", "infact_sheets.xlsx")  # tables of ratings only


def collected(cfg) -> tuple[str, ...]:
    """The kinds of answer a study's protocols collect, in the order the study asks for them."""
    kinds: list[str] = []
    if cfg.study.situations_per_participant > 0:  # every protocol block of [flow] (one without it)
        kinds += [BLOCK_KINDS[b] for b in cfg.blocks if BLOCK_KINDS[b] not in kinds]
    if cfg.live.enabled:
        if cfg.live.rubric and RATINGS not in kinds:
            kinds.append(RATINGS)  # the rubric after each chat goes to ratings.csv (docs/live.md)
        kinds.append(CHATS)
        if cfg.live.arena:
            kinds.append(ARENA)
    return tuple(kinds)


def sections(cfg, *, has_judges: bool = False) -> list[str]:
    """The dashboard's sections for this study, in their order."""
    kinds = collected(cfg)
    out = ["Progress", "Participants"]
    if cfg.platform.kind == "prolific":
        out.append("Prolific")
    if kinds:
        out.append("Results")
    if any(k in kinds for k in PER_SITUATION):
        out.append("Situations")
    if any(k in kinds for k in ANALYSED):
        out.append("Statistics")
    if cfg.questionnaire.comment.enabled:
        out.append("Comments")
    out.append("Exports")
    if CHATS in kinds:
        out.append("Live chats")
    if any(k in kinds for k in RANKED):
        out.append("Ranking")
    if has_judges:
        out.append("Judges")
    return out


def _has_rows(name: str, content: bytes) -> bool:
    if name.endswith(".csv"):
        return len(content.strip().splitlines()) > 1  # more than the header
    if name.endswith((".json", ".jsonl")):
        return content.strip() not in (b"", b"[]", b"{}")
    return True


def offered_files(cfg, files: dict[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """(the downloads to offer, the names left out because they hold no rows yet).

    A study that collects no ratings offers no rating tables at all; any other table is
    offered once it has a row."""
    rates = RATINGS in collected(cfg)
    offered, empty = {}, []
    for name, content in files.items():
        if name in RATING_FILES and not rates:
            continue
        if name in RATING_FILES[2:] or _has_rows(name, content):
            offered[name] = content
        else:
            empty.append(name)
    return offered, empty
