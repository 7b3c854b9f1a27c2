"""The dashboard's Judges section says how many of each judge's answers were usable (issue 29, item 10)."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from infact.participation.bots import run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_dashboard
from tests.support.paths import DEMO_STUDY


@pytest.mark.slow  # 4.0 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_the_judges_table_shows_usable_of_total_and_warns_when_few_are(tmp_path, monkeypatch):
    study_dir = tmp_path / "study"
    shutil.copytree(DEMO_STUDY, study_dir)
    study = load_study(study_dir)
    db = tmp_path / "db"
    run_bots(study, TinyDBStorage(db), 8, strategy="attentive", seed=2)
    (study_dir / "judges").mkdir()
    quality = {"CineMate": 4, "FlickBot": 3, "ReelTalk": 2}
    rows = [
        {"situation_id": s.situation_id, "system": name, "criterion": "meaningful", "score": quality[name]}
        for s in study.situations
        for name in study.systems
    ]
    pd.DataFrame(rows).to_csv(study_dir / "judges" / "planted.csv", index=False)
    raw = [{"key": f"k{i}", "criterion": "meaningful", "label": "Meaningful"} for i in range(len(rows))]
    raw += [
        {"key": f"u{i}", "criterion": "meaningful", "label": None, "status": "unparseable"} for i in range(len(rows))
    ]
    (study_dir / "judges" / "planted.raw.jsonl").write_text("".join(json.dumps(r) + "\n" for r in raw))
    at = open_dashboard(study_dir, db, monkeypatch, "Judges")
    row = at.dataframe[0].value.set_index("judge").loc["planted"]
    assert row["usable answers"] == f"{len(rows)} of {2 * len(rows)}"
    assert any("only 50% of planted's answers are usable" in w.value for w in at.warning)
