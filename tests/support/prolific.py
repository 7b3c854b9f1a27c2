"""A Prolific study, a crowd that took it, and the matching submissions on the stub (simulations/prolific_stub.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.support.studies import make_study

TOKEN = "tok_SECRET_4f9c2a7d1e"  # a test token: never to appear in any file a run writes
CODE = "C1ABCD23"


def prolific_study_folder(tmp_path: Path, **sections) -> Path:
    """A study on Prolific: short (3 minutes), so one failed attention check makes a submission rejectable."""
    return make_study(
        tmp_path,
        study={"expected_minutes": 3},
        platform={"kind": "prolific", "completion_code": CODE, **sections.pop("platform", {})},
        quality={"prolific_excluded_action": "ask_to_return", **sections.pop("quality", {})},
        prolific={
            "study_url": "https://study.example.org/",
            "places": 6,
            "reward_cents": 90,
            **sections.pop("prolific", {}),
        },
        **sections,
    )


def pid(i: int) -> str:
    return f"{i:024x}"


def session_id(i: int) -> str:
    """The SESSION_ID bot i arrives with: Prolific's id of the submission it becomes."""
    return f"{i:024d}"


def play(study, storage, strategies: list[str], *, seed: int = 1, people: bool = False) -> list[tuple[str, str]]:
    """Bots with Prolific PIDs pid(0), pid(1), …; returns (PID, INFACT token) per bot. `people`: their records are
    written as a person's (no `bot` mark), for what counts people only (fair pay, the expected-time banner)."""
    from infact.participation.bots import Bot
    from tests.support.participants import person_class

    if people:
        Bot = person_class()

    out = []
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for i, strategy in enumerate(strategies):
        query = {"PROLIFIC_PID": pid(i), "STUDY_ID": "s" * 24, "SESSION_ID": session_id(i)}
        result = Bot(study, storage, strategy, seed=seed + i, start=start, query=query).run()
        out.append((pid(i), result.token))
    return out


def submissions(stub, prolific_id: str, statuses: list[str]) -> list[dict]:
    """One stub submission per PID pid(0), pid(1), … with the given statuses (its id: the bot's SESSION_ID)."""
    return [stub.add_submission(prolific_id, pid(i), status, id=session_id(i)) for i, status in enumerate(statuses)]
