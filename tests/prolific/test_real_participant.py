"""Issue 36 item 3, review's side: a submission is decided by the INFACT session whose SESSION_ID is the
submission's id, once that session finished. Someone who opened the study with a real participant's
PROLIFIC_PID (another SESSION_ID) and failed the checks neither locks them out nor gets them rejected."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from infact.participation.bots import Bot
from infact.prolific import review, setup
from tests.support.prolific import pid, session_id

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
OTHER = "9" * 24  # the impostor's SESSION_ID


def arrive(study, storage, strategy: str, session: str, seed: int, who: int = 0):
    query = {"PROLIFIC_PID": pid(who), "STUDY_ID": "s" * 24, "SESSION_ID": session}
    return Bot(study, storage, strategy, seed=seed, start=START, query=query).run()


def by_submission(plan) -> dict:
    return {d.submission_id: d for d in plan.decisions}


def test_an_impostor_who_came_first_neither_locks_out_nor_rejects_the_real_participant(session, stub, study):
    impostor = arrive(study, session.storage, "fails-attention", OTHER, seed=1)
    real = arrive(study, session.storage, "attentive", session_id(0), seed=2)  # before: IdInUse
    assert impostor.completed and real.completed and real.token != impostor.token
    prolific_id = setup.create(session).prolific_id
    sub = stub.add_submission(prolific_id, pid(0), id=session_id(0))
    d = by_submission(review.plan(session))[sub["id"]]
    assert (d.action, d.token) == ("approve", real.token)
    assert "2 INFACT sessions used this Prolific ID" in d.reason
    review.apply(session, review.plan(session))
    assert stub.submissions[sub["id"]]["status"] == "APPROVED"


def test_a_submission_with_no_finished_session_of_its_own_stays_manual(session, stub, study):
    """Only the impostor ran in INFACT: the real participant's submission is not rejected on their answers."""
    arrive(study, session.storage, "fails-attention", OTHER, seed=1)
    prolific_id = setup.create(session).prolific_id
    sub = stub.add_submission(prolific_id, pid(0), id=session_id(0))
    d = by_submission(review.plan(session))[sub["id"]]
    assert d.action == "manual" and "SESSION_ID" in d.reason and d.rule
    review.apply(session, review.plan(session))
    assert stub.submissions[sub["id"]]["status"] == "AWAITING REVIEW"
    assert not stub.calls("POST", f"/submissions/{sub['id']}/transition/")


def test_the_real_participant_first_and_an_impostor_after_still_approved(session, stub, study):
    real = arrive(study, session.storage, "attentive", session_id(0), seed=2)
    arrive(study, session.storage, "fails-attention", OTHER, seed=1)
    prolific_id = setup.create(session).prolific_id
    sub = stub.add_submission(prolific_id, pid(0), id=session_id(0))
    d = by_submission(review.plan(session))[sub["id"]]
    assert (d.action, d.token) == ("approve", real.token)


def test_an_unfinished_session_stays_manual(session, stub, study):
    from infact.participation.flow import Flow
    from tests.support.participants import consented

    consented(Flow(study, session.storage), {"PROLIFIC_PID": pid(0), "SESSION_ID": session_id(0)})
    prolific_id = setup.create(session).prolific_id
    sub = stub.add_submission(prolific_id, pid(0), id=session_id(0))
    d = by_submission(review.plan(session))[sub["id"]]
    assert d.action == "manual" and "did not finish" in d.reason


def test_a_session_id_arriving_with_another_prolific_id_stays_manual(session, stub, study):
    arrive(study, session.storage, "fails-attention", session_id(0), seed=1, who=5)
    prolific_id = setup.create(session).prolific_id
    sub = stub.add_submission(prolific_id, pid(0), id=session_id(0))
    d = by_submission(review.plan(session))[sub["id"]]
    assert d.action == "manual" and "another Prolific ID" in d.reason


def test_a_return_releases_the_lease_of_the_session_it_names(session, stub, study):
    from infact.prolific import sync

    impostor = arrive(study, session.storage, "abandons", OTHER, seed=1)
    real = arrive(study, session.storage, "abandons", session_id(0), seed=2)
    prolific_id = setup.create(session).prolific_id
    stub.add_submission(prolific_id, pid(0), "RETURNED", id=session_id(0))
    assert sync.sync(session).released == [real.token] != [impostor.token]


@pytest.mark.slow  # 1.9 s: bots on TinyDB, then the CLI
def test_review_prints_the_rule_of_each_decision(tmp_path, stub, monkeypatch, capsys):
    from infact.cli.main import main
    from infact.storage import open_storage
    from infact.study.loader import load_study
    from tests.support.prolific import TOKEN, play, prolific_study_folder, submissions

    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    folder = prolific_study_folder(tmp_path)
    storage = open_storage(tmp_path / "db")
    play(load_study(folder), storage, ["attentive", "fails-attention", "straightliner"])
    storage.close()
    common = ["--study", str(folder), "--db", str(tmp_path / "db"), "--base-url", stub.url]
    assert main(["prolific", "create", *common]) == 0
    (prolific_id,) = stub.studies
    submissions(stub, prolific_id, ["AWAITING REVIEW"] * 3)
    stub.add_submission(prolific_id, "f" * 24)
    capsys.readouterr()
    assert main(["prolific", "review", *common]) == 0
    out = capsys.readouterr().out
    assert out.count("    rule: ") == 4
    assert "Prolific allows rejection after 1" in out and "included" in out and "no INFACT session" in out


def test_participants_csv_shows_the_status_of_each_sessions_own_submission(session, stub, study):
    from infact.prolific import sync
    from infact.results.study_results import StudyResults

    impostor = arrive(study, session.storage, "fails-attention", OTHER, seed=1)
    real = arrive(study, session.storage, "attentive", session_id(0), seed=2)
    prolific_id = setup.create(session).prolific_id
    stub.add_submission(prolific_id, pid(0), id=session_id(0))
    sync.sync(session)
    people = StudyResults(study, session.storage.records(study=study.id)).tables.participants.set_index("participant")
    assert people.loc[real.token, "prolific_status"] == "AWAITING REVIEW"
    assert __import__("pandas").isna(people.loc[impostor.token, "prolific_status"])  # before: the real one's
    assert "another session" in people.loc[real.token, "platform_warnings"]


def test_a_return_never_releases_another_sessions_lease(session, stub, study):
    from infact.prolific import sync

    arrive(study, session.storage, "abandons", OTHER, seed=1)  # only the impostor ran
    prolific_id = setup.create(session).prolific_id
    stub.add_submission(prolific_id, pid(0), "RETURNED", id=session_id(0))
    done = sync.sync(session)
    assert done.released == [] and done.unmatched == [pid(0)]
