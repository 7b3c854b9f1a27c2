"""A store that refuses writes (read-only disk, database down), seen by a participant under AppTest.

A submit that could not be stored must say that this answer was not saved and to try again
(never "your answers so far are saved"); a visit that could not be recorded must not keep
anyone from the consent page. The store's writes are made to fail as a read-only file
system fails them (OSError EROFS); reads keep working.
"""

from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from infact.storage import TinyDBStorage
from infact.ui.participant_page import NOT_SAVED

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "streamlit_app.py"
DEMO = REPO / "data" / "demo"
CHECK_TEXT = "I am reading this carefully"


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    db = tmp_path / "db"
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO))
    return db


class ReadOnly:
    """Makes every TinyDB write fail like a read-only mount while on (AppTest runs in this process)."""

    def __init__(self, monkeypatch):
        self.on = False
        self.refused = 0
        real_append, real_many = TinyDBStorage.append, getattr(TinyDBStorage, "append_many", None)

        def guard():
            if self.on:
                self.refused += 1
                raise OSError(errno.EROFS, "Read-only file system")

        def append(store, record):
            guard()
            return real_append(store, record)

        monkeypatch.setattr(TinyDBStorage, "append", append)
        if real_many is not None:

            def append_many(store, records):
                guard()
                return real_many(store, records)

            monkeypatch.setattr(TinyDBStorage, "append_many", append_many)


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def situation_index(at: AppTest) -> int | None:
    keys = [r.key for r in at.radio if r.key and r.key.startswith("situation-")]
    return int(keys[0].split("-")[1]) if keys else None


def rate(at: AppTest) -> None:
    i = situation_index(at)
    for h in at.get("html"):
        m = re.search(r'<span class="infact-letter"[^>]*>Response ([A-Z])</span>', h.proto.body)
        if m:
            value = "Meaningless" if CHECK_TEXT in h.proto.body else "Somewhat meaningful"
            at.radio(key=f"situation-{i}-{m.group(1)}-meaningful").set_value(value)


def give_consent(at: AppTest) -> AppTest:
    at.checkbox(key="consent").check()
    at.button(key="consent_submit").click()
    return run(at)


def test_a_visit_that_cannot_be_recorded_leaves_the_consent_page_working(store, monkeypatch):
    readonly = ReadOnly(monkeypatch)
    readonly.on = True
    at = run(AppTest.from_file(str(APP), default_timeout=60))
    assert readonly.refused >= 1  # the visit record was tried and refused
    assert errors(at) == []  # no error box instead of the consent page
    assert at.checkbox(key="consent") is not None and at.button(key="consent_submit") is not None
    # Consenting cannot be stored either: the participant is told so, not that anything is saved.
    give_consent(at)
    assert errors(at) == [NOT_SAVED] and "p" not in at.query_params
    assert not any("so far are saved" in e for e in errors(at))
    # The store is writable again: pressing the button again starts the study.
    readonly.on = False
    at.button(key="consent_submit").click()
    run(at)
    assert errors(at) == [] and situation_index(at) == 1
    kinds = [r["kind"] for r in TinyDBStorage(store).records()]
    assert "consent" in kinds and "assignment" in kinds


def test_a_submit_that_cannot_be_stored_says_this_answer_was_not_saved(store, monkeypatch):
    readonly = ReadOnly(monkeypatch)
    at = give_consent(run(AppTest.from_file(str(APP), default_timeout=60)))
    assert situation_index(at) == 1
    rate(at)
    readonly.on = True
    at.button(key="submit-situation-1").click()
    run(at)
    assert errors(at) == [NOT_SAVED]
    assert situation_index(at) == 1  # still on the same page, the choices kept for the retry
    token = at.query_params["p"][0] if isinstance(at.query_params["p"], list) else at.query_params["p"]
    assert not [r for r in TinyDBStorage(store).records(participant=token) if r["kind"] == "situation"]
    readonly.on = False
    at.button(key="submit-situation-1").click()  # the same choices, pressed again
    run(at)
    assert errors(at) == [] and situation_index(at) == 2
    assert [r["step"] for r in TinyDBStorage(store).records(participant=token) if r["kind"] == "situation"] == [
        "situation-1"
    ]
