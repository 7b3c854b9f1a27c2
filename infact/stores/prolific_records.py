"""What INFACT stores about its Prolific study: the record kinds, their keys, and reading them back.

Everything lives in the study's ordinary, append-only store (memory, TinyDB, PostgreSQL) under the
reserved participant `_prolific` (tables and exports skip `_…` names). A record's key says what it
is, so appending it twice stores it once, and a rerun can tell what is already done:

  prolific_create    intent/<marker>       before the create call (the marker is the study's internal name)
  prolific_study     <prolific id>         the study Prolific created
  prolific_publish   <id>/started|done     around the publish call
  prolific_submission <sub id>/<STATUS>    each status seen by a sync
  prolific_action    <sub id>/<action>/started|done   around each review call
  prolific_bonus_claim <reason>/<pid>/<gen>  the bonus ledger's claims (infact.prolific.ledger)
  prolific_bonus     <batch>/<stage>       lines, intent-N, created-N, pay_sent-K, unpaid-K, paid, void (ledger)
  prolific_message   <text hash>/<PID>/started-N|done|unsent-N   around each message, per recipient
                                           (older stores: <hash of recipients and text>/started|done)
  prolific_sync      <time>                each sync (the dashboard polls at most once a minute)

A RETURNED or TIMED-OUT submission also writes a `lease_end` record under the participant's own
token: the situation load (infact.participation.assignment / situation_load) ends their lease at
its `lease_until`, so their reserved situations go to the next participant at once.

This module sits in the stores layer (tests/test_layers.py) so participants.csv can show the
Prolific status without importing the client.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

PARTICIPANT = "_prolific"
RELEASING = ("RETURNED", "TIMED-OUT")
STATUSES = (
    "RESERVED",
    "ACTIVE",
    "TIMED-OUT",
    "AWAITING REVIEW",
    "APPROVED",
    "RETURNED",
    "REJECTED",
    "SCREENED OUT",
)
# A submission's status only moves forward; the later one wins when a sync saw several.
_RANK = {
    "RESERVED": 0,
    "ACTIVE": 1,
    "AWAITING REVIEW": 2,
    "SCREENED OUT": 3,
    "TIMED-OUT": 3,
    "RETURNED": 3,
    "APPROVED": 4,
    "REJECTED": 4,
}


def now_iso(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).isoformat()


def record(study: str, kind: str, ident: str, now: datetime | None = None, /, **fields) -> dict:
    """A `_prolific` record of `kind` whose key ends with `ident` (its identity: stored once)."""
    return {
        "key": f"{study}/{PARTICIPANT}/{kind}/{ident}",
        "study": study,
        "participant": PARTICIPANT,
        "kind": kind,
        "at": now_iso(now),
        "preview": False,
        **fields,
    }


def lease_end(study: str, token: str, submission_id: str, status: str, now: datetime | None = None) -> dict:
    """Ends `token`'s lease now: Prolific says the place was returned or timed out."""
    at = now_iso(now)
    return {
        "key": f"{study}/{token}/lease_end/{submission_id}",
        "study": study,
        "participant": token,
        "kind": "lease_end",
        "at": at,
        "preview": False,
        "lease_until": at,
        "reason": f"Prolific submission {submission_id} is {status}",
    }


def of_kind(records: Iterable[Mapping], kind: str) -> list[Mapping]:
    return [r for r in records if r.get("kind") == kind and r.get("participant") == PARTICIPANT]


def study_id(records: Iterable[Mapping]) -> str | None:
    """The Prolific study id recorded by `infact prolific create` (the first one, if several)."""
    found = of_kind(records, "prolific_study")
    return found[0]["prolific_id"] if found else None


def submissions(records: Iterable[Mapping]) -> dict[str, dict]:
    """submission id -> its latest known fields (status, participant_id, started_at, completed_at)."""
    out: dict[str, dict] = {}
    for r in of_kind(records, "prolific_submission"):
        sid = r.get("submission_id")
        old = out.get(sid)
        if old is None or _RANK.get(r.get("status"), -1) >= _RANK.get(old.get("status"), -1):
            out[sid] = dict(r)
    return out


def status_by_platform_id(records: Iterable[Mapping]) -> dict[str, str]:
    """Prolific PID (lower case) -> the latest status of their submission: participants.csv's `prolific_status`."""
    out: dict[str, tuple[str, str]] = {}
    for sub in submissions(records).values():
        pid = str(sub.get("participant_id") or "").strip().lower()
        if not pid:
            continue
        stamp = str(sub.get("started_at") or "")
        if pid not in out or stamp >= out[pid][0]:  # a retake: the newest submission wins
            out[pid] = (stamp, sub["status"])
    return {pid: status for pid, (_, status) in out.items()}


def status_counts(records: Iterable[Mapping]) -> dict[str, int]:
    """How many submissions are in each Prolific status (all statuses listed, zeros included)."""
    counts = dict.fromkeys(STATUSES, 0)
    for sub in submissions(records).values():
        counts[sub["status"]] = counts.get(sub["status"], 0) + 1
    return counts


def last_sync(records: Iterable[Mapping]) -> datetime | None:
    found = last_sync_record(records)
    return datetime.fromisoformat(found["at"]) if found else None


def last_sync_record(records: Iterable[Mapping]) -> Mapping | None:
    """The newest `prolific_sync` record (when, how many submissions, how many changed or were released)."""
    found = [r for r in of_kind(records, "prolific_sync") if r.get("at")]
    return max(found, key=lambda r: r["at"]) if found else None


def stages(records: Iterable[Mapping], kind: str, prefix: str) -> set[str]:
    """The key suffixes stored for records of `kind` whose name starts with `prefix` (what is done)."""
    cut = f"/{PARTICIPANT}/{kind}/{prefix}"
    out = set()
    for r in of_kind(records, kind):
        key = str(r.get("key", ""))
        i = key.find(cut)
        if i >= 0:
            out.add(key[i + len(cut) :])
    return out
