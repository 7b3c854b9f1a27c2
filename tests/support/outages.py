"""What a store outage looks like to a participant and in the log (issue 36, item 10): shared by the TinyDB
test (tests/ui/test_store_outage.py) and the PostgreSQL one (tests/stores/test_pg_outage.py)."""

from __future__ import annotations

import logging

from streamlit.testing.v1 import AppTest

from infact.stores.outage import KIND, RESEARCHER
from infact.ui import outage

OUTAGE_LOGGER = "infact.stores.outage"


def assert_paused(at: AppTest, unsent: bool = False) -> None:
    """The page says saving is paused and answers are safe; never a lost session, a restart or a traceback."""
    assert not at.exception, [e.value for e in at.exception]
    warnings = [w.value for w in at.warning]
    assert outage.PAUSED in warnings, warnings
    texts = " ".join(warnings + [e.value for e in at.error] + [m.value for m in at.markdown])
    assert "could not find your session" not in texts and "something went wrong" not in texts, texts
    assert not [b for b in at.button if b.key == "restart"], "offers to start from the beginning"
    assert [b for b in at.button if b.key == "outage_retry"], "no Try again button"
    assert (outage.NOT_SENT in [i.value for i in at.info]) == unsent


def error_lines(caplog, logger: str | None = None) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and (logger is None or r.name == logger)
    ]


def outage_records(storage) -> list[dict]:
    return [r for r in storage.records(participant=RESEARCHER) if r.get("kind") == KIND]
