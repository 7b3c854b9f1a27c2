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
    for sub in subs:
        old = known.get(sub["id"])
        fields = {k: sub.get(k) for k in ("participant_id", "status", "started_at", "completed_at")}
        if session.put("prolific_submission", f"{sub['id']}/{sub['status']}", submission_id=sub["id"], **fields):
            if old is None or old.get("status") != sub["status"]:
                result.changed.append((sub["id"], sub["status"]))
        if sub["status"] in rec.RELEASING:
            _release(session, sub, result)
    session.put(
        "prolific_sync",
        rec.now_iso(now),
        prolific_id=pid,
        submissions=len(subs),
        changed=len(result.changed),
        released=len(result.released),
    )
    return result


def _release(session: Session, sub: dict, result: Synced) -> None:
    arrival = session.storage.arrival_by_platform_id(session.study.id, str(sub["participant_id"]))
    if arrival is None:
        result.unmatched.append(str(sub["participant_id"]))
        return
    token = arrival["participant"]
    if session.storage.append(rec.lease_end(session.study.id, token, sub["id"], sub["status"], session.clock())):
        result.released.append(token)
