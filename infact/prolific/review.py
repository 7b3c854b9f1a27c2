"""`review`: INFACT's decision for every submission awaiting review, then (with `--apply`) the calls.

The decisions are the quality report's (infact.results.quality: `prolific_action`, with the flags'
reasons). Approvals go in one bulk call; a rejection is made only where INFACT's rules call the
submission eligible (Prolific's attention-check rules), with `[prolific] rejection_category` and a
message of at least 100 characters built from the reasons; `ask_to_return` (the study's
`quality.prolific_excluded_action`) asks the participant to return. Each call is recorded before
(`…/started`) and after (`…/done`) it is made: a rerun skips what is done, and resends what was
started but not confirmed — the submission transition is idempotent on Prolific's side, and the
rerun syncs first, so a submission already approved or rejected is no longer awaiting review.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from infact.prolific.client import expect
from infact.prolific.session import Session
from infact.prolific.sync import sync
from infact.stores import prolific_records as rec

MIN_MESSAGE = 100  # Prolific refuses a rejection message shorter than this
REJECT_TAIL = (
    " Under Prolific's rules a submission may be rejected after failed attention checks; if you think this is "
    "a mistake, please message the researcher through Prolific."
)


@dataclass
class Decision:
    submission_id: str
    participant_id: str
    action: str  # approve, reject, ask_to_return, manual
    reason: str
    token: str | None = None
    message: str | None = None  # a rejection's message
    done: bool = False  # recorded as done by an earlier run


@dataclass
class Review:
    decisions: list[Decision] = field(default_factory=list)
    applied: list[tuple[str, str]] = field(default_factory=list)  # (submission id, action)

    def by_action(self, action: str) -> list[Decision]:
        return [d for d in self.decisions if d.action == action]


def rejection_message(reasons: list[str], rule: str | None) -> str:
    """At least 100 characters, from the flags' reasons (the participant reads it)."""
    text = "Your submission was rejected: " + "; ".join(reasons or ["failed attention checks"]) + "."
    if rule:
        text += f" ({rule.split(';')[0]})."
    if len(text) < MIN_MESSAGE:
        text += REJECT_TAIL
    return text[:1500]


def _quality_by_pid(session: Session) -> dict[str, Mapping]:
    """Prolific PID (lower case) -> the participant's row of the quality report, with their token."""
    from infact.results.study_results import open_results

    tables = open_results(session.study, session.storage).tables
    people = tables.participants
    if not len(people) or not len(tables.flags):
        return {}
    flags = tables.flags.set_index("participant")
    out = {}
    for row in people.itertuples():
        pid = getattr(row, "platform_id", None)
        if isinstance(pid, str) and pid and row.participant in flags.index:
            out[pid.lower()] = {"token": row.participant, **flags.loc[row.participant].to_dict()}
    return out


def plan(session: Session, prolific_id: str | None = None, *, refresh: bool = True) -> Review:
    """What review would do, per submission awaiting review; `refresh` syncs first."""
    pid = session.prolific_id(prolific_id)
    if refresh:
        sync(session, pid)
    records = session.records()
    quality = _quality_by_pid(session)
    done = rec.stages(records, "prolific_action", "")
    review = Review()
    for sub in rec.submissions(records).values():
        if sub["status"] != "AWAITING REVIEW":
            continue
        d = _decide(sub, quality.get(str(sub["participant_id"]).lower()), session)
        d.done = f"{d.submission_id}/{d.action}/done" in done
        review.decisions.append(d)
    return review


def _decide(sub: Mapping, q: Mapping | None, session: Session) -> Decision:
    sid, ppid = sub["submission_id"], str(sub["participant_id"])
    if q is None:
        return Decision(sid, ppid, "manual", "no INFACT participant with this Prolific ID: check it on Prolific")
    action, reasons = q.get("prolific_action"), list(q.get("reasons") or [])
    why = "; ".join(reasons) or "no quality flag"
    if action == "approve":
        return Decision(sid, ppid, "approve", why, q["token"])
    if action == "eligible_for_rejection":
        message = rejection_message(reasons, q.get("prolific_reason"))
        return Decision(sid, ppid, "reject", f"{why} ({q.get('prolific_reason')})", q["token"], message)
    if action == "review":  # typed text flagged for review: a person reads it first (never an automatic rejection)
        return Decision(sid, ppid, "manual", f"{why} ({q.get('prolific_reason')})", q["token"])
    if action == "ask_to_return":
        return Decision(sid, ppid, "ask_to_return", f"{why} ({q.get('prolific_reason')})", q["token"])
    return Decision(sid, ppid, "manual", f"INFACT has no finished run for it (status {q.get('status')})", q["token"])


def apply(session: Session, review: Review, prolific_id: str | None = None) -> Review:
    """Make the calls of `review` that are not recorded as done."""
    session.prolific_id(prolific_id)  # a study INFACT created (or the id given), else a clear error
    todo = [d for d in review.decisions if not d.done and d.action != "manual"]
    approve = [d for d in todo if d.action == "approve"]
    if approve:
        for d in approve:
            session.put("prolific_action", f"{d.submission_id}/approve/started", submission_id=d.submission_id)
        ids = [d.submission_id for d in approve]
        # The reference's two variants are (study_id + participant_ids) or submission_ids, the one it recommends
        session.client.post("/api/v1/submissions/bulk-approve/", {"submission_ids": ids})
        for d in approve:
            _done(session, review, d)
    for d in todo:
        if d.action == "reject":
            session.put("prolific_action", f"{d.submission_id}/reject/started", submission_id=d.submission_id)
            body = {"action": "REJECT", "message": d.message, "rejection_category": _category(session)}
            expect(session.client.post(f"/api/v1/submissions/{d.submission_id}/transition/", body), ("id",), "reject")
            _done(session, review, d)
        elif d.action == "ask_to_return":
            session.put("prolific_action", f"{d.submission_id}/ask_to_return/started", submission_id=d.submission_id)
            reasons = [r.strip() for r in d.reason.split(";") if r.strip()][:5]
            path = f"/api/v1/submissions/{d.submission_id}/request-return/"
            session.client.post(path, {"request_return_reasons": reasons})
            _done(session, review, d)
    return review


def _category(session: Session) -> str:
    return session.study.config.prolific.rejection_category


def _done(session: Session, review: Review, d: Decision) -> None:
    session.put("prolific_action", f"{d.submission_id}/{d.action}/done", submission_id=d.submission_id)
    d.done = True
    review.applied.append((d.submission_id, d.action))
