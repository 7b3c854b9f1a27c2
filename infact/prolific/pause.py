"""`pause`: pause the Prolific study once its declared stopping rule is met (`[monitoring]`, docs/prolific.md).

Prolific's study transition `PAUSE` (POST /api/v1/studies/{id}/transition/) stops new participants from
starting; those already in the study can finish. It is sent at most once per study: a `prolific_pause` record
is stored before the call and after it, and a rerun that finds the study already PAUSED (by INFACT, or by
the researcher on Prolific) records that and sends nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from infact.prolific.client import expect
from infact.prolific.session import Session
from infact.stores import prolific_records as rec

PAUSABLE = ("ACTIVE", "SCHEDULED", "PUBLISHING")


@dataclass(frozen=True)
class Paused:
    prolific_id: str
    status: str  # the study's status on Prolific after this run
    sent: bool  # whether this run sent the PAUSE transition
    note: str


def pause_once(session: Session, prolific_id: str | None, reasons: list[str]) -> Paused:
    """Pause the study (the stopping rule is met for `reasons`) unless it was paused before."""
    pid = session.prolific_id(prolific_id)
    done = rec.stages(session.records(), "prolific_pause", f"{pid}/")
    study = expect(session.client.get(f"/api/v1/studies/{pid}/"), ("status",), "GET study")
    status = study["status"]
    if status == "PAUSED":
        session.put("prolific_pause", f"{pid}/done", prolific_id=pid, status=status, reasons=reasons)
        how = "by this command before" if "done" in done or "started" in done else "on Prolific"
        return Paused(pid, status, False, f"study {pid} is already PAUSED ({how}); nothing sent")
    if "done" in done:
        return Paused(
            pid,
            status,
            False,
            f"INFACT paused study {pid} once already and it is {status} now (resumed on "
            "Prolific?); nothing sent: pause it on Prolific if you mean to",
        )
    if status not in PAUSABLE:
        return Paused(pid, status, False, f"study {pid} is {status}: only an active study can be paused; nothing sent")
    session.put("prolific_pause", f"{pid}/started", prolific_id=pid, reasons=reasons)
    answer = expect(
        session.client.post(f"/api/v1/studies/{pid}/transition/", {"action": "PAUSE"}), ("status",), "pause"
    )
    session.put("prolific_pause", f"{pid}/done", prolific_id=pid, status=answer["status"], reasons=reasons)
    return Paused(pid, answer["status"], True, f"paused study {pid}: it is {answer['status']}")
