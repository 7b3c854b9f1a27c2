"""`sync`: read the study's submissions from Prolific into the store, and give back returned places.

Streamlit cannot receive Prolific's webhooks, so INFACT polls: `infact prolific sync`, or the dashboard
section on the researcher's request, never more than once a minute (`MIN_INTERVAL`). Each status a
submission reaches is one record; a RETURNED or TIMED-OUT one also ends that participant's lease
(`records.lease_end`), so their reserved situations go to the next participant at once instead of
when the lease runs out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from infact.prolific.client import MalformedAnswer, expect
from infact.prolific.session import Session
from infact.stores import prolific_records as rec
from infact.study.platform_config import SESSION_PARAM

MIN_INTERVAL = timedelta(minutes=1)
PAGE = 200


@dataclass
class Synced:
    submissions: int = 0
    changed: list[tuple[str, str]] = field(default_factory=list)  # (submission id, new status)
    released: list[str] = field(default_factory=list)  # INFACT participant tokens whose lease ended
    unmatched: list[str] = field(default_factory=list)  # Prolific PIDs with no INFACT arrival
    skipped: bool = False  # polled less than a minute ago
    next_at: datetime | None = None


@dataclass(frozen=True)
class Sessions:
    """INFACT's arrivals as Prolific sees them: SESSION_ID is the id of the submission it became."""

    by_session: dict[str, dict]  # SESSION_ID (lower case) -> the arrival record
    per_pid: dict[str, int]  # Prolific PID (lower case) -> how many sessions arrived with it


def sessions(session: Session) -> Sessions:
    """Every (non-preview) arrival by SESSION_ID, and how many sessions each Prolific ID had."""
    by_session: dict[str, dict] = {}
    per_pid: dict[str, int] = {}
    for r in session.storage.records(study=session.study.id, kind="arrival"):
        if r.get("preview"):
            continue
        sid = (r.get("platform_params") or {}).get(SESSION_PARAM["prolific"])
        if isinstance(sid, str) and sid:
            by_session.setdefault(sid.lower(), r)
        pid = str(r.get("platform_id") or "").lower()
        if pid:
            per_pid[pid] = per_pid.get(pid, 0) + 1
    return Sessions(by_session, per_pid)


def fetch(session: Session, prolific_id: str) -> list[dict]:
    """Every submission of the study (paged), each checked for the fields INFACT reads."""
    out, offset = [], 0
    while True:
        path = f"/api/v1/studies/{prolific_id}/submissions/"
        answer = expect(session.client.get(path, {"limit": PAGE, "offset": offset}), ("results",), f"GET {path}")
        page = answer["results"]
        if not isinstance(page, list):
            raise MalformedAnswer(f"GET {path}: `results` is not a list")
        for sub in page:
            expect(sub, ("id", "participant_id", "status"), f"GET {path}: a submission")
            if sub["status"] not in rec.STATUSES:
                raise MalformedAnswer(f"GET {path}: submission {sub['id']} has unknown status {sub['status']!r}")
        out += page
        if len(page) < PAGE:
            return out
        offset += PAGE


def sync(session: Session, prolific_id: str | None = None, *, force: bool = True) -> Synced:
    """Store what changed since the last sync. `force=False` (the dashboard) polls at most once a minute."""
    now = session.clock()
    records = session.records()
    last = rec.last_sync(records)
    if not force and last is not None and now - last < MIN_INTERVAL:
        return Synced(skipped=True, next_at=last + MIN_INTERVAL)
    pid = session.prolific_id(prolific_id)
    subs = fetch(session, pid)
    known = rec.submissions(records)
    result = Synced(submissions=len(subs))
    known_sessions: Sessions | None = None  # read once, if a submission releases a place
    for sub in subs:
        old = known.get(sub["id"])
        fields = {k: sub.get(k) for k in ("participant_id", "status", "started_at", "completed_at")}
        if session.put("prolific_submission", f"{sub['id']}/{sub['status']}", submission_id=sub["id"], **fields):
            if old is None or old.get("status") != sub["status"]:
                result.changed.append((sub["id"], sub["status"]))
        if sub["status"] in rec.RELEASING:
            known_sessions = known_sessions or sessions(session)
            _release(session, sub, result, known_sessions)
    session.put(
        "prolific_sync",
        rec.now_iso(now),
        prolific_id=pid,
        submissions=len(subs),
        changed=len(result.changed),
        released=len(result.released),
    )
    return result


def _release(session: Session, sub: dict, result: Synced, known: Sessions) -> None:
    """End the lease of the INFACT session this submission is (its SESSION_ID); of the Prolific ID's only session
    only when that one arrived without a SESSION_ID (another SESSION_ID is someone else's place)."""
    arrival = known.by_session.get(str(sub["id"]).lower())
    if arrival is None and known.per_pid.get(str(sub["participant_id"]).lower(), 0) == 1:
        only = session.storage.arrival_by_platform_id(session.study.id, str(sub["participant_id"]))
        if only is not None and not (only.get("platform_params") or {}).get(SESSION_PARAM["prolific"]):
            arrival = only  # a link without SESSION_ID: the Prolific ID is all there is to go by
    if arrival is None:
        result.unmatched.append(str(sub["participant_id"]))
        return
    token = arrival["participant"]
    if session.storage.append(rec.lease_end(session.study.id, token, sub["id"], sub["status"], session.clock())):
        result.released.append(token)
