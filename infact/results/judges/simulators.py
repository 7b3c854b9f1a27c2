"""Simulated participants (`bots --strategy llm`) checked against the people on the same items (docs/llm.md).

A study that holds both human and simulated participants is analysed on its humans only
(infact/results/export.py leaves the simulated out). Here the simulated participants'
answers are read as one more judge — their mean per item, a situation × system for ratings, a
situation × pair for votes — and put through the judge alignment (alignment.align): item-level
Spearman and system-level Kendall τ with their participant-bootstrap intervals (the humans are
resampled; the simulated mean is held fixed), and the split-half human ceiling (how well one half
of the humans agrees with the other). SimulatorArena (EMNLP 2025) reports simulated-user ratings at
Spearman ≈ 0.7 with humans for its best simulators: the report gives that figure as context, not as
a pass mark.
"""

from __future__ import annotations

import pandas as pd

from infact.results.judges.alignment_report import align_by_criterion

SIMULATOR_ARENA_SPEARMAN = 0.7  # SimulatorArena (EMNLP 2025): simulated-user ratings vs humans


def simulated_participants(records: list[dict]) -> set[str]:
    previews = {r["participant"] for r in records if r.get("preview")}
    return {r["participant"] for r in records if r.get("kind") == "simulated"} - previews


def simulators_vs_humans(prepared: pd.DataFrame, kind: str, simulated: set[str], **kw) -> dict | None:
    """{criterion: alignment} of the simulated participants' mean answer against the humans' answers
    (prepared as alignment_report.humans_of prepares them, both groups together); None without both groups."""
    is_sim = prepared["participant"].astype(str).isin(simulated)
    humans, sims = prepared[~is_sim], prepared[is_sim]
    if humans.empty or sims.empty:
        return None
    if kind == "ratings":
        judge, judge_kind = sims.rename(columns={"rating": "score"}), "scores"
    else:
        judge, judge_kind = sims, "pairwise"
    out = align_by_criterion(humans, kind, judge, judge_kind, **kw)
    for a in out.values():
        a["n_simulated"] = int(sims["participant"].nunique())
    return out


def _tables_to_compare(study, tables, include_flagged: bool) -> list[tuple[str, str, pd.DataFrame, int | None]]:
    """[(table, 'pairwise' | 'ratings', answers prepared for alignment.align, scale points)] of every protocol's
    table the study has rows in: votes (pairwise, ACUTE dialog-level), best–worst choices (as the pairs they
    imply: best over each other, each other over worst), conversation annotations (per aspect, an item is a
    conversation's turn or the whole dialogue, the value shifted onto 1..k) and ratings."""
    from infact.results.ratings.analysis import prepare_ratings
    from infact.results.tables.comparisons import best_worst_as_pairwise, prepare_best_worst, prepare_pairwise

    compare = getattr(tables, "compare", {}) or {}
    out = []
    votes = compare.get("pairwise.csv")
    if votes is not None and len(votes):
        out.append(("pairwise", "pairwise", prepare_pairwise(votes, include_flagged=include_flagged), None))
    choices = compare.get("best_worst.csv")
    if choices is not None and len(choices):
        pairs = best_worst_as_pairwise(prepare_best_worst(choices, include_flagged=include_flagged))
        out.append(("best_worst", "pairwise", pairs, None))
    notes = compare.get("annotations.csv")
    if notes is not None and len(notes):
        out += _annotations(study, notes, include_flagged)
    if len(tables.ratings):
        out.append(("ratings", "ratings", prepare_ratings(tables.ratings, include_flagged)[0], None))
    return out


def _annotations(study, notes: pd.DataFrame, include_flagged: bool) -> list[tuple[str, str, pd.DataFrame, int]]:
    """One ratings-shaped table per aspect: situation_id = conversation#turn (or #dialogue), rating on 1..k."""
    from infact.values import bool_column

    df = notes[~bool_column(notes["is_gold"])] if "is_gold" in notes.columns else notes
    if "excluded" in df.columns and not include_flagged:
        df = df[~bool_column(df["excluded"])]
    out = []
    for aspect in study.config.aspects:
        rows = df[df["aspect"].astype(str) == aspect.id]
        if not len(rows):
            continue
        turn = rows["turn"].map(lambda t: "dialogue" if pd.isna(t) else str(int(t)))
        prepared = pd.DataFrame(
            {
                "participant": rows["participant"].astype(str),
                "situation_id": rows["conversation_id"].astype(str) + "#" + turn,
                "system": rows["system"].astype(str),
                "criterion": aspect.id,
                "rating": pd.to_numeric(rows["value"]) + 1 - aspect.first,
            }
        )
        out.append(("annotations", "ratings", prepared, len(aspect.labels)))
    return out


def simulators_from_tables(study, records: list[dict], tables, include_flagged: bool = False) -> dict | None:
    """The comparison for a study's records and its tables with the simulated participants kept in
    (`StudyResults.with_simulated()`), for every protocol's table it has; None when it has no simulated
    participant (or no human one). Keys are criteria, prefixed with the table when the study has several."""
    simulated = simulated_participants(records)
    if not simulated:
        return None
    found = _tables_to_compare(study, tables, include_flagged)
    out: dict = {}
    default_points = len(study.config.scale.labels)
    for table, kind, prepared, points in found:
        got = simulators_vs_humans(prepared, kind, simulated, scale_points=points or default_points)
        for criterion, a in (got or {}).items():
            a["table"] = table
            out[criterion if len({f[0] for f in found}) == 1 else f"{table} · {criterion}"] = a
    if not out:
        return None
    stand_ins = fallbacks_of(records, simulated)
    for a in out.values():
        a["fallbacks"] = stand_ins
    return out


def fallbacks_of(records: list[dict], simulated: set[str]) -> dict:
    """{answers, fallbacks}: how many of the simulated participants' page answers (and live rubric answers) were
    stand-ins because the LLM gave no label even when asked again (records' `fallback`)."""
    pages = [r for r in records if r.get("participant") in simulated and ("llm" in r or "fallback" in r)]
    return {"pages": len(pages), "fallbacks": sum(len(r.get("fallback") or ()) for r in pages)}


def _f(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ci(value) -> str:
    return "" if not value else f" [{value[0]:.2f}, {value[1]:.2f}]"


def _fallback_lines(result: dict) -> list[str]:
    counts = next(iter(result.values()), {}).get("fallbacks")
    if not counts or not counts.get("fallbacks"):
        return []
    return [
        f"**{counts['fallbacks']} simulated answers were stand-ins** (not a label even when asked again; marked "
        f"`fallback` in their records, over {counts['pages']} answered pages): they count in the figures below "
        "as the stand-in (the middle of the scale, a tie, or A).",
        "",
    ]


def render_markdown(result: dict) -> str:
    """result = {criterion: alignment} from simulators_vs_humans."""
    lines = [
        "## Simulated participants vs humans on the same items",
        "",
        "The simulated participants' mean answer per item read as a judge (docs/llm.md): item-level Spearman and "
        "system-level Kendall τ with 95% intervals (humans resampled), beside the humans' split-half Spearman "
        f"(the ceiling: how well half the people agree with the other half). Context: SimulatorArena (EMNLP 2025) "
        f"reports simulated-user ratings at Spearman ≈ {SIMULATOR_ARENA_SPEARMAN} with humans.",
        "",
        *_fallback_lines(result),
        "| criterion | items | simulated | humans | ρ items [95% CI] | τ systems [95% CI] | human split-half ρ | "
        "simulated–half ρ | as good as half the humans |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for criterion, a in result.items():
        ceiling, sim_half = a["spearman_split_half"], a["spearman_judge_vs_half"]
        good = "–" if ceiling is None or sim_half is None else "yes" if sim_half >= ceiling else "no"
        lines.append(
            f"| {criterion} | {a['n_items']} | {a['n_simulated']} | {a['n_participants']} | "
            f"{_f(a['spearman_items'])}{_ci(a['spearman_items_ci95'])} | "
            f"{_f(a['kendall_tau_systems'])}{_ci(a['kendall_tau_systems_ci95'])} | {_f(ceiling)} | "
            f"{_f(sim_half)} | {good} |"
        )
    return "\n".join(lines) + "\n"
