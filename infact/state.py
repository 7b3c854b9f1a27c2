"""A participant's progress: rebuilt from storage, kept between reruns by the UI.

Storage is the source of truth. `read_state` rebuilds everything stored about one
participant from their records; `Progress` adds what the page needs (the steps,
which are answered, the current one). The participant page keeps the `Progress`
in `st.session_state` through `ProgressCache`, so a rerun that stores nothing (a
click on a scale) reads nothing from the store. Whatever stores something —
arrival, a submit, a withdrawal — replaces the cached progress with one rebuilt
from what was stored. A submit always checks against storage (`Flow.submit` reads
the participant's records first), so a second tab or a second server process can
make the cached page stale for one rerun, but never lets a stale page store
anything: the submit's answer carries the fresh state.

No Streamlit here: the cache works on any mutable mapping. Below `infact.participation` (whose `Flow`
and bots read a `State`): what this module needs of a step and of the flow it declares as small
Protocols, and `Flow` passes in which record kinds answer a step, so it imports nothing above it.
"""

from __future__ import annotations

from collections.abc import Collection, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from infact.errors import InfactError
from infact.stores.records import StoreUnavailable

if TYPE_CHECKING:
    from infact.storage import Storage
    from infact.study.loader import Study


class Step(Protocol):
    """What progress reads of a step (infact.participation.steps.Step, planned a layer above)."""

    name: str
    kind: str


class Flow(Protocol):
    """What progress needs of the participant's run (infact.participation.flow.Flow, a layer above)."""

    study: Study

    def state(self, token: Any) -> State | None: ...

    def steps(self, st: State) -> Sequence[Step]: ...

    def current(self, st: State) -> Step: ...


@dataclass
class State:
    """Everything stored about one participant, read back from storage."""

    token: str
    records: list[dict]
    arrival: dict | None = None
    assignment: dict | None = None
    shown: dict[str, str] = field(default_factory=dict)
    answered: dict[str, dict] = field(default_factory=dict)
    complete: dict | None = None
    withdrawn: dict | None = None

    @property
    def preview(self) -> bool:
        return bool(self.arrival and self.arrival.get("preview"))

    @property
    def finished(self) -> bool:
        return self.complete is not None or self.withdrawn is not None


_SINGLE = {"arrival": "arrival", "assignment": "assignment", "complete": "complete", "withdraw": "withdrawn"}


def read_state(storage: Storage, study_id: str, token: Any, answers: Collection[str]) -> State | None:
    """Rebuild a participant's state from storage; None for an unknown token. `answers`: the record kinds
    that answer a step (`infact.participation.steps.answer_kinds()`): their records mark a step answered."""
    if not token or not isinstance(token, str):
        return None
    try:
        records = storage.records(study=study_id, participant=token)
    except StoreUnavailable:
        raise  # an outage, not an unknown participant: their records are there, the store is not (for now)
    except InfactError:
        return None  # e.g. a token with characters a store cannot hold: unknown
    st = State(token=token, records=records)
    for rec in records:
        kind = rec.get("kind")
        if kind in _SINGLE:
            setattr(st, _SINGLE[kind], rec)
        elif kind == "shown":
            st.shown.setdefault(rec["step"], rec["shown_at"])
        elif kind in answers:
            st.answered[rec["step"]] = rec
    return st if st.arrival else None


@dataclass
class Progress:
    """A participant's progress as the page shows it: token, steps, answered steps, current step."""

    state: State
    steps: tuple[Step, ...]
    current: Step

    @property
    def token(self) -> str:
        return self.state.token

    @property
    def answered(self) -> frozenset[str]:
        return frozenset(self.state.answered)


def progress_of(flow: Flow, st: State) -> Progress:
    return Progress(st, tuple(flow.steps(st)), flow.current(st))


def load(flow: Flow, token: Any) -> Progress | None:
    """The progress rebuilt from storage; None for an unknown token."""
    st = flow.state(token)
    return None if st is None else progress_of(flow, st)


class ProgressCache:
    """One participant's `Progress` kept in a mapping the UI owns (`st.session_state`)."""

    KEY = "infact_progress"

    def __init__(self, session: MutableMapping[str, Any]):
        self.session = session

    @staticmethod
    def _owner(flow: Flow, token: str) -> tuple:
        return (flow.study.id, flow.study.dataset_version, token)

    def get(self, flow: Flow, token: Any) -> Progress | None:
        """The cached progress for `token`, or (first run, reload, other token) rebuilt from storage."""
        cached = self.session.get(self.KEY)
        if cached is not None and cached[0] == self._owner(flow, token):
            return cached[1]
        return self.put(flow, flow.state(token))

    def put(self, flow: Flow, st: State | None) -> Progress | None:
        """Cache the progress of a state just read from storage (None forgets it)."""
        if st is None:
            self.drop()
            return None
        progress = progress_of(flow, st)
        self.session[self.KEY] = (self._owner(flow, st.token), progress)
        return progress

    def drop(self) -> None:
        self.session.pop(self.KEY, None)
