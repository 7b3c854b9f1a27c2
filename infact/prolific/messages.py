"""Messages to chosen participants (e.g. asking one flagged for a fixable problem to return): each reaches
each recipient once.

Prolific's message calls are not idempotent: a call received twice delivers two copies. So a message is
recorded per recipient, under a hash of its text, **before** the call (`<hash>/<pid>/started-N`) and after
Prolific confirms it (`<hash>/<pid>/done`), and the client never repeats the call itself (`safe=False`: no
retry after a 5xx or a timeout, which may come after the message was delivered). Then:

- a rerun, or the same text sent to a larger group, skips everyone it already reached;
- a call Prolific did not confirm (5xx, no answer in time, the run killed) leaves its recipients
  *unconfirmed*: they are never sent the message again blindly. The run stops and names them; check the
  conversation in Prolific, then rerun with `--confirm-sent` (it arrived) or `--confirm-unsent` (it did not:
  it is sent now);
- a call Prolific refused (4xx: nothing was delivered) is recorded as not sent, and a rerun sends it.

Several recipients still go in one bulk call (`/api/v1/messages/bulk/`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from infact.errors import InfactError, Problem
from infact.prolific.client import ProlificError, Unavailable
from infact.prolific.session import Session
from infact.stores import prolific_records as rec

KIND = "prolific_message"


@dataclass
class Sent:
    """What one `send` did, per recipient."""

    sent: list[str] = field(default_factory=list)  # delivered by this run
    already: list[str] = field(default_factory=list)  # confirmed by an earlier run: not sent again
    confirmed: list[str] = field(default_factory=list)  # marked sent or unsent by the researcher in this run


class Unconfirmed(InfactError):
    """The message may have reached these recipients: Prolific did not confirm it. Never resent blindly."""

    def __init__(self, recipients: list[str], why: str):
        self.recipients = recipients
        super().__init__(
            Problem(
                "--to",
                f"the message may already have reached {', '.join(recipients)} ({why}), so it is not sent again. "
                "Check the conversation in Prolific, then rerun the same command with --confirm-sent (it arrived) "
                "or --confirm-unsent (it did not: it is sent then)",
            )
        )


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _status(records: Iterable[Mapping], name: str, people: list[str]) -> dict[str, tuple[bool, int, int]]:
    """pid -> (done, attempts started, attempts confirmed unsent) for message `name`."""
    stages = rec.stages(records, KIND, f"{name}/")
    out = {}
    for pid in people:
        started = sum(1 for s in stages if s.startswith(f"{pid}/started-"))
        unsent = sum(1 for s in stages if s.startswith(f"{pid}/unsent-"))
        out[pid] = (f"{pid}/done" in stages, started, unsent)
    return out


def _legacy_done(records: Iterable[Mapping], people: list[str], text: str) -> bool:
    """A message sent before per-recipient records: one record per (recipients, text)."""
    old = hashlib.sha256(("\n".join(people) + "\0" + text).encode()).hexdigest()[:16]
    return f"{old}/done" in rec.stages(records, KIND, "")


def send(
    session: Session,
    recipients: list[str],
    body: str,
    prolific_id: str | None = None,
    *,
    confirm_sent: bool = False,
    confirm_unsent: bool = False,
) -> Sent:
    """Send `body` to the Prolific participant ids `recipients`, each at most once (see the module's text)."""
    pid = session.prolific_id(prolific_id)
    people = sorted({r.strip() for r in recipients if r and r.strip()})
    text = (body or "").strip()
    if not people:
        raise InfactError(Problem("--to", "name at least one Prolific participant id"))
    if not text:
        raise InfactError(Problem("--text", "the message is empty"))
    if confirm_sent and confirm_unsent:
        raise InfactError(Problem("--confirm-sent", "give --confirm-sent or --confirm-unsent, not both"))
    name, records, result = text_hash(text), session.records(), Sent()
    if _legacy_done(records, people, text):
        result.already = people
        return result
    status = _status(records, name, people)
    unconfirmed = [p for p, (done, started, unsent) in status.items() if not done and started > unsent]
    for p in unconfirmed if confirm_sent or confirm_unsent else ():
        stage = "done" if confirm_sent else f"unsent-{status[p][2] + 1}"
        session.put(KIND, f"{name}/{p}/{stage}", recipient=p, by="researcher")
        result.confirmed.append(p)
    if unconfirmed and not (confirm_sent or confirm_unsent):
        raise Unconfirmed(unconfirmed, "an earlier run sent it and Prolific did not confirm")
    status = _status(session.records(), name, people)
    result.already = [p for p in people if status[p][0] and p not in result.confirmed]
    todo = [p for p in people if not status[p][0]]
    if todo:
        _deliver(session, pid, name, text, todo, status)
        result.sent = todo
    return result


def _deliver(session: Session, pid: str, name: str, text: str, todo: list[str], status: Mapping) -> None:
    """One call for `todo`, recorded before (started) and after (done, or unsent when Prolific refused it)."""
    for p in todo:
        session.put(KIND, f"{name}/{p}/started-{status[p][1] + 1}", recipient=p, chars=len(text))
    try:
        if len(todo) == 1:
            payload = {"recipient_id": todo[0], "study_id": pid, "body": text}
            session.client.post("/api/v1/messages/", payload, safe=False)
        else:
            session.client.post("/api/v1/messages/bulk/", {"ids": todo, "study_id": pid, "body": text}, safe=False)
    except Unavailable as exc:
        if exc.maybe_done:
            raise Unconfirmed(todo, f"Prolific did not confirm it: {exc.problems[0].message}") from None
        _unsent(session, name, todo, status)
        raise
    except ProlificError:  # refused (4xx): nothing was delivered, a rerun may send it
        _unsent(session, name, todo, status)
        raise
    for p in todo:
        session.put(KIND, f"{name}/{p}/done", recipient=p)


def _unsent(session: Session, name: str, todo: list[str], status: Mapping) -> None:
    for p in todo:
        session.put(KIND, f"{name}/{p}/unsent-{status[p][2] + 1}", recipient=p, by="refused")
