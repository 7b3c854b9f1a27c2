"""`infact prolific bonus` as the researcher runs it (in this process, on a TinyDB store, against the stub):
each participant is paid once per reason, whatever the CSV, the rule, the name or the rerun; strict input.

What Prolific paid is read from the stub's own record of each submission's `bonus_payments` (cents).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from infact.cli.main import main
from tests.support.prolific import TOKEN, pid, play, prolific_study_folder, session_id


@pytest.fixture
def cli(tmp_path, stub, monkeypatch, request):
    """`cli("bonus", …)` → exit code; the study is created on the stub with submissions for pid(0)…pid(4)."""
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setenv("INFACT_DB", "")
    prolific = getattr(request, "param", {})
    folder = prolific_study_folder(tmp_path, prolific=prolific)
    db = tmp_path / "db"

    def run(action: str, *more: str) -> int:
        return main(["prolific", action, "--study", str(folder), "--db", str(db), "--base-url", stub.url, *more])

    assert run("create") == 0
    (run.prolific_id,) = stub.studies
    for i in range(5):
        stub.add_submission(run.prolific_id, pid(i), "APPROVED", id=session_id(i))  # the SESSION_ID bot i brings
    run.folder, run.db, run.csv = folder, db, tmp_path / "bonus.csv"
    return run


def paid(stub) -> dict[str, list[int]]:
    """Participant (last two hex digits) -> the bonuses Prolific paid them, in cents."""
    return {s["participant_id"][-2:]: s["bonus_payments"] for s in stub.submissions.values() if s["bonus_payments"]}


def bonus(cli, text: str, *more: str) -> int:
    cli.csv.write_text(text, encoding="utf-8")
    return cli("bonus", "--csv", str(cli.csv), *more)


# -- the ledger: owed per participant and reason, paid once ------------------------------------------------


@pytest.mark.parametrize("cli", [{"bonus_per_completed": 0.5}], indirect=True)
def test_an_impostors_completion_earns_the_real_prolific_id_no_bonus(cli, stub, capsys):
    """Someone opened the study with pid(0) and another SESSION_ID and finished it: the rule pays pid(0) only
    once pid(0)'s own session (SESSION_ID = its Prolific submission's id) has finished, and then once."""
    from infact.participation.bots import Bot
    from infact.storage import open_storage
    from infact.study.loader import load_study

    study, storage = load_study(cli.folder), open_storage(str(cli.db))
    own = next(s for s in stub.submissions.values() if s["participant_id"] == pid(0))
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    query = {"PROLIFIC_PID": pid(0), "STUDY_ID": "s" * 24, "SESSION_ID": "9" * 24}
    Bot(study, storage, "attentive", seed=3, start=start, query=query).run()  # the impostor, first
    storage.close()
    assert cli("bonus", "--apply") == 0
    assert paid(stub) == {}
    assert "its SESSION_ID is none of this Prolific ID's submissions" in capsys.readouterr().out
    storage = open_storage(str(cli.db))
    query = {"PROLIFIC_PID": pid(0), "STUDY_ID": "s" * 24, "SESSION_ID": own["id"]}  # session_id(0)
    Bot(study, storage, "attentive", seed=4, start=start, query=query).run()  # the real participant
    storage.close()
    assert cli("bonus", "--apply") == 0
    assert cli("bonus", "--apply") == 0
    assert paid(stub) == {"00": [50]}


@pytest.mark.parametrize("cli", [{"bonus_per_completed": 0.5}], indirect=True)
def test_the_rule_rerun_after_one_more_completion_pays_only_the_newcomer(cli, stub, capsys):
    from infact.participation.bots import Bot
    from infact.storage import open_storage
    from infact.study.loader import load_study

    study, storage = load_study(cli.folder), open_storage(str(cli.db))
    play(study, storage, ["attentive", "attentive"])
    storage.close()
    assert cli("bonus", "--apply") == 0
    assert paid(stub) == {"00": [50], "01": [50]}
    storage = open_storage(str(cli.db))
    query = {"PROLIFIC_PID": pid(2), "STUDY_ID": "s" * 24, "SESSION_ID": f"{2:024d}"}
    Bot(study, storage, "attentive", seed=9, start=datetime(2026, 3, 2, 10, tzinfo=UTC), query=query).run()
    storage.close()
    assert cli("bonus", "--apply") == 0
    assert paid(stub) == {"00": [50], "01": [50], "02": [50]}
    out = capsys.readouterr().out
    assert out.count("already paid") == 2 and "1 participant(s) to pay, 0.50" in out


def test_a_csv_with_a_forgotten_line_added_pays_only_that_line(cli, stub, capsys):
    first = f"{pid(0)},0.50\n{pid(1)},1.00\n"
    assert bonus(cli, first, "--apply") == 0
    assert bonus(cli, first + f"{pid(2)},0.70\n", "--apply") == 0
    assert paid(stub) == {"00": [50], "01": [100], "02": [70]}
    out = capsys.readouterr().out
    assert "bonus.csv:1: skipped 000000000000000000000000: already paid: 0.50 for reason 'bonus'" in out
    assert "bonus.csv:2: skipped" in out and "--reason" in out


def test_a_reused_name_with_another_csv_pays_the_new_people(cli, stub):
    assert bonus(cli, f"{pid(0)},0.50\n", "--name", "X", "--apply") == 0
    assert bonus(cli, f"{pid(1)},0.40\n{pid(2)},0.30\n", "--name", "X", "--apply") == 0
    assert paid(stub) == {"00": [50], "01": [40], "02": [30]}
    assert bonus(cli, f"{pid(0)},0.50\n", "--name", "X", "--apply") == 0
    assert paid(stub)["00"] == [50]


def test_paying_more_on_purpose_needs_a_new_reason(cli, stub, capsys):
    assert bonus(cli, f"{pid(0)},0.50\n", "--apply") == 0
    assert bonus(cli, f"{pid(0)},0.80\n", "--apply") == 0  # the same reason: skipped, says why
    assert paid(stub) == {"00": [50]}
    assert "give a new --reason" in capsys.readouterr().out
    assert bonus(cli, f"{pid(0)},0.80\n", "--reason", "follow-up", "--apply") == 0
    assert paid(stub) == {"00": [50, 80]}
    assert bonus(cli, f"{pid(0)},0.80\n", "--reason", "follow-up", "--apply") == 0
    assert paid(stub) == {"00": [50, 80]}


def test_the_ledger_lists_who_was_paid_what_for_which_reason(cli, stub, capsys):
    assert bonus(cli, f"{pid(0)},0.50\n{pid(1)},1.00\n", "--apply") == 0
    assert bonus(cli, f"{pid(0)},0.20\n", "--reason", "follow-up", "--apply") == 0
    capsys.readouterr()
    assert cli("bonus", "--ledger") == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:4] for line in out[:3]] == [
        [pid(0), "bonus", "0.50", "paid"],
        [pid(0), "follow-up", "0.20", "paid"],
        [pid(1), "bonus", "1.00", "paid"],
    ]
    assert out[3] == "3 ledger line(s); paid 1.70, in flight 0.00"


def test_without_apply_it_shows_the_total_and_prolifics_price_and_pays_nothing(cli, stub, capsys):
    assert bonus(cli, f"{pid(0)},0.50\n{pid(1)},1.00\n") == 0
    out = capsys.readouterr().out
    assert "2 participant(s) to pay, 1.50 before fees" in out and "total 2.00" in out and "--apply" in out
    assert not stub.pay_calls() and not paid(stub)


def test_someone_with_no_submission_in_the_study_is_skipped_not_sent(cli, stub, capsys):
    assert bonus(cli, f"{pid(0)},0.50\n{pid(9)},0.50\n", "--apply") == 0
    assert paid(stub) == {"00": [50]}
    assert "skipped 000000000000000000000009: no submission in Prolific study" in capsys.readouterr().out


def test_bonuses_prolific_lists_beyond_the_ledger_hold_the_line_back(cli, stub, capsys):
    """Paid in Prolific's web app (not through INFACT): INFACT will not pay on top unless told it was for
    something else."""
    sub = next(s for s in stub.submissions.values() if s["participant_id"] == pid(0))
    sub["bonus_payments"].append(50)
    assert bonus(cli, f"{pid(0)},0.50\n", "--apply") == 0
    assert paid(stub) == {"00": [50]}
    assert f"--allow-extra {pid(0)}" in capsys.readouterr().out
    assert bonus(cli, f"{pid(0)},0.50\n", "--allow-extra", pid(0), "--apply") == 0
    assert paid(stub) == {"00": [50, 50]}


# -- strict input: every refused line named, nothing sent ------------------------------------------------


def refused(cli, stub, capsys, text: str | bytes, *more: str) -> list[str]:
    """Run with --apply on `text`; assert it failed before anything was created or paid; the error lines."""
    if isinstance(text, bytes):
        cli.csv.write_bytes(text)
    else:
        cli.csv.write_text(text, encoding="utf-8")
    posts, before = len(stub.calls("POST")), paid(stub)
    assert cli("bonus", "--csv", str(cli.csv), "--apply", *more) == 2
    assert len(stub.calls("POST")) == posts and paid(stub) == before
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()


def test_nan_and_inf_are_refused(cli, stub, capsys):
    err = refused(cli, stub, capsys, f"{pid(0)},nan\n{pid(1)},inf\n{pid(2)},-0.50\n{pid(3)},1e2\n")
    assert [re.search(r"bonus\.csv:(\d+): ", e).group(1) for e in err] == ["1", "2", "3", "4"]
    assert "'nan' is not a finite number" in err[0] and "'inf' is not a finite number" in err[1]
    assert "not above 0" in err[2] and "like 0.50" in err[3]


def test_amounts_with_more_than_two_decimals_are_refused_never_rounded(cli, stub, capsys):
    err = refused(cli, stub, capsys, f"{pid(0)},0.004\n{pid(1)},0.125\n")
    assert len(err) == 2 and all("more than two decimals" in e for e in err)
    assert "bonus.csv:1:" in err[0] and "bonus.csv:2:" in err[1]


def test_one_id_three_times_once_upper_case_is_refused(cli, stub, capsys):
    err = refused(cli, stub, capsys, f"{pid(10)},0.50\n{pid(10)},0.50\n{pid(10).upper()},0.50\n")
    assert len(err) == 2 and all("already on line 1" in e for e in err)
    assert "bonus.csv:2:" in err[0] and "bonus.csv:3:" in err[1]


def test_an_id_cell_a_csv_writer_would_split_is_refused(cli, stub, capsys):
    """One cell holding `ID,99<newline>ID`: INFACT printed one line of 0.50 and Prolific paid 99.50."""
    err = refused(cli, stub, capsys, f'"{pid(0)},99\n{pid(1)}",0.50\n')
    assert len(err) == 1 and "bonus.csv:1:" in err[0] and "split" in err[0]


def test_an_id_that_is_not_a_prolific_id_is_refused(cli, stub, capsys):
    err = refused(cli, stub, capsys, "participant_id,amount\nabc,0.50\n")
    assert len(err) == 1 and "bonus.csv:2:" in err[0] and "24 hexadecimal" in err[0]


def test_a_file_that_is_not_utf8_is_one_error_line(cli, stub, capsys):
    err = refused(cli, stub, capsys, f"{pid(0)},0.50\n".encode() + b"caf\xe9,0.50\n")
    assert len(err) == 1 and "not UTF-8" in err[0] and "bonus.csv" in err[0]


@pytest.mark.parametrize("cli", [{"max_bonus": 2.0}], indirect=True)
def test_the_per_person_cap_counts_every_reason(cli, stub, capsys):
    assert bonus(cli, f"{pid(0)},1.50\n", "--apply") == 0
    err = refused(cli, stub, capsys, f"{pid(1)},0.50\n{pid(0)},0.60\n", "--reason", "more")
    assert paid(stub) == {"00": [150]}
    assert len(err) == 1 and "bonus.csv:2:" in err[0] and "max_bonus = 2.00" in err[0] and "2.10" in err[0]
