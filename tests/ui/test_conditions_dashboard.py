"""The dashboard's progress and ranking per between-subjects condition (issue 41 item 2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from infact.participation.bots import Bot, run_bots
from infact.storage import TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import open_dashboard
from tests.support.paths import REPO
from tests.support.studies import pairwise_with_two_conditions

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


@pytest.mark.slow  # AppTest of the dashboard
def test_the_ranking_section_ranks_each_condition_and_tests_condition_by_system(tmp_path, monkeypatch):
    folder = pairwise_with_two_conditions(tmp_path / "pairwise")
    study = load_study(folder)
    db = tmp_path / "db"
    storage = TinyDBStorage(db)
    run_bots(study, storage, 12, strategy="attentive", seed=2, start=datetime.now(UTC) - timedelta(hours=3))
    storage.close()
    at = open_dashboard(folder, db, monkeypatch, "Ranking")
    assert "Ranking per condition" in [h.value for h in at.subheader]
    [table] = [d.value for d in at.dataframe if "condition" in d.value.columns]
    assert set(table["condition"]) == {"short", "long"}
    assert set(table["system"]) == set(study.systems) and len(table) == 2 * len(study.systems)
    assert (table.groupby("condition")["participants"].first() == 6).all()
    assert any("Condition × system" in c.value and "df, p = " in c.value for c in at.caption)
