"""The dashboard warns while a Prolific study underpays (AppTest): INFACT's median time first, Prolific's own
times once a sync has stored them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from infact.storage import TinyDBStorage
from infact.stores import prolific_records as rec
from infact.study.loader import load_study
from tests.support.dashboard_pages import open_dashboard
from tests.support.prolific import pid, play, prolific_study_folder


@pytest.mark.slow  # an AppTest dashboard over bot-played participants, twice
def test_the_dashboard_warns_while_the_study_underpays(tmp_path, monkeypatch):
    folder = prolific_study_folder(tmp_path, prolific={"reward_cents": 5})  # 5p for a study of minutes
    study, storage = load_study(folder), TinyDBStorage(tmp_path / "db")
    play(study, storage, ["attentive", "attentive", "attentive"], people=True)  # fair pay counts people
    at = open_dashboard(folder, tmp_path / "db", monkeypatch)
    errors = [e.value for e in at.error]
    assert any("This study underpays" in e and "(INFACT, n = 3)" in e and "--top-up" in e for e in errors), errors
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for i in range(3):  # a sync saw Prolific's own times: 20 seconds each, so 5p is £9.00 an hour, the recommended rate
        fields = {"participant_id": pid(i), "status": "APPROVED", "started_at": start.isoformat()}
        fields["completed_at"] = (start + timedelta(seconds=20)).isoformat()
        storage.append(
            rec.record(study.id, "prolific_submission", f"s{i}/APPROVED", start, submission_id=f"s{i}", **fields)
        )
    storage.close()
    at.run()
    assert not any("underpays" in e.value for e in at.error)
    shown = " ".join(c.value for c in at.caption)
    assert "Fair pay: effective reward 9.00 GBP/hour at the median time 0.3 min (Prolific, n = 3)" in shown, shown
