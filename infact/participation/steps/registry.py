"""The registry of step kinds: what a kind declares, and the study's order of kinds.

A *step kind* (consent, situation, questionnaire, demographics, done, …) is one
object that says, in one place, everything the core needs to know about it:

- `plan`      which steps of this kind a participant has (one page, or one per situation);
- `check`     how a submitted answer is validated, and which record fields are stored;
- `bot_answers` how a bot answers it — with labels, exactly like the page does;
- `simulated_answers` how an LLM playing a participant (`bots --strategy llm`) answers it: what the page
              shows and asks, sent once per page (infact/llm/simulated.py); None leaves it to `bot_answers`;
- `rows`      how its stored records become rows of its table (`table`).

`Flow` (submitting), `infact/state.py` (progress), the bots and `infact/results/tables/records.py`
loop over `kinds()`. A kind is registered once, whole (`Kind`: its step, results, page and dashboard section),
by its own module in infact/kinds/; see `infact/kinds/__init__.py` for how to add one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from infact.table_schema import TableSchema

if TYPE_CHECKING:
    from infact.llm.simulated import SimulatedParticipant
    from infact.study.config import StudyConfig
    from infact.study.loader import Study


# The kinds sit below the flow, the state and the bots (tests/test_layers.py): they see them
# through these small views, which Flow, State and Bot satisfy.
class StepState(Protocol):
    """What a kind reads of a participant's state (infact.state.State)."""

    token: str
    assignment: dict | None

    @property
    def preview(self) -> bool: ...


class RunFlow(Protocol):
    """What a kind uses of the participant's run (infact.participation.flow.Flow)."""

    cfg: StudyConfig
    study: Study
    storage: Any
    clock: Callable[[], datetime]

    def store_step(self, st: StepState, step: Step, **fields: Any) -> None: ...

    def assign(self, st: StepState) -> None: ...


class StepBot(Protocol):
    """What a kind uses of a bot participant (infact.participation.bots.Bot)."""

    rng: random.Random
    strategy: str
    quality: dict[str, float]
    bias: float

    def flow(self) -> Any: ...


@dataclass(frozen=True)
class Step:
    """One page of a participant's run."""

    name: str  # "consent", "situation-3", "questionnaire", …: unique per participant
    kind: str  # a registered kind's name
    index: int | None = None  # 1-based number among the steps of its kind (situations)
    situation_id: str | None = None
    order: tuple[str, ...] = ()  # systems in display order
    attention_check: bool = False
    instructed_system: str | None = None  # the check: whose response is replaced by the instruction
    data: Mapping[str, Any] = field(default_factory=dict, hash=False)  # anything else a kind plans

    def answer_fields(self, **fields: Any) -> dict[str, Any]:
        """What every answer to an assigned step stores (its number, situation, whether it is the check), then
        the kind's own `fields`."""
        return {
            "index": self.index,
            "situation_id": self.situation_id,
            "attention_check": self.attention_check,
            **fields,
        }


@dataclass(frozen=True)
class Checked:
    """The result of checking a submitted answer: participant-facing errors, or the
    fields to store in the step's record (besides the common ones and the timing)."""

    errors: tuple[str, ...] = ()
    fields: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def refuse(cls, *errors: str) -> Checked:
        return cls(errors=tuple(errors))


def check_items(
    items: Sequence[Any],
    answers: Mapping[str, Any],
    value: Callable[[Any, Any], Any],
    missing: Callable[[int, Any], str],
) -> tuple[dict[str, Any], list[str]]:
    """One answer per item (`item.id`), as demographics and the questionnaire check theirs: `value(item, answer)`
    is what to store, or None when the answer is missing or not one of the item's; `missing(n, item)` is the
    participant's message for item n (1-based). Returns (the stored values by item id, the messages in item order)."""
    values: dict[str, Any] = {}
    errors: list[str] = []
    for n, item in enumerate(items, start=1):
        v = value(item, answers.get(item.id))
        if v is None:
            errors.append(missing(n, item))
        else:
            values[item.id] = v
    return values, errors


class StepKind:
    """Base class of a step kind. Override what differs; the defaults fit a one-page step."""

    name: str = ""
    answered: bool = True  # False for a page that takes no answer (done)
    schema: TableSchema | None = None  # the table its records become, declared once (infact/table_schema.py)
    per_situation: bool = False  # one step per assigned situation (rating, pairwise, best–worst): progress counts these
    bot_seconds: float = 30.0  # how long an attentive bot spends on one of its pages

    @property
    def table(self) -> str | None:
        """The name of its table (ratings, pairwise, …); kinds that share a table declare the same schema."""
        return self.schema.name if self.schema else None

    def plan(self, flow: RunFlow, st: StepState) -> list[Step] | None:
        """This participant's steps of this kind; [] when the study has none, None when
        they are not known yet (e.g. situations before the assignment is stored)."""
        return [Step(self.name, self.name)]

    def check(self, flow: RunFlow, step: Step, answers: Mapping[str, Any]) -> Checked:
        """Validate `answers` (labels as the page sends them); errors or the fields to store."""
        raise NotImplementedError(f"step kind {self.name!r} takes no answers")

    def store(self, flow: RunFlow, st: StepState, step: Step, fields: Mapping[str, Any]) -> None:
        """Store the checked answer: one record named after the step (override to store more)."""
        flow.store_step(st, step, **fields)

    def bot_answers(self, study: Study, step: Step, bot: StepBot) -> dict:
        """What `bot` submits on `step`: the same shape and labels the page submits."""
        return {}

    def simulated_answers(self, study: Study, step: Step, sim: SimulatedParticipant) -> dict | None:
        """What an LLM playing the participant submits on `step`, in the shape and labels the page submits: the
        page's content and questions go to `sim.answer(page, questions)` (one call; its None answers are
        fallbacks, already marked: put a stand-in). None: this kind's page is answered as a bot answers it."""
        return None

    def bot_time(self, step: Step) -> float:
        return self.bot_seconds

    def scale(self, cfg: StudyConfig) -> Sequence[str] | None:
        """The labels its table turns stored points back into (None: answers are text)."""
        return None

    def rows(self, record: dict, scale: Sequence[str] | None) -> list[dict]:
        """Rows of `table` for one stored record (the participant column is added by the caller)."""
        return []


def assigned_steps(kind: str, st: StepState) -> list[Step] | None:
    """The assignment's steps of `kind`: the situations (rating) or comparisons a participant was handed
    (None before the assignment is drawn: the sequence stops at consent)."""
    if st.assignment is None:
        return None
    return [
        Step(
            s["step"],
            kind,
            s["index"],
            s["situation_id"],
            tuple(s["order"]),
            bool(s.get("attention_check")),
            s.get("instructed_system"),
        )
        for s in st.assignment["steps"]
        if s.get("kind", "situation") == kind
    ]


class KindTable(Protocol):
    """What the registry sees of a kind's results (infact.results.kinds.KindResults, a higher layer): its table."""

    @property
    def name(self) -> str: ...


# Where a kind's page and dashboard section are found: dotted paths ("package.module.function"), resolved only
# by infact/ui/hooks.py, so nothing below the UI imports Streamlit code.
GENERIC_SECTION = "infact.ui.dashboard.sections.generic.show_kind"  # a kind's table and a count


@dataclass(frozen=True)
class Kind:
    """One kind of step, registered once under its name (infact/kinds/<name>.py): everything about it is reached
    from here. The extension points themselves are listed, with their signatures, in infact/hookspecs.py.

    - `step`      how it is planned, checked, stored and answered by bots (a `StepKind`, this module);
    - `results`   how its records become its table, are analysed, judged and exported: an
                  `infact.results.kinds.KindResults` (a higher layer: seen here as a `KindTable`). None with a
                  `step.schema` gets the defaults; several kinds may fill one table (pairwise, pairwise_dialog);
    - `page`      "module.function" drawing its page: `page(flow, progress, step)` (None: no page, a test's kind);
    - `page_top`  "module.function" returning the HTML drawn at the top of its page, in the page's one head element;
    - `dashboard` "module.function" drawing the dashboard section that shows its answers, `draw(view, kind)` for a
                  section of its own named after the kind, or a shared section's function (Results, Live chats);
                  None: its table is only in the exports. Default: the generic section (its table and a count).
    """

    name: str
    step: StepKind
    results: KindTable | None = None
    page: str | None = None
    page_top: str | None = None
    dashboard: str | None = GENERIC_SECTION

    def __post_init__(self) -> None:
        if self.step.name != self.name:
            raise ValueError(f"kind {self.name!r} registers the step kind {self.step.name!r}: give them one name")


_KINDS: dict[str, Kind] = {}


def register(kind: Kind, *, before: str | None = None) -> Kind:
    """Add `kind` to the sequence: at the end, or just before the kind named `before`."""
    if not kind.name or kind.name in _KINDS:
        raise ValueError(f"step kind {kind.name!r} is empty or already registered")
    if before is not None and before not in _KINDS:
        raise ValueError(f"cannot register {kind.name!r} before unknown step kind {before!r}")
    items = list(_KINDS.items())
    at = len(items) if before is None else [n for n, _ in items].index(before)
    items.insert(at, (kind.name, kind))
    _KINDS.clear()
    _KINDS.update(items)
    return kind


def unregister(name: str) -> None:
    """Remove a kind (tests that register one of their own clean up with this)."""
    _KINDS.pop(name, None)


def _all() -> dict[str, Kind]:
    if not _KINDS:  # the built-in kinds sit above this layer: whoever starts INFACT registers them
        raise LookupError("no kinds are registered: `import infact.kinds` first (the app, the CLI and the tests do)")
    return _KINDS


def registered() -> list[Kind]:
    """Every registered kind, whole, in the order a participant meets them."""
    return list(_all().values())


def kind(name: str) -> Kind:
    """The registration of the kind `name`; an error naming the registered ones."""
    try:
        return _all()[name]
    except KeyError:
        raise KeyError(f"unknown step kind {name!r}; registered: {', '.join(_KINDS)}") from None


def kinds() -> list[StepKind]:
    """Every registered kind's step half, in the order a participant meets them."""
    return [k.step for k in _all().values()]


def sequence() -> tuple[str, ...]:
    """The study's order of step kinds, e.g. consent → situation → … → done."""
    return tuple(_all())


def get(name: str) -> StepKind:
    """The step half of the kind `name` (how it is checked, stored, answered)."""
    return kind(name).step


def situation_kinds() -> frozenset[str]:
    """Kinds whose steps are the assigned situations (the progress bar and coverage count them)."""
    return frozenset(n for n, k in _all().items() if k.step.per_situation)


def answer_kinds() -> frozenset[str]:
    """Record kinds that answer a step (their records mark the step answered)."""
    return frozenset(n for n, k in _all().items() if k.step.answered)
