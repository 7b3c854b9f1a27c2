"""The built-in kinds, one module each, named after the kind: each holds the kind's one `Kind`.

A kind (consent, situation, pairwise, …) is everything about one kind of step, reached from one registration
(`infact.participation.steps.Kind`): how it is planned, checked, stored and answered by bots (its `step`,
infact/participation/steps/), how its records become a table that is analysed, judged and exported (its
`results`, infact/results/kinds.py), its participant page and the dashboard section that shows its answers
(dotted paths into infact/ui/, resolved by infact/ui/hooks.py). Every extension point, with its signature,
is listed in infact/hookspecs.py.

Each module holds one `KIND = Kind(...)`; importing this package registers them (`load_all`) in SEQUENCE's
order, the order a participant meets them (the order is data here, not the order of the imports):

    consent → [comprehension] → [onboarding] → situation / pairwise / pairwise_dialog / best_worst / conversation
    (the study's protocol blocks) → [live] → questionnaire → demographics → done

How to add a kind ("stars"): write one module (tests/support/stars_kind.py is a complete one) holding its
`StepKind` subclass, optionally its `KindResults`, its page function, and `register(Kind("stars", …),
before="done")`, run once where the app starts. Nothing else changes: the bots answer it, its table
reaches the export, datapackage.json, `analyze`, the dashboard and (with `compared_as`) the judge comparison.

A layer of its own, above results and below the UI (tests/test_layers.py): it joins their halves.
"""

from infact.kinds import (
    best_worst,
    comprehension,
    consent,
    conversation,
    demographics,
    done,
    live,
    onboarding,
    pairwise,
    pairwise_dialog,
    questionnaire,
    situation,
)
from infact.participation.steps import Kind, register, registered

# The order a participant meets them (as oTree's page_sequence): a study's [flow] and [protocol] choose among them.
SEQUENCE: tuple[Kind, ...] = (
    consent.KIND,
    comprehension.KIND,  # questions on the instructions, right after consent (Prolific)
    onboarding.KIND,
    situation.KIND,  # the protocol blocks: a study's [protocol] / [flow] decides which of these plan steps
    pairwise.KIND,
    pairwise_dialog.KIND,
    best_worst.KIND,
    conversation.KIND,
    live.KIND,  # live chats with the systems (docs/live.md): after the situations
    questionnaire.KIND,
    demographics.KIND,
    done.KIND,
)


def load_all() -> None:
    """Register the built-in kinds, in SEQUENCE's order (once: later calls do nothing)."""
    try:
        loaded = any(k is SEQUENCE[0] for k in registered())
    except LookupError:  # none registered yet
        loaded = False
    if not loaded:
        for kind in SEQUENCE:
            register(kind)


load_all()
