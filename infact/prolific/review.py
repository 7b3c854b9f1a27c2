"""`review`: INFACT's decision for every submission awaiting review, then (with `--apply`) the calls.

A submission is decided by the INFACT session whose SESSION_ID is the submission's id, and only once that
session finished; anything else stays `manual` (a Prolific ID alone is known to others: no submission is
decided on another session's answers). Every decision names the rule it follows (`Decision.rule`).

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
from infact.prolific.sync import Sessions, sessions, sync
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
    rule: str | None = None  # the rule the decision follows (Prolific's, or INFACT's setting)


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


def _quality_by_token(session: Session) -> dict[str, Mapping]:
    """INFACT participant token -> their row of the quality report (flags, reasons, prolific_action)."""
    from infact.results.study_results import open_results

    flags = open_results(session.study, session.storage).tables.flags
    if not len(flags):
        return {}
    flags = flags.astype(object).where(flags.notna(), None)  # a missing reason is None, not NaN
    return {str(row["participant"]): row for row in flags.to_dict("records")}


def plan(session: Session, prolific_id: str | None = None, *, refresh: bool = True) -> Review:
    """What review would do, per submission awaiting review; `refresh` syncs first.

    A submission is matched to the INFACT session whose SESSION_ID is its id (Prolific puts the
    submission's id in the study URL as SESSION_ID), never by the Prolific ID alone: someone who opened
    the study with another person's ID cannot get that person's submission rejected.
    """
    pid = session.prolific_id(prolific_id)
    if refresh:
        sync(session, pid)
    records = session.records()
    quality = _quality_by_token(session)
    known = sessions(session)
    failed = {  # who failed the comprehension check (both attempts): returned, never rejected
        str(r["participant"])
        for r in session.storage.records(study=session.study.id, kind="comprehension")
        if r.get("comprehension_passed") is False and not r.get("preview")
    }
    done = rec.stages(records, "prolific_action", "")
    review = Review()
    for sub in rec.submissions(records).values():
        if sub["status"] != "AWAITING REVIEW":
            continue
        d = _decide(sub, known, quality, failed)
        d.done = f"{d.submission_id}/{d.action}/done" in done
        review.decisions.append(d)
    return review


NO_SESSION = (
    "INFACT decides a submission only on the answers of the session with its SESSION_ID, and there is none: "
    "your decision on Prolific (a session with the same Prolific ID but another SESSION_ID is someone else's)"
)
OTHER_ID = "INFACT decides a submission only on a session with its SESSION_ID and its Prolific ID: your decision"


COMPREHENSION = (
    "Prolific's comprehension-check rule: failed the comprehension check at the start on both attempts, so "
    "screened out and asked to return the submission; never rejected"
)


def _decide(sub: Mapping, known: Sessions, quality: Mapping[str, Mapping], failed: set[str] = frozenset()) -> Decision:
    sid, ppid = str(sub["submission_id"]), str(sub["participant_id"])
    arrival = known.by_session.get(sid.lower())
    shared = known.per_pid.get(ppid.lower(), 0) > 1
    note = f"; {known.per_pid[ppid.lower()]} INFACT sessions used this Prolific ID" if shared else ""
    if arrival is None:
        why = "no INFACT session has this submission's SESSION_ID: check it on Prolific" + note
        return Decision(sid, ppid, "manual", why, rule=NO_SESSION)
    token = str(arrival["participant"])
    if str(arrival.get("platform_id") or "").lower() != ppid.lower():
        why = f"INFACT's session {token} arrived with another Prolific ID ({arrival.get('platform_id')})"
        return Decision(sid, ppid, "manual", why, token, rule=OTHER_ID)
    if token in failed:
        why = "failed the comprehension check twice" + note
        return Decision(sid, ppid, "ask_to_return", why, token, rule=COMPREHENSION)
    q = quality.get(token)
    action = q.get("prolific_action") if q else None
    reasons = list((q or {}).get("reasons") or [])
    why = ("; ".join(reasons) or "no quality flag") + note
    rule = (q or {}).get("prolific_reason")
    setting = f"[quality] prolific_excluded_action = {action}: {rule}"
    if action == "approve":
        return Decision(sid, ppid, "approve", why, token, rule=setting if rule else "INFACT's quality checks: included")
    if action == "eligible_for_rejection":
        message = rejection_message(reasons, rule)
        return Decision(sid, ppid, "reject", why, token, message, rule=f"Prolific's attention-check rule: {rule}")
    if action == "review":  # typed text flagged for review: a person reads it first (never an automatic rejection)
        why = f"{why} ({rule})"
        return Decision(sid, ppid, "manual", why, token, rule="typed text flagged for review: a person decides")
    if action == "ask_to_return":
        return Decision(sid, ppid, "ask_to_return", why, token, rule=setting)
    status = (q or {}).get("status", "unknown")
    why = f"INFACT's session for this submission did not finish (status {status})" + note
    return Decision(sid, ppid, "manual", why, token, rule="only a finished INFACT session decides a submission")


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
            reasons = [r.strip() for r in d.reason.split(";") if r.strip() and "INFACT session" not in r][:5]
            path = f"/api/v1/submissions/{d.submission_id}/request-return/"
            session.client.post(path, {"request_return_reasons": reasons}, safe=False)  # a message: never repeated
            _done(session, review, d)
    return review


def _category(session: Session) -> str:
    return session.study.config.prolific.rejection_category


def _done(session: Session, review: Review, d: Decision) -> None:
    session.put("prolific_action", f"{d.submission_id}/{d.action}/done", submission_id=d.submission_id)
    d.done = True
    review.applied.append((d.submission_id, d.action))
