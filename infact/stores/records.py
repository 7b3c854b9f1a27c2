"""What every backend shares: the record rules, the storage error, and small helpers.

Kept apart from `infact.storage` (the protocol and `open_storage`) so the backends
import this module and `infact.storage` imports the backends: no import cycle.
"""

from __future__ import annotations

import json
import re

from infact.errors import InfactError, Problem

REQUIRED_FIELDS = ("key", "study", "participant", "kind")
# A participant token is also a file name in the TinyDB store.
PARTICIPANT_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,80}$")


class StorageError(InfactError):
    """The store cannot be opened or a record is malformed."""


class StoreUnavailable(StorageError):
    """The store cannot be reached right now (the database server is down or unreachable, a disk error):
    what is stored is safe, and the same request may succeed once it is back (infact/stores/outage.py)."""


def check_record(record: dict) -> None:
    missing = [f for f in REQUIRED_FIELDS if not record.get(f)]
    if missing:
        raise StorageError(
            Problem("record", f"missing field(s) {', '.join(missing)}; every record needs {', '.join(REQUIRED_FIELDS)}")
        )
    if not PARTICIPANT_NAME.match(str(record["participant"])):
        raise StorageError(
            Problem(
                "record",
                f"participant token {record['participant']!r} must be 1-80 letters, digits, '-' or '_'",
                key="participant",
            )
        )
    try:
        json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StorageError(Problem("record", f"not JSON-serialisable: {exc}", key=str(record.get("key")))) from exc


def matches(rec: dict, study: str | None, participant: str | None, kind: str | None) -> bool:
    return (
        (study is None or rec.get("study") == study)
        and (participant is None or rec.get("participant") == participant)
        and (kind is None or rec.get("kind") == kind)
    )


def copy_record(obj):
    """Copy of JSON-shaped data (dicts, lists, scalars) — several times faster than deepcopy."""
    if isinstance(obj, dict):
        return {k: copy_record(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [copy_record(v) for v in obj]
    return obj


def platform_key(platform_id: object) -> str | None:
    """How arrivals are indexed by platform ID: letter case ignored (issue 10 item 10:
    IDs that differ only in case are one participant). None when there is no ID."""
    if platform_id is None:
        return None
    text = str(platform_id).strip().lower()
    return text or None


def indexed_arrival(record: dict) -> str | None:
    """The platform key under which `record` is indexed, or None (not an arrival with an ID,
    or a preview, which never resumes anyone)."""
    if record.get("kind") != "arrival" or record.get("preview"):
        return None
    return platform_key(record.get("platform_id"))
