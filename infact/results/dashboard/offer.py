"""What the dashboard offers for a study: its sections, what each shows, which downloads.

A study's protocols decide what it collects — each [flow] block's kind of answer (infact/results/kinds.py:
ratings, votes, best–worst choices, conversation annotations, a new kind's table), a live chat's rubric
(ratings), live chats and their arena votes — and one study can mix them (the live demo rates situations,
then chats and votes). Each section shows a part per collected kind; a section none of them fills is not
offered, nor is a download whose table has no rows. No Streamlit here: pages/dashboard.py lays these out,
tests call them directly.
"""

from __future__ import annotations

from infact.results import kinds as answer_kinds

RATINGS, VOTES, BEST_WORST, ANNOTATIONS = "ratings", "votes", "best_worst", "annotations"
CHATS, ARENA = "chats", "arena"


def _collected_kinds(cfg) -> list[answer_kinds.KindResults]:
    """The kinds of answer the study's [flow] blocks ask for, in the study's order."""
    if cfg.study.situations_per_participant <= 0:  # every protocol block of [flow] (one without it)
        return []
    found = [answer_kinds.for_step(block) for block in cfg.blocks]
    return list({k.name: k for k in found if k is not None}.values())


def collected(cfg) -> tuple[str, ...]:
    """The kinds of answer a study's protocols collect, in the order the study asks for them."""
    out = [k.collected or k.name for k in _collected_kinds(cfg)]
    if cfg.live.enabled:
        if cfg.live.rubric and RATINGS not in out:
            out.append(RATINGS)  # the rubric after each chat goes to ratings.csv (docs/live.md)
        out.append(CHATS)
        if cfg.live.arena:
            out.append(ARENA)
    return tuple(out)


def sections(cfg, *, has_judges: bool = False) -> list[str]:
    """The dashboard's sections for this study, in their order."""
    kinds = collected(cfg)
    asked = _collected_kinds(cfg)
    ranked = any(k.ranks for k in asked) or ARENA in kinds
    analysed = any(k.analyze is not None for k in asked) or RATINGS in kinds or ARENA in kinds
    out = ["Progress", "Participants"]
    if cfg.platform.kind == "prolific":
        out.append("Prolific")
    if kinds:
        out.append("Results")
    if any(k.per_situation for k in asked) or RATINGS in kinds:
        out.append("Situations")
    if analysed:
        out.append("Statistics")
    if cfg.questionnaire.comment.enabled:
        out.append("Comments")
    out.append("Exports")
    if CHATS in kinds:
        out.append("Live chats")
    if ranked:
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

    A study that collects no ratings offers no rating tables at all (ratings.csv and its kind's extra
    files); any other table is offered once it has a row. The offered datapackage.json describes exactly
    the files offered."""
    ratings = answer_kinds.for_table("ratings")
    rating_files = (ratings.schema.file, *ratings.extra_names)
    rates = RATINGS in collected(cfg)
    offered, empty = {}, []
    for name, content in files.items():
        if name == "datapackage.json" or (name in rating_files and not rates):
            continue
        if name.endswith(".xlsx") or _has_rows(name, content):
            offered[name] = content
        else:
            empty.append(name)
    if "datapackage.json" in files:
        from infact.results.export import package_json

        offered["datapackage.json"] = package_json(offered, cfg.study.id)
    return offered, empty
