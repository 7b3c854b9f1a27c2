"""`create` (a draft study from study.toml, once) and `publish` (only with the researcher's explicit yes).

No duplicate on a rerun: before the create call, an intent record stores a marker that becomes the
study's `internal_name`. A rerun that finds the study id recorded does nothing; one that finds only
the intent (the last run stopped during the call) looks for a study with that internal name on
Prolific before creating anything.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from infact.errors import InfactError, Problem
from infact.prolific.client import WrongState, expect
from infact.prolific.session import Session
from infact.stores import prolific_records as rec
from infact.study.loader import Study

URL_PARAMS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"


def external_url(base: str) -> str:
    """The study URL with Prolific's three placeholders (the names INFACT's arrival reads)."""
    return f"{base}{'&' if '?' in base else '?'}{URL_PARAMS}"


def completion_codes(study: Study) -> list[dict]:
    """Completed, and failed attention (where the study screens out) or screened out, as Prolific codes."""
    platform, quality = study.config.platform, study.config.quality
    codes = [{"code": platform.completion_code, "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}]
    if platform.screenout_code:
        kind = "FAILED_ATTENTION_CHECK" if quality.on_attention_fail == "screen_out" else "SCREENED_OUT"
        codes.append({"code": platform.screenout_code, "code_type": kind, "actions": [{"action": "MANUALLY_REVIEW"}]})
    return codes


def _description(study: Study) -> str:
    cfg = study.config.prolific
    if cfg.description:
        return cfg.description
    first = re.split(r"\n\s*\n", study.config.texts.welcome.strip())[0]
    return re.sub(r"[#*_`>]", "", first).strip() or study.config.study.title


def study_payload(study: Study, internal_name: str) -> dict:
    """The body of POST /api/v1/studies/ (a draft: Prolific creates every study UNPUBLISHED)."""
    cfg, where = study.config.prolific, "study.toml"
    if study.config.platform.kind != "prolific" or not study.config.platform.completion_code:
        raise InfactError(
            Problem(where, 'set [platform] kind = "prolific" and completion_code before creating it on Prolific')
        )
    if not cfg.study_url:
        raise InfactError(
            Problem(
                where, "set [prolific] study_url to the app's public address (participants open it)", key="study_url"
            )
        )
    return {
        "name": cfg.name or study.config.study.title,
        "internal_name": internal_name,
        "description": _description(study),
        "external_study_url": external_url(cfg.study_url),
        "prolific_id_option": "url_parameters",
        "completion_codes": completion_codes(study),
        "total_available_places": cfg.places,
        "reward": cfg.reward_cents,
        "estimated_completion_time": max(1, round(study.config.study.expected_minutes)),
        "device_compatibility": list(cfg.devices),
    }


def describe(payload: dict) -> list[str]:
    """What `create` will ask for, line by line, before it asks."""
    codes = ", ".join(f"{c['code_type']}={c['code']}" for c in payload["completion_codes"])
    return [
        f"name:          {payload['name']}",
        f"description:   {payload['description'][:200]}",
        f"study URL:     {payload['external_study_url']}",
        f"codes:         {codes}",
        f"places:        {payload['total_available_places']}",
        f"reward:        {payload['reward']} (cents) per submission",
        f"est. minutes:  {payload['estimated_completion_time']}",
        f"devices:       {', '.join(payload['device_compatibility'])}",
    ]


@dataclass
class Created:
    prolific_id: str
    new: bool  # False: it was created before (rerun), nothing was sent


def create(session: Session) -> Created:
    """Create the draft once; a rerun returns the recorded id."""
    records = session.records()
    known = rec.study_id(records)
    if known:
        return Created(known, False)
    intents = rec.stages(records, "prolific_create", "intent/")
    marker = sorted(intents)[0] if intents else f"infact-{session.study.id}-{uuid.uuid4().hex[:8]}"
    payload = study_payload(session.study, marker)
    if intents:  # the last run stopped during the call: did Prolific create it?
        listed = session.client.get("/api/v1/studies/")
        for s in expect(listed, ("results",), "GET /api/v1/studies/")["results"]:
            if isinstance(s, dict) and s.get("internal_name") == marker and s.get("id"):
                session.put("prolific_study", s["id"], prolific_id=s["id"], internal_name=marker)
                return Created(s["id"], False)
    else:
        session.put("prolific_create", f"intent/{marker}", internal_name=marker)
    answer = expect(session.client.post("/api/v1/studies/", payload), ("id",), "POST /api/v1/studies/")
    session.put("prolific_study", answer["id"], prolific_id=answer["id"], internal_name=marker)
    return Created(answer["id"], True)


def publish(session: Session, prolific_id: str | None, *, yes: bool) -> str:
    """Publish the draft (participants can start, and the workspace is charged): needs `yes`."""
    pid = session.prolific_id(prolific_id)
    if not yes:
        raise InfactError(
            Problem("--yes", f"publishing study {pid} opens it to participants and charges the workspace; add --yes")
        )
    study = expect(session.client.get(f"/api/v1/studies/{pid}/"), ("status",), "GET study")
    if study["status"] != "UNPUBLISHED":
        raise WrongState(f"study {pid} is {study['status']}, not UNPUBLISHED (a draft): it cannot be published again")
    session.put("prolific_publish", f"{pid}/started", prolific_id=pid)
    answer = expect(
        session.client.post(f"/api/v1/studies/{pid}/transition/", {"action": "PUBLISH"}), ("status",), "publish"
    )
    session.put("prolific_publish", f"{pid}/done", prolific_id=pid, status=answer["status"])
    return answer["status"]
