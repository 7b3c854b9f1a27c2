"""Issue 36 item 5, review's side: who failed the comprehension check on both attempts is asked to return,
never rejected, and review names Prolific's comprehension-check rule; a study without the check is unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

from infact.participation.bots import Bot
from infact.prolific import review, setup
from infact.study.loader import load_study
from tests.support.prolific import pid, prolific_study_folder, session_id

QUESTIONS = [{"id": "task", "text": "What will you do?", "options": ["Rate", "Write"], "answer": "Rate"}]


def test_a_comprehension_failure_is_asked_to_return_never_rejected(tmp_path, stub):
    from infact.prolific.session import open_session
    from infact.storage import MemoryStorage
    from tests.support.prolific import TOKEN

    folder = prolific_study_folder(
        tmp_path,
        comprehension={"enabled": True, "questions": QUESTIONS},
        platform={"screenout_code": "SCREEN01"},
        quality={"prolific_excluded_action": "approve"},
    )
    study = load_study(folder)
    s = open_session(study, MemoryStorage(), base_url=stub.url, environ={"PROLIFIC_TOKEN": TOKEN}, sleep=len)
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    for i, strategy in enumerate(["fails-comprehension", "attentive", "fails-attention"]):
        query = {"PROLIFIC_PID": pid(i), "STUDY_ID": "s" * 24, "SESSION_ID": session_id(i)}
        Bot(study, s.storage, strategy, seed=i, start=start, query=query).run()
    prolific_id = setup.create(s).prolific_id
    for i in range(3):
        stub.add_submission(prolific_id, pid(i), id=session_id(i))
    plan = {d.participant_id: d for d in review.plan(s).decisions}
    failed = plan[pid(0)]
    assert failed.action == "ask_to_return" and "comprehension" in failed.rule and "never rejected" in failed.rule
    assert plan[pid(1)].action == "approve"
    assert plan[pid(2)].action == "reject" and "attention check" in plan[pid(2)].rule
    review.apply(s, review.plan(s))
    sub = stub.submissions[session_id(0)]
    assert sub["status"] == "AWAITING REVIEW" and sub["return_requested"] == ["failed the comprehension check twice"]
    assert stub.submissions[session_id(2)]["status"] == "REJECTED"
    s.client.close()
