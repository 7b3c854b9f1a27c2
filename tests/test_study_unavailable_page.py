"""A broken study shows participants a calm page without server paths; the details go to the log."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parents[1]


def test_broken_study_page_shows_no_paths_and_logs_the_problems(tmp_path, monkeypatch, caplog):
    folder = tmp_path / "secret-server-folder"
    shutil.copytree(REPO / "data" / "demo", folder)
    toml = folder / "study.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('situation = "demo-05-t3"', 'situation = "missing-t1"'), encoding="utf-8")
    monkeypatch.setenv("INFACT_STUDY", str(folder))
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    with caplog.at_level(logging.ERROR, logger="infact"):
        at.run()
    assert not at.exception
    page = " ".join(str(getattr(e, "value", "")) for e in at.main)
    assert "not available" in " ".join(t.value for t in at.title) and "try again later" in page
    assert "secret-server-folder" not in page and str(tmp_path) not in page and "missing-t1" not in page
    assert "missing-t1" in caplog.text and str(toml) in caplog.text
