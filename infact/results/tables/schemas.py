"""The study-level export tables, declared once (the step kinds declare their own: `StepKind.schema`).

`kinds.all_schemas()` (infact/results/kinds.py) is every exported CSV's declaration — every kind's and
these — which the export (its columns exactly, types, datapackage.json), `analyze` (reading back) and
docs/data-model.md use.
"""

from __future__ import annotations

from infact.results.tables.crowd_schemas import RELIABILITY_COLUMNS, SOFT_LABELS
from infact.table_schema import BOT, PARTICIPANT, TableSchema
from infact.table_schema import Column as C

PARTICIPANTS = TableSchema(
    "participants",
    "One row per participant: status, platform, completion code, timings, quality decision and "
    "where they are in the funnel. With `delete_on_withdraw`, someone who withdrew keeps a row with only their "
    "token, status `withdrawn` and `data_deleted`.",
    (
        PARTICIPANT,
        C("status", "string", "`in_progress`, `completed`, `screened_out` or `withdrawn`", True),
        C("platform", "string", "`prolific`, `mturk` or `none`"),
        C("platform_id", "string", "the platform's worker id (PROLIFIC_PID, workerId), if any"),
        C("group", "string", "the group from the study link (in a between-subjects study it forces the `condition`)"),
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
        BOT,
        C(
            "platform_warnings",
            "string",
            "unusual but accepted link values, e.g. a Prolific ID that is not 24 hex digits",
        ),
        C("flags", "string", "quality flags raised, `; `-joined (docs/quality.md)"),
        C("reasons", "string", "why, one reason per flag"),
        C("decision", "string", "`include` or `exclude` (manual decisions override)"),
        C(
            "prolific_action",
            "string",
            "what to do on Prolific: approve, reject, ask to return, or review (typed text flagged: a person decides)",
        ),
        C("excluded", "boolean", "true when the analysis leaves the participant out", True),
        C(
            "prolific_status",
            "string",
            "the submission's status on Prolific at the last `infact prolific sync` (AWAITING REVIEW, RETURNED, …)",
        ),
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
        C(
            "visits",
            "integer",
            "visits the row stands for: 1, or on the `(aggregated)` row the visits counted in a flood that left "
            "before consenting",
        ),
    ),
)

FLAGS = TableSchema(
    "flags",
    "Quality checks: one row per participant with their flags, reasons, decision and Prolific action.",
    (
        PARTICIPANT,
        C("status", "string", "the participant's status"),
        C("flags", "string", "flags raised, `; `-joined"),
        C("reasons", "string", "why, `; `-joined"),
        C("rsi", "number", "relative speed index (median page time / theirs; 2 = twice as fast as typical)"),
        C("failed_checks", "integer", "attention checks failed"),
        C("decision", "string", "`include` or `exclude`"),
        C("manual_note", "string", "the researcher's note on a manual decision"),
        C("prolific_action", "string", "what to do on Prolific (`review`: typed text flagged, a person decides)"),
        C("prolific_reason", "string", "why that action (Prolific's rules on rejection)"),
        BOT,
    ),
)

RATINGS_WIDE = TableSchema(
    "ratings_wide",
    "One row per participant × situation × criterion, one column per system with its rating.",
    (
        PARTICIPANT,
        C("step_index", "integer", "1-based number of the situation in the participant's run"),
        C("situation_id", "string", "the situation", True),
        C("criterion", "string", "criterion id the ratings of this row answer"),
        C("dialog_id", "string", "the source dialog"),
        C("seconds", "number", "seconds from the page being shown to its submit"),
        C("is_attention_check", "boolean", "true on the instructed-response check; analysis leaves these rows out"),
        C("excluded", "boolean", "true when the participant is excluded by the quality decision (docs/quality.md)"),
        BOT,
    ),
    repeated=C("<system>", "integer", "one column per system, named after it: the point it got, 1..k"),
)

# The leaderboard ledger of pairwise.csv and best_worst.csv (infact/results/ranking/ledger.py; docs/ranking.md,
# "The ledger"): an extra table of each kind whose answers show systems (KindResults.places).
LEDGER = TableSchema(
    "ledger",
    "The leaderboard ledger: one row per table, criterion, system and version compared in pairwise.csv or "
    "best_worst.csv (and one per system of the study with no vote yet): its votes, first and last vote, share of "
    "exposure against the design's intended share, and whether it is still in the study.",
    (
        C("table", "string", "the answers counted: `pairwise.csv` (votes) or `best_worst.csv` (best–worst choices)"),
        C("criterion", "string", "the criterion the votes answer (one ranking per criterion)"),
        C("system", "string", "the system's name", True),
        C(
            "version",
            "string",
            "the version shown (docs/ranking.md, 'The ledger'): `responses-…` (its responses in the situations files), "
            "`endpoint-…` (endpoint, model, system prompt, sampling), `url-…`, `callable-…`; `unknown` for votes "
            "stored before versions were recorded; empty for a system with no vote",
        ),
        C("status", "string", "`in study` (in study.toml's systems now), `removed` (voted on, since removed)"),
        C(
            "votes",
            "integer",
            "votes that showed this version (a pairwise vote shows two systems, a best–worst choice every system "
            "of its set)",
        ),
        C("excluded_votes", "integer", "of those, votes of participants the quality decision excludes"),
        C("first_vote", "datetime", "the first of those votes (UTC)"),
        C("last_vote", "datetime", "the last of those votes (UTC)"),
        C(
            "share",
            "number",
            "this version's share of exposure: its votes / the places of every vote (2 per pairwise vote, the set "
            "size per best–worst choice), summing to 1 per table and criterion",
        ),
        C("system_share", "number", "the system's share of exposure, all its versions together"),
        C(
            "intended_share",
            "number",
            "the share the design intends: 1 / systems in the study for balanced pairs; empty for adaptive pairs "
            "(no fixed share) and for systems no longer in the study",
        ),
        C(
            "design",
            "string",
            "how pairs were scheduled: `balanced` or `adaptive` (protocol.pairs / live.pairs; best–worst sets: "
            "`balanced`), `mixed` when the study's differ",
        ),
    ),
)

STUDY_TABLES = (PARTICIPANTS, VISITS, FLAGS)
# Written only when asked for (`export --label-models`): declared, but not part of every export.
OPTIONAL_TABLES = (SOFT_LABELS,)
