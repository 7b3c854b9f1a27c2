"""The dashboard's progress per between-subjects condition (issue 41 item 2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from infact.participation.bots import Bot, run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_dashboard
from tests.support.paths import REPO

DEMO = REPO / "data" / "demo-conditions"


@pytest.mark.slow  # AppTest of the dashboard: ~15 s on a loaded machine
def test_the_progress_section_shows_each_conditions_completions_and_places(tmp_path, monkeypatch):
    study = load_study(DEMO)
    db = tmp_path / "db"
    storage = TinyDBStorage(db)
    start = datetime.now(UTC) - timedelta(hours=3)
    run_bots(study, storage, 4, strategy="attentive", seed=1, start=start)  # 2 + 2 completed, hours ago
    Bot(study, storage, "abandons", seed=5, start=start, query={"q": "examples"}).run()  # lease long over
    # Holds one: it left 20 minutes ago, within its 30-minute lease (a bot started at the wall clock's now would
    # wait in real time for every page it spends: 3.5 minutes)
    Bot(
        study, storage, "abandons", seed=6, start=datetime.now(UTC) - timedelta(minutes=20), query={"q": "definition"}
    ).run()
    storage.close()
    at = open_dashboard(DEMO, db, monkeypatch, "Progress")
    [table] = [d.value for d in at.dataframe if "condition" in d.value.columns]
    rows = table.set_index("condition")
    assert rows.loc["definition", "completed"] == 2 and rows.loc["examples", "completed"] == 2
    assert rows.loc["definition", "in progress (place held)"] == 1
    assert rows.loc["examples", "abandoned (place given again)"] == 1
