"""Issue 36 item 5: an optional comprehension check right after consent, by Prolific's rules: at most two
attempts, who fails both is screened out (screen-out code or asked to return), never counted as a failed
attention check. The check is a study.toml setting, validated, off by default; bots answer it."""

from __future__ import annotations

import pytest

from infact.errors import ConfigError
from infact.participation.bots import Bot
from infact.participation.flow import Flow
from infact.study.loader import load_study
from tests.support.participants import submit_consent
from tests.support.studies import FakeClock, make_study, walk

QUESTIONS = [
    {
        "id": "task",
        "text": "What will you do?",
        "options": ["Rate responses", "Write stories"],
        "answer": "Rate responses",
    },
    {"id": "scale", "text": "What does a high rating mean?", "options": ["Worse", "Better"], "answer": "Better"},
]
RIGHT = {"answers": {"task": "Rate responses", "scale": "Better"}}
WRONG = {"answers": {"task": "Write stories", "scale": "Better"}}
PROLIFIC = {"kind": "prolific", "completion_code": "C1ABCD23", "screenout_code": "SCREEN01"}


def study_with(tmp_path, comprehension=None, **sections):
    config = {"comprehension": {"enabled": True, "questions": QUESTIONS, **(comprehension or {})}, **sections}
    return load_study(make_study(tmp_path, **config))


@pytest.fixture
def flow(tmp_path, storage):
    return Flow(study_with(tmp_path, platform=PROLIFIC), storage, clock=FakeClock())


def started(flow) -> str:
    token = flow.arrive({"PROLIFIC_PID": "a" * 24, "SESSION_ID": "b" * 24})
    submit_consent(flow, token)
    return token


def current(flow, token):
    return flow.current(flow.state(token))


def test_it_comes_right_after_consent_and_passing_goes_on(flow):
    token = started(flow)
    step = current(flow, token)
    assert (step.kind, step.data["attempt"]) == ("comprehension", 1)
    result = flow.submit(token, "comprehension", RIGHT)
    assert result.ok and result.next_step.kind == "situation"
    assert flow.state(token).answered["comprehension"]["comprehension_passed"] is True


def test_a_wrong_first_attempt_leaves_a_second_and_a_reload_no_third(flow, storage):
    token = started(flow)
    first = flow.submit(token, "comprehension", {**WRONG, "attempt": 1})
    assert first.ok and first.next_step.kind == "comprehension" and first.next_step.data["attempt"] == 2
    [attempt] = storage.records(participant=token, kind="comprehension_attempt")
    assert attempt["wrong"] == ["task"] and attempt["answers"] == WRONG["answers"]  # nothing is lost
    again = Flow(flow.study, storage, clock=FakeClock())  # a reload, another server process
    assert current(again, token).data["attempt"] == 2
    assert flow.submit(token, "comprehension", RIGHT).next_step.kind == "situation"


def test_failing_both_attempts_screens_out_with_the_screen_out_code(flow, storage):
    token = started(flow)
    flow.submit(token, "comprehension", WRONG)
    result = flow.submit(token, "comprehension", WRONG)
    st = result.state
    assert st.complete["outcome"] == "screened_out" and result.next_step.kind == "done"
    assert flow.completion(st).code == "SCREEN01"
    record = st.answered["comprehension"]
    assert record["comprehension_passed"] is False and record["attempt"] == 2 and record["screens_out"]
    assert not flow.submit(token, "comprehension", RIGHT).stored  # no third attempt


def test_without_a_screen_out_code_they_are_asked_to_return(tmp_path, storage):
    flow = Flow(study_with(tmp_path, platform={"kind": "prolific", "completion_code": "C1"}), storage)
    token = started(flow)
    flow.submit(token, "comprehension", WRONG)
    st = flow.submit(token, "comprehension", WRONG).state
    done = flow.completion(st)
    assert done.code is None and "return your submission" in done.text


def test_a_double_click_on_the_first_attempt_is_not_the_second(flow):
    token = started(flow)
    assert flow.submit(token, "comprehension", {**WRONG, "attempt": 1}).ok
    twice = flow.submit(token, "comprehension", {**WRONG, "attempt": 1})  # the same page's button again
    assert not twice.ok and "already submitted" in twice.errors[0]
    assert flow.state(token).complete is None and current(flow, token).data["attempt"] == 2


def test_unanswered_questions_are_refused_and_cost_no_attempt(flow, storage):
    token = started(flow)
    result = flow.submit(token, "comprehension", {"answers": {"task": "Rate responses"}})
    assert not result.ok and "question 2" in result.errors[0]
    assert not storage.records(participant=token, kind="comprehension_attempt")


def test_a_failed_comprehension_check_is_not_a_failed_attention_check(flow, storage):
    from infact.results.study_results import StudyResults

    token = started(flow)
    flow.submit(token, "comprehension", WRONG)
    flow.submit(token, "comprehension", WRONG)
    results = StudyResults(flow.study, storage.records(study=flow.study.id))
    row = results.tables.flags.set_index("participant").loc[token]
    assert row["failed_checks"] == 0 and row["prolific_action"] != "eligible_for_rejection"
    assert "attention_failed" not in row["flags"]


@pytest.mark.parametrize(
    ("strategy", "outcome", "attempts"),
    [("attentive", "completed", 0), ("speeder", "completed", 1), ("fails-comprehension", "screened_out", 1)],
)
def test_bots_answer_it(tmp_path, storage, strategy, outcome, attempts):
    study = study_with(tmp_path, platform=PROLIFIC)
    query = {"PROLIFIC_PID": "c" * 24, "SESSION_ID": "d" * 24}
    result = Bot(study, storage, strategy, seed=3, query=query).run()
    assert result.completed and result.outcome == outcome
    assert len(storage.records(participant=result.token, kind="comprehension_attempt")) == attempts


def test_it_is_off_by_default(tmp_path, storage):
    flow = Flow(load_study(make_study(tmp_path)), storage, clock=FakeClock())
    token = flow.arrive({})
    submit_consent(flow, token)
    assert current(flow, token).kind == "situation"
    walk(flow, token)
    assert flow.state(token).complete["outcome"] == "completed"


@pytest.mark.parametrize(
    ("comprehension", "flow_steps", "message"),
    [
        ({"questions": []}, None, "at least one [[comprehension.questions]]"),
        ({"questions": [{**QUESTIONS[0], "answer": "Dance"}]}, None, "'Dance' is not one of its options"),
        ({"questions": [QUESTIONS[0], QUESTIONS[0]]}, None, "repeated: task"),
        ({"questions": [{**QUESTIONS[0], "options": ["Rate responses"]}]}, None, "options"),
        ({"attempts": 3}, None, "attempts"),
        ({}, ["consent", "situation", "comprehension", "questionnaire", "demographics", "done"], "right after"),
        ({}, ["consent", "situation", "questionnaire", "demographics", "done"], "right after"),
    ],
)
def test_bad_settings_name_the_field_and_the_fix(tmp_path, comprehension, flow_steps, message):
    sections = {"flow": {"steps": flow_steps}} if flow_steps else {}
    with pytest.raises(ConfigError) as err:
        study_with(tmp_path, comprehension, **sections)
    assert message in str(err.value) and "comprehension" in str(err.value) and "study.toml" in str(err.value)


def test_a_flow_that_lists_it_after_consent_is_accepted(tmp_path, storage):
    steps = ["consent", "comprehension", "situation", "questionnaire", "demographics", "done"]
    flow = Flow(study_with(tmp_path, flow={"steps": steps}), storage, clock=FakeClock())
    token = flow.arrive({})
    submit_consent(flow, token)
    assert current(flow, token).kind == "comprehension"


@pytest.mark.slow  # 2.3 s: a whole simulated run against the OpenAI stub
def test_a_simulated_participant_reads_the_questions_and_its_answer_is_stored_with_provenance(tmp_path):
    """`bots --strategy llm`: the page (instructions and questions) goes to the LLM; the planted stub picks the
    middle option, which is right here."""
    from infact.llm.client import LLMClient
    from infact.participation.bots import run_bots
    from infact.storage import MemoryStorage
    from infact.study.endpoints import Endpoint
    from simulations.openai_stub import serve_openai
    from tests.support.simulated_pages import planted_page_rule

    question = {"id": "task", "text": "What will you do?", "options": ["Write", "Rate", "Dance"], "answer": "Rate"}
    study = study_with(tmp_path, {"questions": [question]})
    storage = MemoryStorage()
    with serve_openai(rule=planted_page_rule()) as stub:
        llm = LLMClient("sim", Endpoint(base_url=stub.url, model="stub-user", max_retries=0))
        [result] = run_bots(study, storage, 1, strategy="llm", seed=5, simulator=(llm, "You are Ana, 41."))
    assert result.completed and result.outcome == "completed"
    [record] = storage.records(participant=result.token, kind="comprehension")
    assert record["comprehension_passed"] is True and record["llm"]["calls"]
    assert any("What will you do?" in str(r["messages"]) for r in stub.requests)
