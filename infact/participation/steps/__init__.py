"""Step kinds: how each page of a participant's run is planned, checked, stored and answered by bots.

The bottom of the run layer: may import foundations, `infact.study`, the stores and `infact.chat`; it sees
the flow, the state and the bots only through the small Protocols in `registry.py`.

    consent → [comprehension] → situation-1 … situation-n → [live] → questionnaire → demographics → done

Each module here holds one kind's `StepKind` (`registry.StepKind`: `plan`, `check`, `store`, `bot_answers`,
`rows`…). A kind is registered once, whole, by its own module in infact/kinds/ (`registry.Kind`: its step
half from here, its results, its page and its dashboard section); `registry.sequence()` is the order they
are registered in. `Flow`, `infact/state.py`, the bots and `infact/results/tables/records.py`
loop over `registry.kinds()`. How to add a kind: infact/kinds/__init__.py.
"""

from infact.participation.steps.registry import (
    Checked,
    Kind,
    Step,
    StepKind,
    answer_kinds,
    get,
    kind,
    kinds,
    register,
    registered,
    sequence,
    situation_kinds,
    unregister,
)

__all__ = [
    "Checked",
    "Kind",
    "Step",
    "StepKind",
    "answer_kinds",
    "get",
    "kind",
    "kinds",
    "register",
    "registered",
    "sequence",
    "situation_kinds",
    "unregister",
]
