"""The paid cycle against the stub: create once, publish with yes, sync (and free returned places),
review (dry run, then apply once), messages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from infact.errors import InfactError
from infact.prolific import messages, review, setup, sync
from infact.prolific.client import NotFound, WrongState
from infact.results.study_results import StudyResults
from infact.stores import prolific_records as rec
from tests.support.prolific import CODE, pid, play, submissions


def test_the_draft_payload_carries_the_url_parameters_codes_and_places(study):
    body = setup.study_payload(study, "marker")
    url = body["external_study_url"]
    for name in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"):
        assert f"{name}={{{{%{name}%}}}}" in url
    assert body["completion_codes"][0] == {
        "code": CODE,
        "code_type": "COMPLETED",
        "actions": [{"action": "MANUALLY_REVIEW"}],
    }
    assert (body["total_available_places"], body["reward"], body["estimated_completion_time"]) == (6, 90, 3)
    assert body["device_compatibility"] == ["desktop"] and body["name"] == "Test study"


def test_screening_out_on_attention_adds_a_failed_attention_code(tmp_path):
    from infact.study.loader import load_study
    from tests.support.prolific import prolific_study_folder

    folder = prolific_study_folder(
        tmp_path, platform={"screenout_code": "SCREEN1"}, quality={"on_attention_fail": "screen_out"}
    )
    codes = setup.completion_codes(load_study(folder))
    assert [(c["code"], c["code_type"]) for c in codes] == [(CODE, "COMPLETED"), ("SCREEN1", "FAILED_ATTENTION_CHECK")]


def test_create_records_the_id_and_a_rerun_creates_no_duplicate(session, stub):
    made = setup.create(session)
    assert made.new and stub.studies[made.prolific_id]["status"] == "UNPUBLISHED"
    again = setup.create(session)
    assert (again.prolific_id, again.new) == (made.prolific_id, False)
    assert len(stub.calls("POST", "/studies/$")) == 1 and len(stub.studies) == 1


def test_create_after_a_run_killed_during_the_call_finds_the_study(session, stub):
    """The intent is stored; Prolific created the study but the id was never recorded."""
    marker = "infact-t-deadbeef"
    session.put("prolific_create", f"intent/{marker}", internal_name=marker)
    stub.studies["abc"] = {"id": "abc", "internal_name": marker, "status": "UNPUBLISHED"}
    made = setup.create(session)
    assert (made.prolific_id, made.new) == ("abc", False)
    assert not stub.calls("POST", "/studies/$")


def test_publish_needs_yes_then_refuses_a_published_study(session, stub):
    pid_ = setup.create(session).prolific_id
    with pytest.raises(InfactError, match="--yes"):
        setup.publish(session, None, yes=False)
    assert stub.studies[pid_]["status"] == "UNPUBLISHED"
    assert setup.publish(session, None, yes=True) == "ACTIVE"
    with pytest.raises(WrongState, match="ACTIVE"):
        setup.publish(session, None, yes=True)


def test_an_unknown_study_id_is_a_404(session):
    with pytest.raises(NotFound):
        sync.sync(session, "000000000000000000000000")


def test_sync_stores_statuses_and_a_return_frees_the_reserved_situations(session, stub, study):
    from infact.participation.assignment import load
    from infact.participation.situation_load import SituationLoad

    storage = session.storage
    people = play(study, storage, ["attentive", "abandons", "abandons"])
    pid_ = setup.create(session).prolific_id
    submissions(stub, pid_, ["AWAITING REVIEW", "RETURNED", "ACTIVE"])
    now = datetime(2026, 3, 2, 9, 5, tzinfo=UTC)  # within every lease (60 minutes)
    live = SituationLoad(storage, study.id)
    before = sum(live.current(now)[1].values())
    reserved_before = sum(load(study, storage.records(study=study.id), now)[1].values())
    assert before == reserved_before > 0
    session.clock = lambda: now
    done = sync.sync(session)
    assert done.submissions == 3 and done.released == [people[1][1]]
    after = sum(load(study, storage.records(study=study.id), now)[1].values())
    assert after < reserved_before
    assert sum(live.current(now)[1].values()) == after  # the live counter agrees
    assert rec.status_counts(session.records())["RETURNED"] == 1
    again = sync.sync(session)
    assert not again.changed and not again.released  # nothing new, nothing released twice


def test_participants_csv_shows_the_prolific_status(session, stub, study):

    play(study, session.storage, ["attentive", "abandons"])
    pid_ = setup.create(session).prolific_id
    submissions(stub, pid_, ["AWAITING REVIEW", "TIMED-OUT"])
    sync.sync(session)
    people = StudyResults(study, session.storage.records(study=study.id)).tables.participants.set_index("platform_id")
    assert people.loc[pid(0), "prolific_status"] == "AWAITING REVIEW"
    assert people.loc[pid(1), "prolific_status"] == "TIMED-OUT"


def test_the_dashboard_polls_at_most_once_a_minute(session, stub):
    setup.create(session)
    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    session.clock = lambda: t0
    assert not sync.sync(session, force=False).skipped
    session.clock = lambda: t0 + timedelta(seconds=59)
    assert sync.sync(session, force=False).skipped
    session.clock = lambda: t0 + timedelta(seconds=61)
    assert not sync.sync(session, force=False).skipped
    assert len(stub.calls("GET", "/submissions/$")) == 2


@pytest.fixture
def reviewed(session, stub, study):
    """attentive (approve), fails-attention (eligible for rejection), straightliner (ask to return), one unknown."""
    play(study, session.storage, ["attentive", "fails-attention", "straightliner"])
    pid_ = setup.create(session).prolific_id
    subs = submissions(stub, pid_, ["AWAITING REVIEW"] * 3)
    stub.add_submission(pid_, "f" * 24)  # a submission INFACT never saw
    return subs


def test_review_without_apply_changes_nothing(session, stub, reviewed):
    plan = review.plan(session)
    actions = {d.participant_id: d.action for d in plan.decisions}
    assert actions == {pid(0): "approve", pid(1): "reject", pid(2): "ask_to_return", "f" * 24: "manual"}
    assert not stub.calls("POST", "/submissions/")
    assert all(s["status"] == "AWAITING REVIEW" for s in stub.submissions.values())


def test_review_applies_each_decision_once(session, stub, reviewed):
    plan = review.apply(session, review.plan(session))
    assert sorted(a for _, a in plan.applied) == ["approve", "ask_to_return", "reject"]
    by_pid = {s["participant_id"]: s for s in stub.submissions.values()}
    assert by_pid[pid(0)]["status"] == "APPROVED"
    rejected = by_pid[pid(1)]
    assert rejected["status"] == "REJECTED" and rejected["rejection"]["rejection_category"] == "FAILED_CHECK"
    assert len(rejected["rejection"]["message"]) >= 100 and "attention" in rejected["rejection"]["message"]
    assert by_pid[pid(2)]["return_requested"] and by_pid[pid(2)]["status"] == "AWAITING REVIEW"
    assert by_pid["f" * 24]["status"] == "AWAITING REVIEW"  # left for the researcher
    assert len(stub.calls("POST", "/bulk-approve/")) == 1
    calls = len(stub.calls("POST", "/submissions/"))
    again = review.apply(session, review.plan(session))
    assert not again.applied and len(stub.calls("POST", "/submissions/")) == calls
    kinds = rec.stages(session.records(), "prolific_action", "")
    assert {f"{rejected['id']}/reject/started", f"{rejected['id']}/reject/done"} <= kinds


def test_review_resends_a_started_action_the_last_run_did_not_confirm(session, stub, reviewed):
    plan = review.plan(session)
    target = next(d for d in plan.decisions if d.action == "reject")
    session.put("prolific_action", f"{target.submission_id}/reject/started", submission_id=target.submission_id)
    review.apply(session, plan)
    assert stub.submissions[target.submission_id]["status"] == "REJECTED"


def test_a_rejection_message_is_at_least_100_characters():
    assert len(review.rejection_message(["failed the attention check"], None)) >= 100


def test_messages_are_sent_once(session, stub):
    setup.create(session)
    assert messages.send(session, [pid(0), pid(1)], "Please return your submission: the page did not load.").sent
    assert not messages.send(session, [pid(1), pid(0)], "Please return your submission: the page did not load.").sent
    assert len(stub.messages) == 2 and len(stub.calls("POST", "/messages/")) == 1
    assert messages.send(session, [pid(0)], "Thank you!").sent
    assert stub.messages[-1] == {"recipient_id": pid(0), "study_id": stub.messages[0]["study_id"], "body": "Thank you!"}
    with pytest.raises(InfactError, match="empty"):
        messages.send(session, [pid(0)], " ")


def test_a_fresh_process_reading_tinydb_summaries_sees_the_freed_place(tmp_path, stub, study):
    """TinyDB starts a process's situation load from its participant summaries: they carry the lease end too."""
    from infact.participation.assignment import load
    from infact.participation.situation_load import SituationLoad
    from infact.prolific.session import open_session
    from infact.storage import TinyDBStorage
    from tests.support.prolific import TOKEN

    storage = TinyDBStorage(tmp_path / "db")
    play(study, storage, ["attentive", "abandons"])
    now = datetime(2026, 3, 2, 9, 5, tzinfo=UTC)
    s = open_session(study, storage, base_url=stub.url, environ={"PROLIFIC_TOKEN": TOKEN}, clock=lambda: now)
    submissions(stub, setup.create(s).prolific_id, ["AWAITING REVIEW", "RETURNED"])
    reserved = sum(load(study, storage.records(study=study.id), now)[1].values())
    assert reserved > 0 and sync.sync(s).released
    s.client.close()
    fresh = TinyDBStorage(tmp_path / "db")
    assert sum(SituationLoad(fresh, study.id).current(now)[1].values()) == 0
    assert sum(load(study, fresh.records(study=study.id), now)[1].values()) == 0
