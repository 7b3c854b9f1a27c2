"""The study-level export tables, declared once (the step kinds declare their own: `StepKind.schema`).

`all_schemas()` is every exported CSV's declaration — these plus every registered kind's — which the
export (file order, types, datapackage.json), `analyze` (reading back) and docs/data-model.md use.
"""

from __future__ import annotations

from infact.participation import steps
from infact.results.crowd.schemas import RELIABILITY_COLUMNS, SOFT_LABELS
from infact.study.settings_doc import Block
from infact.table_schema import Column as C
from infact.table_schema import TableSchema

PARTICIPANTS = TableSchema(
    "participants",
    "One row per participant: status, platform, completion code, timings, quality decision and "
    "where they are in the funnel. With `delete_on_withdraw`, someone who withdrew keeps a row with only their "
    "token, status `withdrawn` and `data_deleted`.",
    (
        C("participant", "string", "random participant token", True),
        C("status", "string", "`in_progress`, `completed`, `screened_out` or `withdrawn`", True),
        C("platform", "string", "`prolific`, `mturk` or `none`"),
        C("platform_id", "string", "the platform's worker id (PROLIFIC_PID, workerId), if any"),
        C("group", "string", "the group/condition from the study link"),
        C("completion_code", "string", "the code shown at the end (Prolific: the study's code)"),
        C("started_at", "datetime", "arrival (consent) time, UTC"),
        C("ended_at", "datetime", "completion time, UTC"),
        C("total_seconds", "number", "seconds from arrival to completion"),
        C("consent_seconds", "number", "seconds on the consent page"),
        C("questionnaire_seconds", "number", "seconds on the questionnaire"),
        C("demographics_seconds", "number", "seconds on the demographics page"),
        C("situations_answered", "integer", "situations (or comparisons, conversations) answered"),
        C("attention_passed", "boolean", "the attention check (or gold conversation) was passed; empty before it"),
        C("gold_misses", "string", "a conversation study's gold: which answers differed from the gold ones"),
        C("questionnaire_attention_passed", "boolean", "the questionnaire's instructed item was answered as asked"),
        C("preview", "boolean", "a researcher's walk-through (never counted)"),
        C(
            "platform_warnings",
            "string",
            "unusual but accepted link values, e.g. a Prolific ID that is not 24 hex digits",
        ),
        C("flags", "string", "quality flags raised, `; `-joined (docs/quality.md)"),
        C("reasons", "string", "why, one reason per flag"),
        C("decision", "string", "`include` or `exclude` (manual decisions override)"),
        C("prolific_action", "string", "what to do on Prolific: approve, reject, ask to return"),
        C("excluded", "boolean", "true when the analysis leaves the participant out", True),
        C("data_deleted", "boolean", "withdrew and asked for deletion: no answer of theirs is in any file"),
        C("stage", "string", "funnel stage now: consented, in progress, stalled, completed, withdrawn, …"),
        C("consented", "boolean", "gave consent"),
        C("active_now", "boolean", "did something in the last few minutes"),
        C("last_activity", "datetime", "time of their last stored record, UTC"),
        C("current_step", "string", "the page they are on (empty when finished)"),
        *RELIABILITY_COLUMNS,
    ),
)

VISITS = TableSchema(
    "visits",
    "One row per visit to the study page, consented or not (no personal data). The funnel's Visited = "
    "rows of participants.csv + rows here with an empty `became`.",
    (
        C("visit", "string", "hashed visit id (a browser for a day, or one platform session)", True),
        C("first_seen", "datetime", "first time the visit was seen, UTC"),
        C("became", "string", "participant token(s) it became by consenting, `; `-joined; empty if it left before"),
    ),
)

FLAGS = TableSchema(
    "flags",
    "Quality checks: one row per participant with their flags, reasons, decision and Prolific action.",
    (
        C("participant", "string", "random participant token", True),
        C("status", "string", "the participant's status"),
        C("flags", "string", "flags raised, `; `-joined"),
        C("reasons", "string", "why, `; `-joined"),
        C("rsi", "number", "relative speed index (median page time / theirs; 2 = twice as fast as typical)"),
        C("failed_checks", "integer", "attention checks failed"),
        C("decision", "string", "`include` or `exclude`"),
        C("manual_note", "string", "the researcher's note on a manual decision"),
        C("prolific_action", "string", "what to do on Prolific"),
        C("prolific_reason", "string", "why that action (Prolific's rules on rejection)"),
    ),
)

RATINGS_WIDE = TableSchema(
    "ratings_wide",
    "One row per participant × situation, one column per system with its rating (first criterion).",
    (
        C("participant", "string", "random participant token", True),
        C("step_index", "integer", "1-based number of the situation in the participant's run"),
        C("situation_id", "string", "the situation", True),
        C("dialog_id", "string", "the source dialog"),
    ),
    extra_columns="one column per system: the rating it got in that situation",
)

STUDY_TABLES = (PARTICIPANTS, VISITS, FLAGS, RATINGS_WIDE, SOFT_LABELS)


def all_schemas() -> dict[str, TableSchema]:
    """file name -> schema of every table an export can hold (a new step kind's table included)."""
    out = {s.file: s for s in STUDY_TABLES}
    for kind in steps.kinds():
        if kind.schema is not None:
            out.setdefault(kind.schema.file, kind.schema)
    return out


def schema_for(file: str) -> TableSchema | None:
    return all_schemas().get(file)


def data_model_markdown() -> str:
    """docs/data-model.md's generated column tables, one per exported CSV (kinds first, in flow order)."""
    kinds = [k.schema for k in steps.kinds() if k.schema is not None]
    seen, parts = set(), []
    for schema in [*kinds, *STUDY_TABLES]:
        if schema.file not in seen:
            seen.add(schema.file)
            parts.append(schema.markdown())
    return "\n".join(parts)


# The column tables in docs/data-model.md (`infact settings-doc --write` rewrites them; a test checks they are current).
DATA_MODEL_BLOCK = Block("table-columns", "docs/data-model.md", data_model_markdown)
