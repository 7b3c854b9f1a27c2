"""Fair pay: the effective hourly reward at the median time (Prolific's times after a sync, else INFACT's) against
Prolific's minimum and recommended rates; `bonus --top-up` brings approved participants to the target, once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from infact.cli.main import main
from infact.prolific import fair_pay
from infact.study.platform_config import ProlificConfig
from tests.support.prolific import TOKEN, pid, prolific_study_folder

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def times(minutes: float) -> dict:
    return {"started_at": START.isoformat(), "completed_at": (START + timedelta(minutes=minutes)).isoformat()}


def test_rates_default_to_prolifics_by_currency_and_settings_override_them():
    assert fair_pay.rates(ProlificConfig()) == fair_pay.Rates(600, 900, 600)
    assert fair_pay.rates(ProlificConfig(currency="USD")) == fair_pay.Rates(800, 1200, 800)
    custom = ProlificConfig(min_hourly_reward=7.0, recommended_hourly_reward=10.5, target_hourly_reward=9.0)
    assert fair_pay.rates(custom) == fair_pay.Rates(700, 1050, 900)


def test_the_effective_rate_uses_prolifics_times_when_synced_else_infacts():
    cfg = ProlificConfig(reward_cents=150)  # £1.50
    ours = fair_pay.check(cfg, [], 10.0, 4)  # 10 min: £9.00 an hour, at the recommended rate
    assert (ours.source, ours.hourly, ours.underpays, ours.warning()) == ("INFACT", 900, False, None)
    theirs = fair_pay.check(cfg, [12.0, 20.0, 18.0], 10.0, 4)  # Prolific's median 18 min: £5.00 an hour
    assert (theirs.source, theirs.n, theirs.hourly, theirs.underpays) == ("Prolific", 3, 500, True)
    assert "underpays" in theirs.warning() and "--top-up" in theirs.warning() and "6.00" in theirs.warning()
    between = fair_pay.check(cfg, [12.0], None, 0)  # £7.50: above the minimum, below the recommended rate
    assert not between.underpays and "recommended" in between.warning()
    assert fair_pay.check(cfg, [], None, 0).hourly is None


def test_the_top_up_is_what_reaches_the_target_at_the_median_rounded_up_to_the_cent():
    fair = fair_pay.check(ProlificConfig(reward_cents=90), [20.0], None, 0)  # £2.70/h
    assert fair_pay.owed_per_person(fair, 90) == 110  # £6.00 × 20/60 = £2.00, less the £0.90 reward
    odd = fair_pay.check(ProlificConfig(reward_cents=90), [13.0], None, 0)
    assert fair_pay.owed_per_person(odd, 90) == 40  # £1.30 less £0.90
    odder = fair_pay.check(ProlificConfig(reward_cents=90), [13.01], None, 0)
    assert fair_pay.owed_per_person(odder, 90) == 41  # £1.301: rounded up, never below the minimum


@pytest.fixture
def cli(tmp_path, stub, monkeypatch):
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setenv("INFACT_DB", "")
    folder = prolific_study_folder(tmp_path)  # reward 90 (pence), estimated 3 minutes

    def run(action: str, *more: str) -> int:
        args = ["--study", str(folder), "--db", str(tmp_path / "db"), "--base-url", stub.url]
        return main(["prolific", action, *args, *more])

    assert run("create") == 0
    (run.prolific_id,) = stub.studies
    return run


def paid(stub) -> dict[str, list[int]]:
    return {s["participant_id"][-2:]: s["bonus_payments"] for s in stub.submissions.values() if s["bonus_payments"]}


def test_top_up_pays_each_approved_participant_the_difference_once(cli, stub, capsys):
    for i, (status, minutes) in enumerate([("APPROVED", 20), ("APPROVED", 15), ("AWAITING REVIEW", 25)]):
        stub.add_submission(cli.prolific_id, pid(i), status, **times(minutes))
    assert cli("bonus", "--top-up") == 0
    out = capsys.readouterr().out
    assert "effective reward 2.70 GBP/hour at the median time 20.0 min (Prolific, n = 3)" in out
    assert "1.10 per approved participant" in out and "2 participant(s) to pay, 2.20" in out
    assert not paid(stub)
    assert cli("bonus", "--top-up", "--apply") == 0
    assert paid(stub) == {"00": [110], "01": [110]}  # approved only; the one awaiting review gets it once approved
    stub.submissions[next(k for k, s in stub.submissions.items() if s["participant_id"] == pid(2))]["status"] = (
        "APPROVED"
    )
    assert cli("bonus", "--top-up", "--apply") == 0
    assert paid(stub) == {"00": [110], "01": [110], "02": [110]}
    assert cli("bonus", "--top-up", "--apply") == 0
    assert paid(stub) == {"00": [110], "01": [110], "02": [110]}


def test_a_longer_median_later_is_paid_as_the_difference_under_a_new_reason(cli, stub, capsys):
    stub.add_submission(cli.prolific_id, pid(0), "APPROVED", **times(20))
    assert cli("bonus", "--top-up", "--apply") == 0
    for i in (1, 2):
        stub.add_submission(cli.prolific_id, pid(i), "APPROVED", **times(40))  # median now 40 min: £4.00 due
    assert cli("bonus", "--top-up", "--apply") == 0
    assert paid(stub) == {"00": [110], "01": [310], "02": [310]}
    assert "give a new --reason" in capsys.readouterr().out  # pid(0) has a top-up already
    assert cli("bonus", "--top-up", "--reason", "top-up-2", "--apply") == 0
    assert paid(stub) == {"00": [110, 200], "01": [310], "02": [310]}
