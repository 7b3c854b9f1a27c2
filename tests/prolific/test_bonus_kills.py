"""The pay call is not idempotent: `infact prolific bonus --apply` killed at each point between (and during) its
calls, then run again, sends exactly one pay call per paid bulk bonus — counted in the stub's log; and two
`--apply` processes at once on one store pay each participant once.

Each bonus run is a real process (`python -m infact`) on a TinyDB store; the stub kills it with SIGKILL when a
call arrives, before or after carrying it out.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from infact.cli.main import main
from tests.support.paths import REPO
from tests.support.prolific import TOKEN, pid, prolific_study_folder

pytestmark = pytest.mark.slow

CREATE, PAY = "/submissions/bonus-payments/$", "/pay/$"


@pytest.fixture
def cli(tmp_path, stub, monkeypatch):
    folder = prolific_study_folder(tmp_path)
    db = tmp_path / "db"
    csv = tmp_path / "bonus.csv"
    csv.write_text(f"{pid(0)},0.50\n{pid(1)},1.00\n")
    env = {**os.environ, "PROLIFIC_TOKEN": TOKEN, "INFACT_DB": "", "PYTHONPATH": str(REPO)}

    def run(*extra: str) -> subprocess.CompletedProcess:
        args = ["--study", str(folder), "--db", str(db), "--base-url", stub.url]
        cmd = [sys.executable, "-m", "infact", "prolific", *extra[:1], *args, *extra[1:]]
        stub.victim = None
        proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stub.victim = proc.pid
        out, err = proc.communicate(timeout=120)
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    # The study is created in this process: no kill is set for it, and a process start costs seconds here.
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setenv("INFACT_DB", "")
    assert main(["prolific", "create", "--study", str(folder), "--db", str(db), "--base-url", stub.url]) == 0
    (prolific_id,) = stub.studies
    for i in range(2):
        stub.add_submission(prolific_id, pid(i), "APPROVED")
    run.bonus = lambda *more: run("bonus", "--csv", str(csv), *more)
    run.start = lambda: subprocess.Popen(
        [
            sys.executable,
            "-m",
            "infact",
            "prolific",
            "bonus",
            "--study",
            str(folder),
            "--db",
            str(db),
            "--base-url",
            stub.url,
            "--csv",
            str(csv),
            "--apply",
        ],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return run


def paid(stub) -> dict[str, list[int]]:
    return {s["participant_id"][-2:]: s["bonus_payments"] for s in stub.submissions.values() if s["bonus_payments"]}


def pays(stub) -> dict[str, int]:
    return {bid: len(stub.pay_calls(bid)) for bid in stub.bonuses}


def test_killed_before_create(cli, stub):
    stub.kill("POST", CREATE, "before")
    assert cli.bonus("--apply").returncode == -9 and not stub.bonuses
    again = cli.bonus("--apply")
    assert again.returncode == 0, again.stderr
    assert list(pays(stub).values()) == [1]


def test_killed_during_create_leaves_an_unpaid_orphan_and_says_so(cli, stub):
    stub.kill("POST", CREATE, "after")  # Prolific created it; the id never reached the store
    assert cli.bonus("--apply").returncode == -9 and len(stub.bonuses) == 1
    again = cli.bonus("--apply")
    assert again.returncode == 0, again.stderr
    assert "unpaid" in again.stdout and "costs nothing" in again.stdout
    assert sorted(pays(stub).values()) == [0, 1]  # the orphan is never paid; the new bonus once


def test_killed_between_create_and_pay_stops_then_pays_once_on_the_researchers_word(cli, stub):
    stub.kill("POST", PAY, "before")  # pay_sent stored; the call never carried out
    assert cli.bonus("--apply").returncode == -9
    (bid,) = stub.bonuses
    again = cli.bonus("--apply")
    assert again.returncode == 2 and "may have paid" in again.stderr and f"--confirm-unpaid {bid}" in again.stderr
    assert pays(stub) == {bid: 0}
    confirmed = cli.bonus("--confirm-unpaid", bid, "--apply")
    assert confirmed.returncode == 0, confirmed.stderr
    assert pays(stub) == {bid: 1}
    assert cli.bonus("--apply").returncode == 0 and pays(stub) == {bid: 1}


def test_killed_during_pay_never_pays_twice(cli, stub):
    stub.kill("POST", PAY, "after")  # paid on Prolific; the answer lost
    assert cli.bonus("--apply").returncode == -9
    (bid,) = stub.bonuses
    assert pays(stub) == {bid: 1}
    again = cli.bonus("--apply")  # Prolific's bonus_payments show the payment: recorded paid, nothing sent
    assert again.returncode == 0, again.stderr
    assert "paid (Prolific's list shows" in again.stdout and pays(stub) == {bid: 1}
    assert paid(stub) == {"00": [50], "01": [100]}


def test_after_pay_a_rerun_sends_nothing(cli, stub):
    first = cli.bonus("--apply")
    assert first.returncode == 0 and "paid" in first.stdout
    posts = len(stub.calls("POST"))
    again = cli.bonus("--apply")
    assert again.stdout.count("already paid") == 2 and list(pays(stub).values()) == [1]
    assert len(stub.calls("POST")) == posts  # not even a create


def test_without_apply_it_shows_the_cost_and_pays_nothing(cli, stub):
    shown = cli.bonus()
    assert shown.returncode == 0 and "total 2.00" in shown.stdout and "--apply" in shown.stdout
    assert list(pays(stub).values()) == [0]


def test_two_apply_processes_at_once_pay_each_participant_once(cli, stub):
    stub.delay("POST", CREATE, 1.0, times=2)  # both runs in flight together
    procs = [cli.start(), cli.start()]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode in (0, 2) for p in procs), outs
    assert paid(stub) == {"00": [50], "01": [100]}
    assert len(stub.pay_calls()) == 1
