"""Messages to chosen participants (e.g. asking one flagged for a fixable problem to return).

One message to several participants is one bulk call. It is recorded before and after the call under
a hash of (recipients, text): a rerun of the same command does not send it again.
"""

from __future__ import annotations

import hashlib

from infact.errors import InfactError, Problem
from infact.prolific.session import Session
from infact.stores import prolific_records as rec


def send(session: Session, recipients: list[str], body: str, prolific_id: str | None = None) -> bool:
    """Send `body` to the Prolific participant ids `recipients`; False when this exact message was sent before."""
    pid = session.prolific_id(prolific_id)
    people = sorted({r.strip() for r in recipients if r and r.strip()})
    text = (body or "").strip()
    if not people:
        raise InfactError(Problem("--to", "name at least one Prolific participant id"))
    if not text:
        raise InfactError(Problem("--text", "the message is empty"))
    name = hashlib.sha256(("\n".join(people) + "\0" + text).encode()).hexdigest()[:16]
    if f"{name}/done" in rec.stages(session.records(), "prolific_message", ""):
        return False
    session.put("prolific_message", f"{name}/started", recipients=people, chars=len(text))
    if len(people) == 1:
        session.client.post("/api/v1/messages/", {"recipient_id": people[0], "study_id": pid, "body": text})
    else:
        session.client.post("/api/v1/messages/bulk/", {"ids": people, "study_id": pid, "body": text})
    session.put("prolific_message", f"{name}/done", recipients=people)
    return True
