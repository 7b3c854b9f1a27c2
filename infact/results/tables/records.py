"""Stored records → tidy pandas tables (docs/data-model.md).

Pure functions of the record list, used by the exports, the analysis, the quality
checks and the dashboard. Each step kind turns its own records into rows
(`StepKind.rows`, infact/participation/steps/); infact/results/kinds.py says which rows make which table. Previews
are always left out; withdrawn participants are left out unless `include_withdrawn`. A caller building several
tables groups the records once (`kept`) and passes the groups.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import pandas as pd

from infact.participation import steps
from infact.participation.steps.situation import RATINGS
from infact.results.tables.schemas import PARTICIPANTS

# The columns each builder makes, in file order: the declarations less what the export adds later
# (the quality decision, the funnel columns).
RATING_COLUMNS = [c for c in RATINGS.names if c not in ("excluded", "bot", "condition")]
PARTICIPANT_COLUMNS = [c for c in PARTICIPANTS.names[: PARTICIPANTS.names.index("flags")] if c != "condition"]


def by_participant(records: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        out[rec["participant"]].append(rec)
    return out


def _status(recs: list[dict]) -> str:
    kinds = {r["kind"]: r for r in recs}
    if "withdraw" in kinds:
        return "withdrawn"
    if "complete" in kinds:
        return "screened_out" if kinds["complete"].get("outcome") == "screened_out" else "completed"
    return "in_progress"


def kept(records: list[dict], include_withdrawn: bool, include_preview: bool = False) -> dict[str, list[dict]]:
    """participant -> their records, for the participants a table shows (no researcher events, no previews)."""
    groups = {}
    for p, recs in by_participant(records).items():
        if p.startswith("_"):
            continue  # researcher events
        if not include_preview and any(r.get("preview") for r in recs):
            continue
        if not include_withdrawn and _status(recs) == "withdrawn":
            continue
        groups[p] = recs
    return groups


def kind_rows(
    records: list[dict],
    kind: str,
    scale: Sequence[str] | None = None,
    *,
    include_withdrawn: bool = False,
    groups: Mapping[str, list[dict]] | None = None,
) -> list[dict]:
    """Rows of one step kind's table: the kind turns each of its records into rows (`groups`: the records
    already grouped by `kept`, so several tables group them once)."""
    step_kind = steps.get(kind)
    rows = []
    for p, recs in (groups or kept(records, include_withdrawn)).items():
        for r in recs:
            if r["kind"] == kind:
                rows.extend({"participant": p, **row} for row in step_kind.rows(r, scale))
    return rows


def ratings_table(
    records: list[dict], labels: list[str] | None = None, *, include_withdrawn: bool = False, groups=None
) -> pd.DataFrame:
    rows = kind_rows(records, "situation", labels, include_withdrawn=include_withdrawn, groups=groups)
    df = pd.DataFrame(rows, columns=RATING_COLUMNS)
    return df.sort_values(["participant", "step_index", "position", "criterion"], kind="stable").reset_index(drop=True)


def participants_table(
    records: list[dict], *, include_withdrawn: bool = True, include_preview: bool = False
) -> pd.DataFrame:
    rows = []
    for p, recs in kept(records, include_withdrawn, include_preview).items():
        kinds = defaultdict(list)
        for r in recs:
            kinds[r["kind"]].append(r)
        arrival = (kinds.get("arrival") or [{}])[0]
        complete = (kinds.get("complete") or [None])[0]
        per_situation = [r for k in steps.situation_kinds() for r in kinds.get(k, [])]
        check = [r for r in per_situation if r.get("attention_check")]
        quest = (kinds.get("questionnaire") or [None])[0]
        step_seconds = {
            r["kind"]: r.get("seconds") for r in recs if r["kind"] in ("consent", "questionnaire", "demographics")
        }
        rows.append(
            {
                "participant": p,
                "status": _status(recs),
                "platform": arrival.get("platform"),
                "platform_id": arrival.get("platform_id"),
                "group": arrival.get("group"),
                "completion_code": complete.get("completion_code") if complete else None,
                "started_at": arrival.get("at"),
                "ended_at": complete.get("ended_at") if complete else None,
                "total_seconds": complete.get("total_seconds") if complete else None,
                "consent_seconds": step_seconds.get("consent"),
                "questionnaire_seconds": step_seconds.get("questionnaire"),
                "demographics_seconds": step_seconds.get("demographics"),
                "situations_answered": len(per_situation),
                "attention_passed": (all(bool(r.get("attention_passed")) for r in check) if check else None),
                # a conversation study's gold conversation: what differed from the gold answers
                "gold_misses": "; ".join(m for r in check for m in r.get("gold_misses") or []) or None,
                "questionnaire_attention_passed": quest.get("attention_passed") if quest else None,
                "preview": bool(arrival.get("preview")),
                "bot": any(r.get("bot") for r in recs),
                # e.g. a Prolific ID that is not 24 hex characters: accepted, but worth a look
                "platform_warnings": "; ".join(arrival.get("platform_warnings") or []) or None,
            }
        )
    df = pd.DataFrame(rows, columns=PARTICIPANT_COLUMNS)
    return df.sort_values("started_at", kind="stable").reset_index(drop=True)


def steps_table(records: list[dict], *, include_withdrawn: bool = False) -> pd.DataFrame:
    """One row per participant × answered page (every kind that takes an answer), for speed checks (RSI)."""
    answered = steps.answer_kinds()
    rows = []
    for p, recs in kept(records, include_withdrawn).items():
        for r in recs:
            if r["kind"] in answered:
                rows.append(
                    {
                        "participant": p,
                        "step": r["step"],
                        "kind": r["kind"],
                        "seconds": r.get("seconds"),
                        "shown_at": r.get("shown_at"),
                        "answered_at": r.get("answered_at"),
                    }
                )
    return pd.DataFrame(rows, columns=["participant", "step", "kind", "seconds", "shown_at", "answered_at"])


def answers_table(
    records: list[dict], kind: str, scale: list[str] | None = None, *, include_withdrawn: bool = False, groups=None
) -> pd.DataFrame:
    """Questionnaire or demographics answers, long: participant, item, answer (+ value)."""
    cols = ["participant", "item", "value", "answer"] if scale is not None else ["participant", "item", "answer"]
    rows = kind_rows(records, kind, scale, include_withdrawn=include_withdrawn, groups=groups)
    return pd.DataFrame(rows, columns=cols)


def events(records: list[dict]) -> list[dict]:
    return sorted((r for r in records if r["kind"] == "event"), key=lambda r: r["at"])


def funnel(records: list[dict], n_situations: int) -> pd.DataFrame:
    """How far participants got: arrived, consented, each situation, questionnaire, completed."""
    stages = (
        ["arrived", "consented"]
        + [f"situation {i}" for i in range(1, n_situations + 1)]
        + ["questionnaire", "completed"]
    )
    counts = dict.fromkeys(stages, 0)
    for _p, recs in kept(records, include_withdrawn=True).items():
        kinds = {r["kind"] for r in recs}
        n_sit = sum(1 for r in recs if r["kind"] in steps.situation_kinds())
        counts["arrived"] += 1
        counts["consented"] += "consent" in kinds
        for i in range(1, min(n_sit, n_situations) + 1):
            counts[f"situation {i}"] += 1
        counts["questionnaire"] += "questionnaire" in kinds
        counts["completed"] += "complete" in kinds and _status(recs) == "completed"
    return pd.DataFrame({"stage": stages, "participants": [counts[s] for s in stages]})
