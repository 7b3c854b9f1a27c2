"""The participant's path through a study: arrive, then submit one step after another.

    consent → situation-1 … situation-n → questionnaire → demographics → done

The order and what each step does are data: the registered step kinds
(`infact.participation.steps`). A participant's whole state is rebuilt from the
stored records (`Flow.state`, see `infact/state.py`), so a refresh, a reopened link
or a second server process resumes at the first unanswered step with the same
situations. Every `submit` reads the participant's records, lets the step's kind
check the answers, stores one record immediately (idempotent key) and returns the
state read back after storing; nothing is kept only in memory.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from infact.errors import ConfigError, InfactError, Problem
from infact.participation import assignment as assign
from infact.participation import conditions, situation_load
from infact.participation import steps as registry
from infact.participation.platforms import (
    SESSION_PARAM,
    Arrival,
    Completion,
    IdInUse,
    capture,
    completion_target,
    make_participant_code,
    may_resume,
)
from infact.participation.steps import Step, answer_kinds
from infact.state import State, read_state
from infact.storage import Storage
from infact.study.loader import Study
from infact.text.catalogue import _

Clock = Callable[[], datetime]
DONE = Step("done", "done")
SESSIONS = "_sessions"  # the store name of the second sessions of shared platform IDs (tables skip `_…`)


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="milliseconds")


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text)


@dataclass(frozen=True)
class SubmitResult:
    ok: bool
    errors: tuple[str, ...] = ()
    stored: bool = False  # False when the same answer had already been stored
    next_step: Step | None = None
    state: State | None = None  # the participant as stored after this submit (None: unknown token)


def kinds_in_order(study: Study) -> list:
    """The step kinds a participant of `study` meets: `[flow] steps` (each named kind must be
    registered: ConfigError naming the file and field otherwise), else every registered kind."""
    order = study.config.flow.steps
    if order is None:
        return registry.kinds()
    known = registry.sequence()
    unknown = [name for name in order if name not in known]
    if unknown:
        raise ConfigError(
            Problem(
                str(study.folder / "study.toml"),
                f"unknown step kind(s) {', '.join(unknown)}: choose from {', '.join(known)}",
                key="flow.steps",
            )
        )
    return [registry.get(name) for name in order]


class FlowError(InfactError):
    """A participant-facing problem (unknown link, invalid platform parameters)."""


class Flow:
    """Study logic for one study and one store; no Streamlit here."""

    def __init__(
        self,
        study: Study,
        storage: Storage,
        clock: Clock = utcnow,
        rng: random.Random | None = None,
        *,
        bot: str | None = None,
    ):
        self.study = study
        self.storage = storage
        self.clock = clock
        # The assignment's random choices; a simulation passes a seeded Random so that its bots get the same
        # situations and orders on every run. Tokens and completion codes are credentials: always from `secrets`.
        self.rng = rng or secrets.SystemRandom()
        # A bot participant's strategy (infact/participation/bots.py): every record this flow writes carries it
        # as `bot`, so a bot is told from a person in the store, in every table and on the dashboard.
        self.bot = bot
        self.cfg = study.config
        self.kinds = kinds_in_order(study)  # the registered kinds, in [flow] steps' order when given
        self.condition: str | None = None  # set on the Flow of one between-subjects condition (`of`)
        self._conditions: dict[str, Flow] = {}

    def of(self, st: State | None) -> Flow:
        """The Flow of this participant's condition (infact/study/conditions/overlay.py), else this Flow."""
        name = (st.arrival or {}).get("condition") if st is not None else None
        if name is None or name not in self.study.conditions:
            return self
        if name not in self._conditions:
            self._conditions[name] = Flow(self.study.under(name), self.storage, self.clock, self.rng, bot=self.bot)
            self._conditions[name].condition = name
        return self._conditions[name]

    # -- records -----------------------------------------------------------
    def _record(self, token: str, kind: str, suffix: str, preview: bool, **fields: Any) -> dict:
        return {
            "key": f"{self.study.id}/{token}/{suffix}",
            "study": self.study.id,
            "dataset_version": self.study.dataset_version,
            "participant": token,
            "kind": kind,
            "at": iso(self.clock()),
            "preview": preview,
            **({"condition": self.condition} if self.condition is not None else {}),
            **({"bot": self.bot} if self.bot else {}),
            **fields,
        }

    def mark_simulated(self, token: str, preview: bool, **fields: Any) -> None:
        """Mark a participant as played by an LLM (`bots --strategy llm`): shown apart, left out of human results."""
        self.storage.append(self._record(token, "simulated", "simulated", preview, **fields))

    # -- arrival and resume --------------------------------------------------
    def admit(self, query: Mapping[str, Any], *, preview: bool = False) -> tuple[Arrival, str | None]:
        """Check an arrival without storing anything: (arrival, token of the participant to resume).

        The token is None for a newcomer. Raises PlatformError for invalid platform
        parameters and IdInUse when the platform ID already takes part and the arrival
        has no second ID (SESSION_ID / assignmentId) of its own. A platform ID that comes
        with *another* session is not owned by whoever came first: it is a participant of
        its own (`arrive` marks both sessions), and Prolific's review is decided by the
        session its submission names (infact.prolific.review).
        """
        arrival, token, _ = self._find(query, preview)
        return arrival, token

    def _find(self, query: Mapping[str, Any], preview: bool) -> tuple[Arrival, str | None, dict | None]:
        """(arrival, token to resume or None, the first stored arrival of this platform ID if another session)."""
        arrival: Arrival = capture(query, self.cfg.platform)
        conditions.check_forced(arrival, self.study)  # `?q=` of a between-subjects study names a condition
        if not arrival.platform_id or preview:
            return arrival, None, None
        stored = self.arrival_of(arrival.platform_id)
        if stored is None:
            return arrival, None, None
        if may_resume(stored, arrival):
            return arrival, stored["participant"], None
        if not arrival.session_id:
            raise IdInUse(arrival.platform)  # an ID alone proves nothing: it opens no one's session
        return arrival, self._session_alias(arrival), stored

    def _alias_key(self, arrival: Arrival) -> str:
        text = f"{self.study.id}\0{(arrival.platform_id or '').casefold()}\0{(arrival.session_id or '').casefold()}"
        return f"{self.study.id}/{SESSIONS}/session/{hashlib.sha256(text.encode()).hexdigest()[:32]}"

    def _session_alias(self, arrival: Arrival) -> str | None:
        """The participant a second session of a shared platform ID became (None: not arrived yet)."""
        key = self._alias_key(arrival)
        found = [r for r in self.storage.records(study=self.study.id, participant=SESSIONS) if r.get("key") == key]
        return found[0]["became"] if found else None

    def arrival_of(self, platform_id: str) -> dict | None:
        """The stored (non-preview) arrival with this platform ID, letter case ignored."""
        return self.storage.arrival_by_platform_id(self.study.id, platform_id)  # indexed in every store

    def arrive(self, query: Mapping[str, Any], *, preview: bool = False) -> str:
        """Register a new participant, or resume the one this platform session already has.

        Returns the participant token to keep in the URL. Raises PlatformError
        (invalid platform parameters) or IdInUse (see `admit`). The web page calls
        it only once consent is given, so visits that never consent store nothing.
        A second session of a platform ID already taking part becomes a participant of its
        own, marked `platform_id_shared` (with the first one's token), and is found again
        through a `_sessions` record keyed by a hash of (ID, session).
        """
        # The store-wide lock, for an arrival with a platform ID (the same ID in two sessions at once) and for a
        # consent that counts the others' places to choose a condition; a launch's other consents need none.
        shared = not preview and (capture(query, self.cfg.platform).platform_id or self.study.conditions)
        with self.storage.lock() if shared else nullcontext():
            arrival, token, first = self._find(query, preview)
            if token is not None:
                return token
            token = secrets.token_urlsafe(12)
            # "_…" is reserved for researcher records (tables skip it); "-…" a spreadsheet would read as a formula,
            # so the token would be written with a quote before it in the exports (table_schema.neutral_cell)
            while token.startswith(("_", "-")):
                token = secrets.token_urlsafe(12)
            fields = arrival.record_fields()
            if self.study.conditions:  # a between-subjects study: the condition is chosen at consent
                fields["condition"] = conditions.condition_for(arrival, self, self.clock())
            if first is not None:  # not silent: participants.csv's platform_warnings says so
                fields["platform_id_shared"] = first["participant"]
                fields["platform_warnings"] = [
                    *fields["platform_warnings"],
                    f"this platform ID also took part from another session (participant {first['participant']}); "
                    "each session is its own participant, and Prolific's review follows the SESSION_ID",
                ]
            self.storage.append(self._record(token, "arrival", "arrival", preview, **fields))
            if first is not None:  # after the arrival: a crash between leaves no alias to nobody
                self.storage.append(
                    {
                        "key": self._alias_key(arrival),
                        "study": self.study.id,
                        "dataset_version": self.study.dataset_version,
                        "participant": SESSIONS,
                        "kind": "session",
                        "at": iso(self.clock()),
                        "preview": False,
                        "became": token,
                    }
                )
        return token

    def state(self, token: str) -> State | None:
        """Rebuild a participant's state from storage; None for an unknown token."""
        return read_state(self.storage, self.study.id, token, answer_kinds())

    # -- the step sequence ---------------------------------------------------
    @conditions.of_participant
    def _planned(self, st: State) -> tuple[list[Step], bool]:
        """The steps of every kind in sequence, and whether the plan is complete (False:
        a kind's steps are not known yet, e.g. situations before the assignment)."""
        steps: list[Step] = []
        for kind in self.kinds:
            planned = kind.plan(self, st)
            if planned is None:
                return steps, False
            steps += planned
        return steps, True

    def steps(self, st: State) -> list[Step]:
        return self._planned(st)[0]

    def current(self, st: State) -> Step:
        if st.finished:
            return DONE
        steps, complete = self._planned(st)
        for step in steps:
            if registry.get(step.kind).answered and step.name not in st.answered:
                return step
        if not complete and steps:
            return steps[-1]  # e.g. stopped between consent and assignment: submitting it again assigns
        return DONE

    @conditions.of_participant
    def progress(self, st: State) -> tuple[int, int]:
        """(situations answered, situations in total) for the progress indicator."""
        total = self.cfg.study.situations_per_participant * len(self.cfg.blocks)
        kinds = registry.situation_kinds()
        done = sum(1 for rec in st.answered.values() if rec.get("kind") in kinds)
        return done, total

    @conditions.of_participant
    def mark_shown(self, st: State, step: Step, at: datetime | None = None) -> str:
        """Store when a step was first displayed (kept across refreshes). `at`: when it was
        shown if that was earlier (the consent page is shown before anything is stored)."""
        if step.name in st.shown:
            return st.shown[step.name]
        at = iso(at or self.clock())
        self.storage.append(
            self._record(st.token, "shown", f"shown/{step.name}", st.preview, step=step.name, shown_at=at)
        )
        st.shown[step.name] = at
        return at

    # -- submitting ----------------------------------------------------------
    def submit(
        self, token: str, step_name: str, answers: Mapping[str, Any], extra: Mapping[str, Any] | None = None
    ) -> SubmitResult:
        """Check and store the answers to `step_name`; always against what is stored. `extra` fields are stored
        with the checked ones: a simulated participant's provenance (`llm`) and stand-in answers (`fallback`)."""
        st = self.state(token)
        if st is None:
            return SubmitResult(
                False, (_("This study link is not valid any more. Please open the link you were given again."),)
            )
        # a between-subjects study: the participant's condition's settings check, store and plan
        return self.of(st)._submit(st, step_name, answers, extra)

    def _submit(self, st: State, step_name: str, answers: Mapping[str, Any], extra: Mapping[str, Any] | None):
        token = st.token
        if st.withdrawn is not None:
            return SubmitResult(
                False, (_("You have withdrawn from the study; nothing more is stored."),), next_step=DONE, state=st
            )
        if step_name in st.answered and self._planned(st)[1]:  # double click / rerun: already stored, move on
            return SubmitResult(True, stored=False, next_step=self.current(st), state=st)
        step = self.current(st)
        if step.name != step_name:
            return SubmitResult(
                False,
                (_("This page was already submitted; you cannot go back to change it."),),
                next_step=step,
                state=st,
            )
        kind = registry.get(step.kind)
        if not kind.answered:
            return SubmitResult(False, (_("The study is already complete."),), next_step=step, state=st)
        checked = kind.check(self, step, answers)
        if checked.errors:
            return SubmitResult(False, checked.errors, next_step=step, state=st)
        kind.store(self, st, step, {**checked.fields, **(extra or {})})
        st = self.state(token)
        assert st is not None
        if checked.fields.get("screens_out") or (  # onboarding, comprehension: whatever on_attention_fail says
            checked.fields.get("attention_passed") is False and self.cfg.quality.on_attention_fail == "screen_out"
        ):
            st = self._complete(st, "screened_out")
        nxt = self.current(st)
        if nxt.kind == "done" and not st.finished:
            st = self._complete(st, "completed")
        return SubmitResult(True, stored=True, next_step=self.current(st), state=st)

    def _timing(self, st: State, step: Step) -> dict:
        answered = self.clock()
        shown = st.shown.get(step.name)
        shown_dt = parse_iso(shown) if shown else answered
        return {
            "shown_at": iso(shown_dt),
            "answered_at": iso(answered),
            "seconds": round(max(0.0, (answered - shown_dt).total_seconds()), 3),
        }

    def store_step(self, st: State, step: Step, **fields: Any) -> None:
        """Store the answer record of `step` (its kind names the record), with its timing."""
        self.storage.append(
            self._record(
                st.token, step.kind, f"step/{step.name}", st.preview, step=step.name, **self._timing(st, step), **fields
            )
        )

    def assign(self, st: State) -> None:
        now = self.clock()
        rng = random.Random(self.rng.getrandbits(64))
        # Kept up to date from the store's change feed (a condition's: balanced among its own participants).
        load = situation_load.for_store(self.storage, self.study.id, self.condition)
        load = load.current(now) if not st.preview else ({}, {})
        history = None
        if set(self.cfg.blocks) != {"rating"}:  # which pairs / sets were handed out, votes so far
            from infact.participation.protocols import History

            history = (
                History.for_store(self.storage, self.study.id, self.condition).current(now)
                if not st.preview
                else History(self.study.id, condition=self.condition)
            )
        plan = assign.plan_from_load(self.study, *load, rng=rng, history=history)
        lease_until = now + timedelta(minutes=self.cfg.assignment.lease_minutes)
        self.storage.append(
            self._record(st.token, "assignment", "assignment", st.preview, steps=plan, lease_until=iso(lease_until))
        )

    # -- the end -------------------------------------------------------------
    def _complete(self, st: State, outcome: str) -> State:
        """Store the completion record (once) and return the state read back."""
        if st.complete is not None:
            return st
        ended = self.clock()
        started = parse_iso(st.arrival["at"]) if st.arrival else ended
        code = make_participant_code(secrets.SystemRandom(), st.token)
        self.storage.append(
            self._record(
                st.token,
                "complete",
                "complete",
                st.preview,
                outcome=outcome,
                completion_code=code,
                started_at=iso(started),
                ended_at=iso(ended),
                total_seconds=round((ended - started).total_seconds(), 3),
            )
        )
        return self.state(st.token) or st

    @conditions.of_participant
    def finish_pending(self, st: State) -> State:
        """Store the completion record a crash left out: every step is answered but the process that
        stored the last answer was killed before it wrote the completion (a replica SIGKILLed behind a
        load balancer). The done page calls this, so the participant gets their code on any replica."""
        if st.finished or self.current(st).kind != "done":
            return st
        return self._complete(st, "completed")

    @conditions.of_participant
    def completion(self, st: State) -> Completion | None:
        """What the done page shows — only once the completion record is stored."""
        if st.complete is None:
            return None
        return completion_target(self.cfg.platform, st.complete["outcome"], st.complete["completion_code"])

    def withdraw(self, token: str, reason: str = "") -> bool:
        """Mark a participant withdrawn. With `study.delete_on_withdraw` their answers are
        deleted; a tombstone (arrival without answers + withdraw) remains so the same
        platform ID is not admitted a second time."""
        st = self.state(token)
        if st is None or st.withdrawn is not None:
            return False
        delete = self.cfg.study.delete_on_withdraw
        if delete:
            arrival = st.arrival
            second = SESSION_PARAM.get(arrival.get("platform"))
            kept = (
                {second: arrival["platform_params"][second]} if second in (arrival.get("platform_params") or {}) else {}
            )
            self.storage.purge(token)
            self.storage.append(
                self._record(  # the session ID stays: the same session sees "withdrawn"
                    token,
                    "arrival",
                    "arrival",
                    st.preview,
                    platform=arrival.get("platform"),
                    platform_params=kept,
                    platform_id=arrival.get("platform_id"),
                    group=None,
                    tombstone=True,
                )
            )
        return self.storage.append(
            self._record(
                token, "withdraw", "withdraw", st.preview, reason=reason[:500], delete_requested=delete, deleted=delete
            )
        )
