"""Issue 36 item 6: a message reaches each recipient once, against a stub that misbehaves as real servers do:
it answers 500 after delivering, answers after the client gave up, or refuses."""

from __future__ import annotations

import pytest

from infact.errors import InfactError
from infact.prolific import messages, setup
from infact.prolific.client import WrongState
from tests.support.prolific import pid

TEXT = "Please return your submission: the page did not load for you."


def copies(stub, recipient: str, text: str = TEXT) -> int:
    return sum(1 for m in stub.messages if m["recipient_id"] == recipient and m["body"] == text)


@pytest.fixture
def created(session):
    setup.create(session)
    return session


def test_a_500_after_delivering_sends_one_copy_and_the_rerun_none(created, stub):
    stub.fail_after("POST", "/messages/$", 500, times=10)
    with pytest.raises(InfactError, match="may already have reached") as err:
        messages.send(created, [pid(0)], TEXT)
    assert pid(0) in str(err.value) and "--confirm-sent" in str(err.value)
    assert copies(stub, pid(0)) == 1  # the client did not repeat the call
    with pytest.raises(InfactError, match="may already have reached"):
        messages.send(created, [pid(0)], TEXT)  # the rerun does not send it blindly
    assert copies(stub, pid(0)) == 1
    done = messages.send(created, [pid(0)], TEXT, confirm_sent=True)
    assert done.confirmed == [pid(0)] and not done.sent and copies(stub, pid(0)) == 1
    assert not messages.send(created, [pid(0)], TEXT).sent  # now known as delivered


def test_a_bulk_500_after_delivering_reaches_each_recipient_once(created, stub):
    stub.fail_after("POST", "/messages/bulk/$", 500, times=10)
    people = [pid(0), pid(1), pid(2)]
    with pytest.raises(InfactError, match="may already have reached"):
        messages.send(created, people, TEXT)
    with pytest.raises(InfactError):
        messages.send(created, people, TEXT)
    assert [copies(stub, p) for p in people] == [1, 1, 1]
    assert len(stub.calls("POST", "/messages/bulk/$")) == 1


def test_a_slow_answer_is_not_a_second_copy(created, stub):
    """The client gives up after its timeout (20 s by default; 0.3 s here) while Prolific delivers."""
    from infact.prolific.client import ProlificClient
    from infact.prolific.session import Session
    from tests.support.prolific import TOKEN

    impatient = Session(created.study, created.storage, ProlificClient(TOKEN, stub.url, timeout=0.3, sleep=len))
    stub.slow_after("POST", "/messages/$", 1.0, times=10)
    with pytest.raises(InfactError, match="may already have reached"):
        messages.send(impatient, [pid(0)], TEXT)
    with pytest.raises(InfactError):
        messages.send(impatient, [pid(0)], TEXT)
    impatient.client.close()
    assert copies(stub, pid(0)) == 1


def test_confirm_unsent_sends_it_once_more(created, stub):
    stub.fail("POST", "/messages/$", 502)  # refused before delivering, but the client cannot know that
    with pytest.raises(InfactError, match="may already have reached"):
        messages.send(created, [pid(0)], TEXT)
    assert copies(stub, pid(0)) == 0
    done = messages.send(created, [pid(0)], TEXT, confirm_unsent=True)
    assert done.sent == [pid(0)] and copies(stub, pid(0)) == 1
    assert not messages.send(created, [pid(0)], TEXT).sent and copies(stub, pid(0)) == 1


def test_a_refused_message_is_recorded_unsent_and_sent_by_the_rerun(created, stub):
    stub.fail("POST", "/messages/$", 400)
    with pytest.raises(WrongState):
        messages.send(created, [pid(0)], TEXT)
    assert messages.send(created, [pid(0)], TEXT).sent == [pid(0)]
    assert copies(stub, pid(0)) == 1


def test_the_same_text_to_a_larger_group_reaches_only_the_new_recipients(created, stub):
    assert messages.send(created, [pid(0), pid(1)], TEXT).sent == [pid(0), pid(1)]
    again = messages.send(created, [pid(2), pid(1), pid(0), pid(2)], TEXT)
    assert again.sent == [pid(2)] and again.already == [pid(0), pid(1)]
    assert [copies(stub, pid(i)) for i in range(3)] == [1, 1, 1]
    assert messages.send(created, [pid(0)], "Another text").sent == [pid(0)]  # another message is another send


def test_each_recipient_is_recorded_before_the_call(created, stub):
    from infact.stores import prolific_records as rec

    stub.fail("POST", "/messages/bulk/$", 500)
    with pytest.raises(InfactError):
        messages.send(created, [pid(0), pid(1)], TEXT)
    stages = rec.stages(created.records(), messages.KIND, "")
    name = messages.text_hash(TEXT)
    assert {f"{name}/{pid(0)}/started-1", f"{name}/{pid(1)}/started-1"} <= stages


def test_confirm_sent_and_unsent_together_are_refused(created):
    with pytest.raises(InfactError, match="not both"):
        messages.send(created, [pid(0)], TEXT, confirm_sent=True, confirm_unsent=True)


def test_the_cli_names_the_unconfirmed_recipients_and_takes_the_confirmation(tmp_path, stub, monkeypatch, capsys):
    from infact.cli.main import main
    from tests.support.prolific import TOKEN, prolific_study_folder

    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    folder = prolific_study_folder(tmp_path)
    common = ["--study", str(folder), "--db", str(tmp_path / "db"), "--base-url", stub.url]
    assert main(["prolific", "create", *common]) == 0
    stub.fail_after("POST", "/messages/$", 500, times=10)
    args = ["prolific", "message", *common, "--to", pid(0), "--text", TEXT]
    assert main(args) == 2 and main(args) == 2
    err = capsys.readouterr().err
    assert pid(0) in err and "--confirm-sent" in err and "Traceback" not in err
    assert main([*args, "--confirm-sent"]) == 0
    assert "arrived" in capsys.readouterr().out and copies(stub, pid(0)) == 1


@pytest.mark.slow  # real processes, SIGKILLed by the stub
def test_a_run_killed_after_delivering_never_delivers_twice(tmp_path, stub, monkeypatch):
    import os
    import subprocess
    import sys

    from infact.cli.main import main
    from tests.support.paths import REPO
    from tests.support.prolific import TOKEN, prolific_study_folder

    folder, db = prolific_study_folder(tmp_path), tmp_path / "db"
    common = ["--study", str(folder), "--db", str(db), "--base-url", stub.url]
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setenv("INFACT_DB", "")
    assert main(["prolific", "create", *common]) == 0
    env = {**os.environ, "PROLIFIC_TOKEN": TOKEN, "INFACT_DB": "", "PYTHONPATH": str(REPO)}

    def run(*more: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "infact", "prolific", "message", *common, "--to", pid(0), "--to", pid(1)]
        proc = subprocess.Popen([*cmd, "--text", TEXT, *more], env=env, cwd=REPO, stdout=-1, stderr=-1, text=True)
        stub.victim = proc.pid
        out, err = proc.communicate(timeout=120)
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    stub.kill("POST", "/messages/bulk/$", "after")  # delivered; the answer never read
    assert run().returncode == -9
    again = run()
    assert again.returncode == 2 and "--confirm-sent" in again.stderr and "Traceback" not in again.stderr
    assert [copies(stub, pid(0)), copies(stub, pid(1))] == [1, 1]
    assert run("--confirm-sent").returncode == 0
    assert run().returncode == 0 and [copies(stub, pid(0)), copies(stub, pid(1))] == [1, 1]


def test_a_return_request_answered_500_after_the_work_is_sent_once_per_run(session, stub, study):
    """Asking to return messages the participant too: the client does not repeat it after a 5xx."""
    from infact.prolific import review
    from infact.prolific.client import Unavailable
    from tests.support.prolific import play, submissions

    play(study, session.storage, ["straightliner"])
    submissions(stub, setup.create(session).prolific_id, ["AWAITING REVIEW"])
    stub.fail_after("POST", "/request-return/$", 500, times=10)
    with pytest.raises(Unavailable):
        review.apply(session, review.plan(session))
    assert len(stub.calls("POST", "/request-return/$")) == 1
