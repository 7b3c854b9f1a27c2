"""A broken study shows participants a calm page without server paths; the details go to the log."""

from __future__ import annotations

import logging
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.support.studies import copy_study

REPO = Path(__file__).resolve().parents[2]


def test_broken_study_page_shows_no_paths_and_logs_the_problems(tmp_path, monkeypatch, caplog):
    # the demo study, broken the way a researcher might break it (make_study would write a valid one)
    folder = copy_study(
        REPO / "data" / "demo",
        tmp_path / "secret-server-folder",
        {'situation = "demo-05-t3"': 'situation = "missing-t1"'},
    )
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    with caplog.at_level(logging.ERROR, logger="infact"):
        at.run()
    assert not at.exception
    page = " ".join(str(getattr(e, "value", "")) for e in at.main)
    assert "not available" in " ".join(t.value for t in at.title) and "try again later" in page
    assert "secret-server-folder" not in page and str(tmp_path) not in page and "missing-t1" not in page
    assert "missing-t1" in caplog.text and str(folder / "study.toml") in caplog.text
