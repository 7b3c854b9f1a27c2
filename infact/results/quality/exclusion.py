"""Data quality: which participants to keep, why, and what to do on Prolific.

`assess` turns the ratings, participants and per-page timing tables into one
row per participant with short flags, human-readable reasons, a decision
(include / exclude) and a Prolific action. Nothing is deleted: a researcher's
manual exclusion or re-inclusion is an `event` record (`manual_event`) and the
last one per participant wins over the automatic decision.

Checks (thresholds in `[quality]` of study.toml, see docs/quality.md):
explicit instructed-response checks; speeders by relative speed index (Leiner
2019) and by total time; straight-lining (in ratings; in comparisons, always the same
side); implausibly fast situations; typed text pasted or typed implausibly fast (for review only: these
never exclude, and the participant's Prolific action is `review`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Literal

import pandas as pd

from infact.results.quality import flags
from infact.results.quality.flags import DONE, relative_speed_index  # relative_speed_index: re-exported
from infact.study.quality_config import QualityConfig

FLAGS = (
    "attention_failed",
    "questionnaire_attention_failed",
    "speeder_rsi",
    "speeder_total_time",
    "straightliner",
    "comparison_straightliner",
    "annotation_straightliner",
    "fast_situations",
    "withdrawn",
    "incomplete",
    "pasted_text",
    "typed_too_fast",
    "manually_excluded",
)
RESEARCHER = "_researcher"


# ---------------------------------------------------------------- events


def manual_event(
    participant: str,
    action: Literal["exclude", "include"],
    note: str,
    researcher: str = "researcher",
    *,
    study: str,
    dataset_version: str | None = None,
    at: str | None = None,
) -> dict:
    """A researcher's exclude/include decision as an append-only `event` record."""
    if action not in ("exclude", "include"):
        raise ValueError(f"action must be 'exclude' or 'include', not {action!r}")
    if not participant or participant == RESEARCHER:
        raise ValueError(f"cannot {action} participant {participant!r}")
    if not note or not note.strip():
        raise ValueError("a manual decision needs a note saying why (it is shown in the quality report)")
    return {
        "key": f"{study}/{RESEARCHER}/event/{uuid.uuid4().hex}",
        "study": study,
        "dataset_version": dataset_version,
        "participant": RESEARCHER,
        "kind": "event",
        "at": at or datetime.now(UTC).isoformat(),
        "preview": False,
        "action": action,
        "target": participant,
        "note": note.strip(),
        "researcher": researcher,
    }


def last_decisions(events: Iterable[Mapping]) -> dict[str, Mapping]:
    """The last exclude/include event per participant (by `at`, then by order)."""
    valid = [
        e
        for e in events
        if e.get("kind") == "event"
        and e.get("action") in ("exclude", "include")
        and e.get("target") not in (None, "")
        and not e.get("preview")
    ]
    out: dict[str, Mapping] = {}
    for e in sorted(valid, key=lambda e: str(e.get("at") or "")):  # stable: ties keep order
        out[e["target"]] = e
    return out


# ---------------------------------------------------------------- tables from records


def steps_table(records: Iterable[Mapping]) -> pd.DataFrame:
    """participant, step, seconds: one row per answered page, for the RSI."""
    rows = [
        {"participant": r["participant"], "step": r["step"], "seconds": r["seconds"]}
        for r in records
        if r.get("step") and r.get("seconds") is not None and r.get("kind") != "shown" and not r.get("preview")
    ]
    return pd.DataFrame(rows, columns=["participant", "step", "seconds"])


def steps_from_tables(ratings: pd.DataFrame, participants: pd.DataFrame) -> pd.DataFrame:
    """Page times rebuilt from ratings.csv and participants.csv when records are not at hand."""
    rows = []
    if len(ratings):
        sit = ratings.groupby(["participant", "step_index"], as_index=False)["seconds"].first()
        rows += [
            {"participant": r.participant, "step": f"situation-{int(r.step_index)}", "seconds": r.seconds}
            for r in sit.itertuples()
        ]
    for col, step in (("consent_seconds", "consent"), ("questionnaire_seconds", "questionnaire")):
        if col in participants:
            rows += [
                {"participant": p, "step": step, "seconds": s}
                for p, s in zip(participants["participant"], participants[col])
                if pd.notna(s)
            ]
    return pd.DataFrame(rows, columns=["participant", "step", "seconds"])


# ---------------------------------------------------------------- assessment


def evidence(
    ratings: pd.DataFrame,
    participants: pd.DataFrame,
    steps: pd.DataFrame,
    cfg: QualityConfig,
    situations: pd.DataFrame | None = None,
    compare: Mapping[str, pd.DataFrame] | None = None,
    typed: pd.DataFrame | None = None,
) -> flags.Evidence:
    """What the checks look at. `situations` (one row per rated or compared situation) is built
    from `ratings` and `compare` (pairwise.csv / best_worst.csv) unless given (the live
    dashboard builds it record by record)."""
    p = flags.prepared_participants(participants)
    if situations is None:
        r = ratings[ratings["participant"].isin(p.index)] if len(ratings) else ratings
        parts = [flags.situations_from_ratings(r) if len(r) else pd.DataFrame(columns=flags.SITUATION_COLUMNS)]
        if compare:
            parts.append(flags.situations_from_comparisons(compare))
        parts = [x for x in parts if len(x)]
        situations = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=flags.SITUATION_COLUMNS)
    done = p[p["status"].isin(DONE)]
    rsi = relative_speed_index(steps, done.index) if len(steps) else {}
    completed = p.loc[p["status"] == "completed", "total_seconds"]
    median_total = completed.median() if len(completed) else float("nan")
    return flags.Evidence(p, situations, rsi, median_total, cfg, typed)


def study_minutes(ev: flags.Evidence, expected_minutes: float | None) -> float | None:
    """The advertised duration, else the median completion time (None: unknown)."""
    if expected_minutes is not None:
        return float(expected_minutes)
    return ev.median_total / 60 if pd.notna(ev.median_total) else None


def assess(
    ratings: pd.DataFrame,
    participants: pd.DataFrame,
    steps: pd.DataFrame,
    events: Iterable[Mapping],
    cfg: QualityConfig,
    expected_minutes: float | None = None,
    *,
    situations: pd.DataFrame | None = None,
    compare: Mapping[str, pd.DataFrame] | None = None,
    typed: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per (non-preview) participant with flags, reasons, decision and Prolific action.

    Each flag is one function of `infact.results.quality.flags.CHECKS`. `expected_minutes` is the
    study's advertised duration (Prolific's estimated completion time); without it the
    median completion time decides whether Prolific's two-check rule applies. `typed`: the typed answers'
    counts (infact/results/quality/typed.py), whose flags are for review only: they never exclude.
    """
    ev = evidence(ratings, participants, steps, cfg, situations, compare, typed)
    minutes = study_minutes(ev, expected_minutes)
    # Unknown length: assume the stricter rule (two failures), never the laxer one.
    required_fails = 1 if minutes is not None and minutes < cfg.min_study_minutes_for_rejection else 2
    # Each participant's (check, reason) pairs in CHECKS order, gathered from the hits (few) rather than by asking
    # every check about every participant: at 2,000 participants that loop was a fifth of a live refresh.
    flagged: dict = {}
    for name, check in flags.CHECKS:
        for pid, reason in check(ev).items():
            flagged.setdefault(pid, []).append((name, reason))
    manual = last_decisions(events)
    rows = []
    for pid, status in ev.participants["status"].items():
        mine = flagged.get(pid, ())
        row = {
            "participant": pid,
            "status": status,
            "flags": [n for n, _ in mine],
            "reasons": [r for _, r in mine],
            "rsi": ev.rsi.get(pid, float("nan")),
            "failed_checks": sum(1 for n, _ in mine if n in flags.EXPLICIT_CHECKS),
            "decision": "exclude" if any(n not in flags.REVIEW_ONLY for n, _ in mine) else "include",
            "manual_note": None,
        }
        decided = manual.get(pid)
        _apply_manual(row, decided)
        row["prolific_action"], row["prolific_reason"] = _prolific_action(
            status, row["decision"], row["failed_checks"], required_fails, minutes, cfg
        )
        if row["decision"] == "include" and row["prolific_action"] == "approve" and decided is None and mine:
            row["prolific_action"], row["prolific_reason"] = "review", REVIEW_REASON
        rows.append(row)
    return pd.DataFrame(rows, columns=REPORT_COLUMNS)


REVIEW_REASON = (
    "typed text flagged for review: read it, then include (approve) or exclude the participant; "
    "never rejected on this alone"
)
REPORT_COLUMNS = [
    "participant",
    "status",
    "flags",
    "reasons",
    "rsi",
    "failed_checks",
    "decision",
    "manual_note",
    "prolific_action",
    "prolific_reason",
]


def _apply_manual(row: dict, event: Mapping | None) -> None:
    """The researcher's last decision wins over the automatic one, with its note as reason."""
    if event is None:
        return
    note = row["manual_note"] = event.get("note")
    who = event.get("researcher") or "researcher"
    if event["action"] == "exclude":
        row["decision"] = "exclude"
        row["flags"].append("manually_excluded")
        row["reasons"].append(f"excluded by {who}: {note}")
    else:
        over = " (overrides the automatic flags)" if row["flags"] else ""
        row["decision"] = "include"
        row["reasons"].append(f"included by {who}{over}: {note}")


def _prolific_action(status, decision, n_failed, required, study_minutes, cfg) -> tuple[str | None, str | None]:
    # Prolific: studies of 5+ minutes need two failed fair checks before a rejection,
    # shorter ones one. Implicit checks never make a rejection recommendation (docs/quality.md).
    if status not in DONE:
        return None, None  # nothing submitted (in progress) or returned by the participant
    if decision == "include":
        return "approve", None
    length = "unknown length" if study_minutes is None else f"{study_minutes:.0f}-minute study"
    if n_failed >= required:
        return "eligible_for_rejection", (
            f"failed {n_failed} explicit attention check(s) in a {length}; Prolific allows rejection "
            f"after {required} (ask the participant to return the submission first)"
        )
    return cfg.prolific_excluded_action, (
        f"excluded, but {n_failed} failed explicit check(s) in a {length} is fewer than the "
        f"{required} Prolific requires for a rejection"
    )


def assess_store(
    tables: Mapping[str, pd.DataFrame],
    events: Iterable[Mapping],
    cfg: QualityConfig,
    expected_minutes: float | None = None,
) -> pd.DataFrame:
    """`assess` on export tables: `ratings`, `participants`, and `steps`, `pairwise`,
    `best_worst` if available."""
    ratings = tables.get("ratings", pd.DataFrame())
    participants = tables["participants"]
    steps = tables.get("steps")
    if steps is None:
        steps = steps_from_tables(ratings, participants)
    compare = {k: v for k, v in tables.items() if k.removesuffix(".csv") in (*flags.COMPARISON_KINDS, "annotations")}
    return assess(ratings, participants, steps, events, cfg, expected_minutes, compare=compare)


def for_csv(report: pd.DataFrame) -> pd.DataFrame:
    """The report with list columns joined by '; ' (CSV cells cannot hold lists)."""
    out = report.copy()
    for col in ("flags", "reasons"):
        out[col] = out[col].map("; ".join)
    return out
