"""Withdrawal: kept-but-marked by default, deleted when the study says so."""

from pathlib import Path

import pytest

from infact.participation.bots import Bot
from infact.participation.flow import Flow
from infact.results.study_results import StudyResults
from infact.study.loader import load_study
from tests.support.participants import submit_consent
from tests.support.studies import make_study


def _study(tmp_path: Path, delete: bool):
    return load_study(
        make_study(
            tmp_path, platform={"kind": "prolific", "completion_code": "C123ABC"}, study={"delete_on_withdraw": delete}
        )
    )


PID = {"PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e", "SESSION_ID": "6a1b2c3d4e5f6a7b8c9d0e1f"}


def _half_done(study, storage) -> str:
    flow = Flow(study, storage)
    token = flow.arrive(PID)
    submit_consent(flow, token)
    step = flow.current(flow.state(token))
    bot = Bot(study, storage, "attentive", seed=1)
    answers, _ = bot._answers(step)  # (answers, provenance): an attentive bot has none
    assert flow.submit(token, step.name, answers).ok
    return token


@pytest.mark.parametrize("delete", [False, True])
def test_withdrawn_participant_is_left_out_and_cannot_restart(tmp_path, storage, delete):
    study = _study(tmp_path, delete)
    token = _half_done(study, storage)
    flow = Flow(study, storage)
    assert flow.withdraw(token, "changed my mind")
    assert flow.withdraw(token) is False  # once
    kinds = [r["kind"] for r in storage.records(participant=token)]
    if delete:
        assert "situation" not in kinds and "consent" not in kinds and "assignment" not in kinds
        assert sorted(kinds) == ["arrival", "withdraw"]
    else:
        assert "situation" in kinds and "withdraw" in kinds
    # The same Prolific session coming back gets its own (withdrawn) session, not a new one;
    # the tombstone keeps the session ID for that (and nothing else).
    assert flow.arrive(PID) == token
    assert flow.state(token).finished
    t = StudyResults(study, storage.records(study=study.id)).tables
    assert token not in set(t.ratings["participant"])
    kept = StudyResults(study, storage.records(study=study.id), include_withdrawn=True).tables
    assert (token in set(kept.ratings["participant"])) is (not delete)


def test_after_withdrawal_nothing_more_is_stored_and_exports_leave_it_out(tmp_path, storage):
    import json

    from infact.results.export import export_bytes

    study = _study(tmp_path, False)
    token = _half_done(study, storage)
    flow = Flow(study, storage)
    flow.withdraw(token)
    before = len(storage.records(participant=token))
    step = next(
        s for s in flow.steps(flow.state(token)) if s.kind == "situation" and s.name not in flow.state(token).answered
    )
    answers, _ = Bot(study, storage, "attentive", seed=2)._answers(step)
    result = flow.submit(token, step.name, answers)
    assert not result.ok and "withdrawn" in result.errors[0]
    assert len(storage.records(participant=token)) == before
    files = export_bytes(StudyResults(study, storage.records(study=study.id)).tables)
    assert token not in {r["participant"] for r in json.loads(files["records.json"])}
    files = export_bytes(StudyResults(study, storage.records(study=study.id), include_withdrawn=True).tables)
    assert token in {r["participant"] for r in json.loads(files["records.json"])}
