"""Visits to the study page: counted honestly, stored apart from participants.

Nothing about a participant is stored before consent, yet the funnel's *visited* must
say how many opened the link, not only how many consented. So each visit stores one
small record under its own researcher-style name `_v<visit id>` (tables, exports,
analysis and the participant's own state skip `_…` names): the visit id and the time —
no platform ID, no answers. At consent a second record in the same place names the
participant the visit became; it sits with the visit, not in the participant's file,
so a withdrawal with deletion does not turn that participant into a second visitor.

One visit is one browser (a cookie the page sets, so Back, Forward and a reload are the
same visit) or, with a platform, one platform session (ID + SESSION_ID / assignmentId,
hashed: the same session on a second device is still one visit). A signed-in
researcher's preview stores none. The funnel counts them in infact.results.quality.funnel
(`funnel_counts`, `visits_table`): visited = participants + visits that never consented.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime

from infact.participation.flow import iso
from infact.participation.platforms import Arrival
from infact.storage import Storage
from infact.study.loader import Study

COOKIE_MAX_AGE = 24 * 3600  # a visit remembered by the browser for a day
VISIT_ID = re.compile(r"^[bs][0-9a-f]{24}$")


def cookie_name(study: Study) -> str:
    return f"infact-{study.id}-visit"


def visit_id(study: Study, arrival: Arrival, remembered: str | None) -> str:
    """The id of this visit: the platform session's (hashed), else the one this browser
    remembers (cookie), else a new one."""
    if arrival.platform_id and arrival.session_id:
        text = f"{study.id}\0{arrival.platform_id.casefold()}\0{arrival.session_id.casefold()}"
        return "s" + hashlib.sha256(text.encode()).hexdigest()[:24]
    if isinstance(remembered, str) and VISIT_ID.match(remembered):
        return remembered
    return "b" + secrets.token_hex(12)


def _record(study: Study, visit: str, at: datetime, became: str | None) -> dict:
    rec = {"key": f"{study.id}/visit/{visit}" + (f"/{became}" if became else ""), "study": study.id,
           "dataset_version": study.dataset_version, "participant": f"_v{visit}", "kind": "visit",
           "at": iso(at), "preview": False, "visit": visit}
    return {**rec, "became": became} if became else rec


def store_visit(storage: Storage, study: Study, visit: str, at: datetime) -> bool:
    """Store the visit (once: its key makes a second store of the same visit a no-op)."""
    return storage.append(_record(study, visit, at, None))


def store_consent(storage: Storage, study: Study, visit: str, participant: str, at: datetime) -> bool:
    """The visit became `participant` by consenting."""
    return storage.append(_record(study, visit, at, participant))
