"""`infact prolific pause`: the study is paused (its PAUSE transition) once the declared stopping rule is met —
once, never while the rule is not met, never again after the researcher resumed it on Prolific."""

from __future__ import annotations

import pytest

from infact.cli.main import main
from infact.prolific import pause as pausing
from infact.prolific import setup
from simulations.prolific_stub import ProlificStub
from tests.support.prolific import TOKEN, pid, prolific_study_folder


def _pause_calls(stub) -> list[dict]:
    return [c for c in stub.calls("POST", "/transition/$") if (c.get("body") or {}).get("action") == "PAUSE"]


def test_pause_once_sends_one_pause_and_a_rerun_sends_nothing(session, stub):
    pid = setup.create(session).prolific_id
    setup.publish(session, pid, yes=True)
    done = pausing.pause_once(session, None, ["the order is settled (anytime-valid)"])
    assert (done.sent, done.status, stub.studies[pid]["status"]) == (True, "PAUSED", "PAUSED")
    again = pausing.pause_once(session, None, ["the order is settled (anytime-valid)"])
    assert not again.sent and "already PAUSED" in again.note
    assert len(_pause_calls(stub)) == 1


def test_a_study_resumed_on_prolific_after_infact_paused_it_is_not_paused_again(session, stub):
    pid = setup.create(session).prolific_id
    setup.publish(session, pid, yes=True)
    pausing.pause_once(session, None, ["rule met"])
    stub.studies[pid]["status"] = "ACTIVE"  # the researcher resumed it
    again = pausing.pause_once(session, None, ["rule met"])
    assert not again.sent and "resumed" in again.note and len(_pause_calls(stub)) == 1


def test_a_draft_is_not_paused(session, stub):
    setup.create(session)
    out = pausing.pause_once(session, None, ["rule met"])
    assert not out.sent and "only an active study" in out.note and not _pause_calls(stub)


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)

    def make(monitoring: dict):
        folder = prolific_study_folder(tmp_path, monitoring=monitoring)
        stub = ProlificStub(TOKEN).start()

        def run(action: str, *more: str) -> int:
            args = ["prolific", action, "--study", str(folder), "--db", str(tmp_path / "db"), "--base-url", stub.url]
            return main([*args, *more])

        run.stub, run.folder, run.db = stub, folder, tmp_path / "db"
        return run

    yield make


def _crowd(run, first: int, n: int) -> None:
    """Attentive participants with Prolific PIDs pid(first) … pid(first + n − 1) take the study (played as people:
    `prolific pause` analyses people, never `infact bots`' marked bots)."""
    from datetime import UTC, datetime

    from infact.storage import open_storage
    from infact.study.loader import load_study
    from tests.support.participants import person_class

    Bot = person_class()

    storage = open_storage(str(run.db))
    study = load_study(run.folder)
    try:
        for i in range(first, first + n):
            query = {"PROLIFIC_PID": pid(i), "STUDY_ID": "s" * 24, "SESSION_ID": f"{i:024d}"}
            Bot(study, storage, "attentive", seed=i, start=datetime(2026, 3, 2, 9, tzinfo=UTC), query=query).run()
    finally:
        storage.close()


@pytest.mark.slow
def test_the_command_pauses_when_the_declared_maximum_is_reached_and_not_before(cli, capsys):
    run = cli({"max_participants": 3})
    try:
        assert run("create") == 0 and run("publish", "--yes") == 0
        _crowd(run, 0, 2)
        assert run("pause") == 0
        out = capsys.readouterr().out
        assert "declared in study.toml" in out and "not met at 2 participants; nothing sent" in out
        assert not _pause_calls(run.stub)
        _crowd(run, 2, 1)  # a third participant: the budget is reached
        assert run("pause", "--dry-run") == 0 and not _pause_calls(run.stub)
        assert run("pause") == 0 and run("pause") == 0
        out = capsys.readouterr().out
        assert "met: 3 participants (rule: at most 3)" in out and "already PAUSED" in out
        assert len(_pause_calls(run.stub)) == 1
        (study,) = run.stub.studies.values()
        assert study["status"] == "PAUSED"
    finally:
        run.stub.stop()


def test_without_a_declared_rule_the_command_says_what_to_add(cli, capsys):
    run = cli({})
    try:
        assert run("pause") == 2
        assert "[monitoring]" in capsys.readouterr().err and not _pause_calls(run.stub)
    finally:
        run.stub.stop()
