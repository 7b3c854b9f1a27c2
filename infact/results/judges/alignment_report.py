"""Judge alignment per criterion, from files or a store, as data and as Markdown (alignment.py computes).

Every report says how many of the judge's answers were usable (one label, no failed call), per judge
and criterion, read from `judges/NAME.raw.jsonl` beside the CSV: the figures rest on those only. Below
`COVERAGE_WARN` of them the report warns; with none, `unusable_judges` names the judge and the command
fails rather than print an empty table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from infact.results.judges.agreement import judge_files, read_judge
from infact.results.judges.alignment import RULE, align

COVERAGE_WARN = 0.8  # usable share below which the report warns


def judge_coverage(judge_csv: str | Path) -> dict:
    """{usable, total, by_criterion: {criterion: {usable, total}}} of a judge's answers.

    `total` counts the items asked (judges/NAME.raw.jsonl, the last record of each key); without that
    file (a CSV made elsewhere) every CSV row is an answer and `total` is None."""
    judge_csv = Path(judge_csv)
    raw = judge_csv.with_name(judge_csv.stem + ".raw.jsonl")
    if not raw.is_file():
        try:
            n = len(pd.read_csv(judge_csv))
        except (OSError, ValueError):
            n = 0
        return {"usable": n, "total": None, "by_criterion": {}}
    last: dict[str, dict] = {}
    for line in raw.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # a line cut by a kill: the checkpoint ignores it too
            continue
        if isinstance(record, dict) and "key" in record:
            last[record["key"]] = record
    by: dict[str, dict] = {}
    for record in last.values():
        counts = by.setdefault(str(record.get("criterion")), {"usable": 0, "total": 0})
        counts["total"] += 1
        counts["usable"] += int(record.get("label") is not None and not record.get("error"))
    return {
        "usable": sum(c["usable"] for c in by.values()),
        "total": sum(c["total"] for c in by.values()),
        "by_criterion": dict(sorted(by.items())),
    }


def unusable_judges(coverage: dict) -> list[str]:
    """The judges (of {judge: judge_coverage}) none of whose answers is usable."""
    return [name for name, c in coverage.items() if not c.get("usable")]


def coverage_lines(coverage: dict) -> list[str]:
    """Markdown lines: usable/total per judge, a warning below COVERAGE_WARN."""
    lines = []
    for name, c in coverage.items():
        usable, total = c["usable"], c["total"]
        if total is None:
            lines.append(f"- {name}: {usable} answers (no raw file: how many items were asked is unknown)")
            continue
        share = usable / total if total else 0.0
        parts = ", ".join(f"{k} {v['usable']} of {v['total']}" for k, v in c["by_criterion"].items())
        lines.append(f"- {name}: {usable} of {total} answers usable ({share:.0%})" + (f": {parts}" if parts else ""))
        if usable == 0:
            lines.append(f"  - **Error: none of {name}'s answers is a label**: there is nothing to compare.")
        elif share < COVERAGE_WARN:
            lines.append(
                f"  - **Warning: only {share:.0%} of {name}'s answers are usable**; the figures below rest on "
                "those alone (see the raw outputs, or constrain the answers: docs/llm.md)."
            )
    return lines


def situation_features(situations) -> pd.DataFrame:
    """situation_id, turn_position (early/middle/late by relative position in the dialog), item_mentioned."""
    rows = []
    for s in situations:
        rel = s.meta.get("relative_position")
        position = None if rel is None else ("early" if rel < 1 / 3 else "middle" if rel < 2 / 3 else "late")
        mentioned = s.meta.get("item_mentioned")
        rows.append(
            {
                "situation_id": s.situation_id,
                "turn_position": position,
                "item_mentioned": None if mentioned is None else bool(mentioned),
            }
        )
    return pd.DataFrame(rows, columns=["situation_id", "turn_position", "item_mentioned"])


def situation_features_from_path(path: str | Path) -> pd.DataFrame | None:
    """situation_features of a study folder's situations or of one situations .jsonl file (None if unreadable)."""
    from infact.errors import InfactError
    from infact.study.situations import load_situations

    path = Path(path)
    try:
        if path.is_dir():
            from infact.study.loader import load_study

            return situation_features(load_study(path).situations)
        return situation_features(load_situations([path]))
    except (InfactError, OSError):
        return None


def align_by_criterion(humans: pd.DataFrame, kind: str, judge: pd.DataFrame, judge_kind: str, **kw) -> dict:
    """{criterion: align(...)}; humans and judge already prepared (as agreement.compare takes them)."""
    if "criterion" not in humans.columns or "criterion" not in judge.columns:
        return {"all": align(humans, kind, judge, judge_kind, **kw)}
    out = {}
    for criterion in sorted(set(humans["criterion"].astype(str)) & set(judge["criterion"].astype(str))):
        out[criterion] = align(
            humans[humans["criterion"].astype(str) == criterion],
            kind,
            judge[judge["criterion"].astype(str) == criterion],
            judge_kind,
            **kw,
        )
    return out


def align_files(
    humans: pd.DataFrame, kind: str, named: list[tuple[str, Path]], criterion: str | None = None, **kw
) -> dict:
    """{judge name: {criterion: alignment}} for judge files (name, path)."""
    return {
        name: align_by_criterion(humans, kind, judge, judge_kind, **kw)
        for name, _path, judge_kind, judge in judge_files(named, criterion)
    }


def humans_of(tables, include_flagged: bool = False) -> tuple[str, pd.DataFrame] | None:
    """('pairwise' | 'ratings', prepared human answers) from a study's tables, or None when there are none."""
    from infact.results.ratings.analysis import prepare_ratings
    from infact.results.tables.comparisons import prepare_pairwise

    votes = tables.compare.get("pairwise.csv") if hasattr(tables, "compare") else None
    if votes is not None and len(votes):
        return "pairwise", prepare_pairwise(votes, include_flagged=include_flagged)
    if len(tables.ratings):
        return "ratings", prepare_ratings(tables.ratings, include_flagged)[0]
    return None


def alignment_from_tables(study, tables, judge_csv: Path) -> dict:
    """A judge file against a study's human answers (its tables: `open_results(study, db).tables`)."""
    from infact.results.ranking.features import response_features

    found = humans_of(tables)
    if found is None:
        return {}
    kind, humans = found
    judge_kind, judge = read_judge(Path(judge_csv))
    return align_by_criterion(
        humans,
        kind,
        judge,
        judge_kind,
        features=response_features(study.situations),
        situation_features=situation_features(study.situations),
        scale_points=len(study.config.scale.labels),
    )


def _f(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ci(value) -> str:
    return "–" if not value else f"[{value[0]:.2f}, {value[1]:.2f}]"


def render_markdown(results: dict, coverage: dict | None = None) -> str:
    """results = {judge: {criterion: alignment}}; coverage = {judge: judge_coverage(...)}."""
    lines = ["## Judge alignment", "", f"Rule: {RULE}.", ""]
    if coverage:
        lines += ["Usable judge answers:", "", *coverage_lines(coverage), ""]
    lines += [
        "| judge | criterion | items | ρ items [95% CI] | r | τ systems [95% CI] | κ_w | split-half ρ | "
        "judge–half ρ | position consistency | length bias | stand-in |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for judge, criteria in results.items():
        for criterion, a in criteria.items():
            lines.append(
                f"| {judge} | {criterion} | {a['n_items']} | {_f(a['spearman_items'])} "
                f"{_ci(a['spearman_items_ci95'])} | {_f(a['pearson_items'])} | "
                f"{_f(a['kendall_tau_systems'])} {_ci(a['kendall_tau_systems_ci95'])} | "
                f"{_f(a['weighted_kappa_majority'])} | {_f(a['spearman_split_half'])} | "
                f"{_f(a['spearman_judge_vs_half'])} | {_f(a['position_consistency'])} | "
                f"{_f(a['length_bias'])} | {'yes' if a['stand_in'] else 'no'} |"
            )
    for judge, criteria in results.items():
        for criterion, a in criteria.items():
            c = a["confusion"]
            lines += [
                "",
                f"Confusion of {judge} on {criterion} (rows: human majority, columns: judge):",
                "",
                "| human \\ judge | " + " | ".join(c["categories"]) + " |",
                "|---" * (len(c["categories"]) + 1) + "|",
            ]
            lines += [
                f"| {cat} | " + " | ".join(map(str, row)) + " |"
                for cat, row in zip(c["categories"], c["rows_human_columns_judge"])
            ]
            for feature, groups in a["by_feature"].items():
                parts = [
                    f"{g}: ρ {_f(v['spearman'])}, exact {_f(v['exact_agreement'])} (n={v['n_items']})"
                    for g, v in groups.items()
                ]
                if parts:
                    lines.append(f"\nBy {feature.replace('_', ' ')}: " + "; ".join(parts))
    return "\n".join(lines) + "\n"
