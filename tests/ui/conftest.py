"""Fixtures of the AppTest page tests (the helpers that drive the app are in tests/support/app.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import DEMO_STUDY


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    """A fresh store and the demo study for this test's app runs."""
    db = tmp_path / "db"
    monkeypatch.setenv("INFACT_DB", str(db))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    return db
