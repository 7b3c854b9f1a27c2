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

from infact.results.judges.alignment_report import align_by_criterion, humans_of

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


def simulators_from_tables(study, records: list[dict], tables, include_flagged: bool = False) -> dict | None:
    """The comparison for a study's records and its tables with the simulated participants kept in
    (`StudyResults.with_simulated()`); None when it has no simulated participant (or no human one)."""
    simulated = simulated_participants(records)
    if not simulated:
        return None
    found = humans_of(tables, include_flagged)
    if found is None:
        return None
    kind, prepared = found
    return simulators_vs_humans(prepared, kind, simulated, scale_points=len(study.config.scale.labels))


def _f(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ci(value) -> str:
    return "" if not value else f" [{value[0]:.2f}, {value[1]:.2f}]"


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
