"""Step kinds: the study's sequence of pages, as data.

The bottom of the run layer: may import foundations, `infact.study`, the stores and `infact.chat`; it sees
the flow, the state and the bots only through the small Protocols in `registry.py`.

    consent → [comprehension] → situation-1 … situation-n → [live] → questionnaire → demographics → done

`registry.sequence()` is that order; every kind is one module here declaring how its
answer is checked and stored, how a bot answers it and how its records become table
rows (see `registry.StepKind`). `Flow`, `infact/state.py`, the bots and
`infact/results/tables/records.py` loop over `registry.kinds()`.

How to add a step kind (e.g. "pairwise"):

1. Write a module in infact/participation/steps/ (here `pairwise.py`) with a `StepKind` subclass: `name`,
   `plan` (its steps for a participant: from the assignment record, from the study
   config — [] when the study has none — or one page; per-step extras go in
   `Step.data`), `check` (answers as labels → `Checked.refuse(...)` or
   `Checked(fields=…)`; a field `attention_passed = False` screens out when
   `quality.on_attention_fail = "screen_out"`), `bot_answers` (labels, like the page),
   `bot_seconds`, and `table`/`scale`/`rows` if its records become a table. Override
   `store` only if a submit must store more than the step's one record.
2. Register it below, at its place in the sequence: `register(Pairwise(), before="questionnaire")`.
3. Add its renderer in `infact/ui/` (a module imported by `infact/ui/__init__.py`): a function decorated
   `@renderer("pairwise")` that draws the page and calls `submit(flow, progress, step, answers)`. Optionally,
   `@page_top("pairwise")`
   returns HTML for the top of its page (progress, dialog…), drawn in the page's one head element:
   every element is paid for on every rerun.

Nothing else changes: with a `schema`, its table reaches the export, datapackage.json, the dashboard's
downloads and `analyze` (infact/results/kinds.py says how a kind's results are extended), the bots answer it,
the page draws it. tests/participation/test_step_registry.py registers a test-only kind this way.
"""

from infact.participation.steps.compare import BestWorst, Pairwise
from infact.participation.steps.compare_dialog import PairwiseDialog
from infact.participation.steps.comprehension import Comprehension
from infact.participation.steps.consent import Consent
from infact.participation.steps.conversation import Conversation
from infact.participation.steps.demographics import Demographics
from infact.participation.steps.done import Done
from infact.participation.steps.live import Live
from infact.participation.steps.onboarding import Onboarding
from infact.participation.steps.questionnaire import Questionnaire
from infact.participation.steps.registry import (
    Checked,
    Step,
    StepKind,
    answer_kinds,
    get,
    kinds,
    register,
    sequence,
    situation_kinds,
    unregister,
)
from infact.participation.steps.situation import Situation

__all__ = [
    "Checked",
    "Step",
    "StepKind",
    "answer_kinds",
    "get",
    "kinds",
    "register",
    "sequence",
    "situation_kinds",
    "unregister",
]

# pairwise, pairwise_dialog (ACUTE-style) and best_worst sit beside situation: a study's
# [protocol] decides which of the four its assignment fills (infact/participation/protocols.py);
# the others plan no steps.
for _kind in (
    Consent(),
    Onboarding(),
    Situation(),
    Pairwise(),
    PairwiseDialog(),
    BestWorst(),
    Questionnaire(),
    Demographics(),
    Done(),
):
    register(_kind)
register(Comprehension(), before="onboarding")  # questions on the instructions, right after consent (Prolific)
register(Conversation(), before="questionnaire")  # one system's whole conversation, rated turn by turn
register(Live(), before="questionnaire")  # live chats with the systems (docs/live.md): after the situations
