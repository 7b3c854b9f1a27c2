"""The participant's path through a study, as data: the one sequence the UI, the bots
and the tests all walk.

    consent → situation-1 … situation-n → questionnaire → demographics → done

A participant's whole state is rebuilt from the stored records on every call
(`Flow.state`), so a refresh, a reopened link or a second server process always
resumes at the first unanswered step with the same situations. Every `submit`
validates the answers, stores one record immediately (idempotent key), and
returns the next step; nothing is kept only in memory.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Mapping

from infact.participation import assignment as assign
from infact.errors import InfactError
from infact.participation.platforms import (SESSION_PARAM, Arrival, Completion, IdInUse, capture, completion_target,
                                           make_participant_code, may_resume, same_id)
from infact.storage import Storage
from infact.study.loader import Study

PAGE_SEQUENCE = ("consent", "situations", "questionnaire", "demographics", "done")

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text)


@dataclass(frozen=True)
class Step:
    name: str                       # "consent", "situation-3", "questionnaire", "demographics", "done"
    kind: str                       # "consent" | "situation" | "questionnaire" | "demographics" | "done"
    index: int | None = None        # 1-based situation number
    situation_id: str | None = None
    order: tuple[str, ...] = ()     # systems in display order
    attention_check: bool = False
    instructed_system: str | None = None  # the check: whose response is replaced by the instruction


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


@dataclass(frozen=True)
class SubmitResult:
    ok: bool
    errors: tuple[str, ...] = ()
    stored: bool = False            # False when the same answer had already been stored
    next_step: Step | None = None


class FlowError(InfactError):
    """A participant-facing problem (unknown link, invalid platform parameters)."""


def _rating_value(value: Any, labels: list[str]) -> int | None:
    """Accept a scale label or a 1-based point number; None if neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 1 <= value <= len(labels):
        return value
    if isinstance(value, str) and value in labels:
        return labels.index(value) + 1
    return None


def response_letter(position: int) -> str:
    return chr(ord("A") + position - 1)


class Flow:
    """Study logic for one study and one store; no Streamlit here."""

    def __init__(self, study: Study, storage: Storage, clock: Clock = utcnow):
        self.study = study
        self.storage = storage
        self.clock = clock
        self.cfg = study.config

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
            **fields,
        }

    # -- arrival and resume --------------------------------------------------
    def admit(self, query: Mapping[str, Any], *, preview: bool = False) -> tuple[Arrival, str | None]:
        """Check an arrival without storing anything: (arrival, token of the participant to resume).

        The token is None for a newcomer. Raises PlatformError for invalid platform
        parameters and IdInUse when the platform ID already takes part and the
        second ID (SESSION_ID / assignmentId) does not prove it is the same session.
        """
        arrival: Arrival = capture(query, self.cfg.platform)
        if not arrival.platform_id or preview:
            return arrival, None
        stored = self.arrival_of(arrival.platform_id)
        if stored is None:
            return arrival, None
        if may_resume(stored, arrival):
            return arrival, stored["participant"]
        raise IdInUse(arrival.platform)

    def arrival_of(self, platform_id: str) -> dict | None:
        """The stored (non-preview) arrival with this platform ID, letter case ignored."""
        for rec in self.storage.records(study=self.study.id, kind="arrival"):
            if same_id(rec.get("platform_id"), platform_id) and not rec.get("preview"):
                return rec
        return None

    def arrive(self, query: Mapping[str, Any], *, preview: bool = False) -> str:
        """Register a new participant, or resume the one this platform session already has.

        Returns the participant token to keep in the URL. Raises PlatformError
        (invalid platform parameters) or IdInUse (see `admit`). The web page calls
        it only once consent is given, so visits that never consent store nothing.
        """
        with self.storage.lock():
            arrival, token = self.admit(query, preview=preview)
            if token is not None:
                return token
            token = secrets.token_urlsafe(12)
            while token.startswith("_"):  # "_…" is reserved for researcher records: tables skip it
                token = secrets.token_urlsafe(12)
            self.storage.append(self._record(token, "arrival", "arrival", preview, **arrival.record_fields()))
        return token

    def state(self, token: str) -> State | None:
        """Rebuild a participant's state from storage; None for an unknown token."""
        if not token or not isinstance(token, str):
            return None
        try:
            records = self.storage.records(study=self.study.id, participant=token)
        except InfactError:
            return None  # e.g. a token with characters a store cannot hold: unknown
        if not records:
            return None
        st = State(token=token, records=records)
        for rec in records:
            kind = rec.get("kind")
            if kind == "arrival":
                st.arrival = rec
            elif kind == "assignment":
                st.assignment = rec
            elif kind == "shown":
                st.shown.setdefault(rec["step"], rec["shown_at"])
            elif kind in ("consent", "situation", "questionnaire", "demographics"):
                st.answered[rec["step"]] = rec
            elif kind == "complete":
                st.complete = rec
            elif kind == "withdraw":
                st.withdrawn = rec
        return st if st.arrival else None

    # -- the step sequence ---------------------------------------------------
    def steps(self, st: State) -> list[Step]:
        steps = [Step("consent", "consent")]
        if st.assignment is None:
            return steps
        for s in st.assignment["steps"]:
            steps.append(Step(s["step"], "situation", s["index"], s["situation_id"], tuple(s["order"]),
                              bool(s.get("attention_check")), s.get("instructed_system")))
        steps += [Step("questionnaire", "questionnaire"), Step("demographics", "demographics"), Step("done", "done")]
        return steps

    def current(self, st: State) -> Step:
        if st.finished:
            return Step("done", "done")
        if st.assignment is None and "consent" in st.answered:
            return Step("consent", "consent")  # stopped between consent and assignment: assign now
        for step in self.steps(st):
            if step.kind != "done" and step.name not in st.answered:
                return step
        return Step("done", "done")

    def progress(self, st: State) -> tuple[int, int]:
        """(situations answered, situations in total) for the progress indicator."""
        total = self.cfg.study.situations_per_participant
        done = sum(1 for name in st.answered if name.startswith("situation-"))
        return done, total

    def mark_shown(self, st: State, step: Step) -> str:
        """Store when a step was first displayed (kept across refreshes)."""
        if step.name in st.shown:
            return st.shown[step.name]
        at = iso(self.clock())
        self.storage.append(self._record(st.token, "shown", f"shown/{step.name}", st.preview, step=step.name, shown_at=at))
        st.shown[step.name] = at
        return at

    # -- submitting ----------------------------------------------------------
    def submit(self, token: str, step_name: str, answers: Mapping[str, Any]) -> SubmitResult:
        st = self.state(token)
        if st is None:
            return SubmitResult(False, ("This study link is not valid any more. Please open the link you were given again.",))
        if st.withdrawn is not None:
            return SubmitResult(False, ("You have withdrawn from the study; nothing more is stored.",), next_step=Step("done", "done"))
        if step_name in st.answered and st.assignment is not None:  # double click / rerun: already stored, move on
            return SubmitResult(True, stored=False, next_step=self.current(st))
        step = self.current(st)
        if step.name != step_name:
            return SubmitResult(False, ("This page was already submitted; you cannot go back to change it.",), next_step=step)
        handler = {
            "consent": self._submit_consent,
            "situation": self._submit_situation,
            "questionnaire": self._submit_questionnaire,
            "demographics": self._submit_demographics,
        }.get(step.kind)
        if handler is None:
            return SubmitResult(False, ("The study is already complete.",), next_step=step)
        errors = handler(st, step, answers)
        if errors:
            return SubmitResult(False, tuple(errors), next_step=step)
        st = self.state(token)
        assert st is not None
        nxt = self.current(st)
        if nxt.kind == "done" and st.complete is None and st.withdrawn is None:
            self._complete(st, "completed")
        return SubmitResult(True, stored=True, next_step=nxt)

    def _timing(self, st: State, step: Step) -> dict:
        answered = self.clock()
        shown = st.shown.get(step.name)
        shown_dt = parse_iso(shown) if shown else answered
        return {"shown_at": iso(shown_dt), "answered_at": iso(answered),
                "seconds": round(max(0.0, (answered - shown_dt).total_seconds()), 3)}

    def _store_step(self, st: State, step: Step, kind: str, **fields: Any) -> None:
        self.storage.append(self._record(st.token, kind, f"step/{step.name}", st.preview,
                                         step=step.name, **self._timing(st, step), **fields))

    def _submit_consent(self, st: State, step: Step, answers: Mapping[str, Any]) -> list[str]:
        if answers.get("consent") is not True:
            return ["Please tick the consent box to take part. If you do not want to take part, you can simply close this page."]
        with self.storage.lock():
            self._store_step(st, step, "consent", answers={"consent": True})
            if st.assignment is None:
                self._assign(st)
        return []

    def _assign(self, st: State) -> None:
        now = self.clock()
        rng = random.Random(secrets.randbits(64))
        others = [] if st.preview else self.storage.records(study=self.study.id)
        plan = assign.plan_assignment(self.study, others, rng=rng, now=now)
        lease_until = now + timedelta(minutes=self.cfg.assignment.lease_minutes)
        self.storage.append(self._record(st.token, "assignment", "assignment", st.preview,
                                         steps=plan, lease_until=iso(lease_until)))

    def _submit_situation(self, st: State, step: Step, answers: Mapping[str, Any]) -> list[str]:
        labels = self.cfg.scale.labels
        given = answers.get("ratings") or {}
        situation = self.study.situation(step.situation_id)
        errors: list[str] = []
        responses = []
        for pos, system in enumerate(step.order, start=1):
            ratings: dict[str, int] = {}
            for crit in self.cfg.criteria:
                value = _rating_value((given.get(system) or {}).get(crit.id), labels)
                if value is None:
                    what = "" if len(self.cfg.criteria) == 1 else f" ({crit.id})"
                    errors.append(f"Please rate response {response_letter(pos)}{what}.")
                else:
                    ratings[crit.id] = value
            text = self.cfg.attention_check.text if (step.attention_check and system == step.instructed_system) else situation.responses[system]
            responses.append({"position": pos, "system": system, "text": text, "ratings": ratings,
                              "instructed": bool(step.attention_check and system == step.instructed_system)})
        if errors:
            return errors
        fields: dict[str, Any] = {}
        if step.attention_check:
            expected = {labels.index(e) + 1 for e in self.cfg.attention_check.expected}
            check = next(r for r in responses if r["instructed"])
            fields["attention_passed"] = all(v in expected for v in check["ratings"].values())
        self._store_step(st, step, "situation", index=step.index, situation_id=step.situation_id,
                         dialog_id=situation.dialog_id, attention_check=step.attention_check,
                         context=[t.to_dict() for t in situation.context], responses=responses, **fields)
        if step.attention_check and not fields["attention_passed"] and self.cfg.quality.on_attention_fail == "screen_out":
            self._complete(self.state(st.token), "screened_out")
        return []

    def _submit_questionnaire(self, st: State, step: Step, answers: Mapping[str, Any]) -> list[str]:
        scale = self.cfg.questionnaire.scale
        values: dict[str, int] = {}
        errors = []
        for n, item in enumerate(self.cfg.questionnaire.items, start=1):
            v = _rating_value(answers.get(item.id), scale)
            if v is None:
                errors.append(f"Please answer statement {n}: {item.text}")
            else:
                values[item.id] = v
        if errors:
            return errors
        fields: dict[str, Any] = {}
        checks = [i for i in self.cfg.questionnaire.items if i.expected is not None]
        if checks:
            fields["attention_passed"] = all(values[i.id] == scale.index(i.expected) + 1 for i in checks)
        self._store_step(st, step, "questionnaire", answers=values, **fields)
        if checks and not fields["attention_passed"] and self.cfg.quality.on_attention_fail == "screen_out":
            self._complete(self.state(st.token), "screened_out")
        return []

    def _submit_demographics(self, st: State, step: Step, answers: Mapping[str, Any]) -> list[str]:
        values: dict[str, str] = {}
        errors = []
        for item in self.cfg.demographics:
            v = answers.get(item.id)
            if v not in item.options:
                errors.append(f"Please answer “{item.text}”.")
            else:
                values[item.id] = v
        if errors:
            return errors
        self._store_step(st, step, "demographics", answers=values)
        return []

    # -- the end -------------------------------------------------------------
    def _complete(self, st: State | None, outcome: str) -> None:
        if st is None or st.complete is not None:
            return
        ended = self.clock()
        started = parse_iso(st.arrival["at"]) if st.arrival else ended
        code = make_participant_code(secrets.SystemRandom(), st.token)
        self.storage.append(self._record(
            st.token, "complete", "complete", st.preview, outcome=outcome, completion_code=code,
            started_at=iso(started), ended_at=iso(ended),
            total_seconds=round((ended - started).total_seconds(), 3)))

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
            kept = {second: arrival["platform_params"][second]} if second in (arrival.get("platform_params") or {}) else {}
            self.storage.purge(token)
            self.storage.append(self._record(  # the session ID stays: the same session sees "withdrawn"
                token, "arrival", "arrival", st.preview, platform=arrival.get("platform"),
                platform_params=kept, platform_id=arrival.get("platform_id"), group=None, tombstone=True))
        return self.storage.append(self._record(
            token, "withdraw", "withdraw", st.preview, reason=reason[:500], delete_requested=delete,
            deleted=delete))
