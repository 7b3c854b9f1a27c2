"""The participant flow: consent → situations → questionnaire → demographics → done.

Storage-dependent behaviour runs against every backend (the `storage` fixture).
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from infact.participation import assignment
from infact.participation.flow import Flow, iso
from infact.participation.platforms import IdInUse, PlatformError
from infact.results.tables import records as tables
from infact.study.loader import load_study
from tests.support.participants import consented, submit_consent
from tests.support.studies import FakeClock, answers_for, make_study, walk

COMMON = {"key", "study", "dataset_version", "participant", "kind", "at", "preview"}
TIMING = {"step", "shown_at", "answered_at", "seconds"}
FIELDS = {  # docs/data-model.md, per kind
    "arrival": {"platform", "platform_params", "platform_id", "group"},
    "assignment": {"steps", "lease_until"},
    "shown": {"step", "shown_at"},
    "consent": TIMING | {"answers"},
    "situation": TIMING | {"index", "situation_id", "dialog_id", "attention_check", "context", "responses"},
    "questionnaire": TIMING | {"answers", "attention_passed"},
    "demographics": TIMING | {"answers"},
    "complete": {"completion_code", "started_at", "ended_at", "total_seconds", "outcome"},
    "withdraw": {"reason", "delete_requested"},
}
SUFFIX = {"arrival": "arrival", "assignment": "assignment", "complete": "complete", "withdraw": "withdraw"}


@pytest.fixture
def study(tmp_path):
    return load_study(
        make_study(
            tmp_path,
            systems=("Alpha", "Beta", "Gamma"),
            n_situations=12,
            per_participant=5,
            attention_check={"positions": [2, 4]},
        )
    )


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def flow(study, storage, clock):
    return Flow(study, storage, clock=clock)


def kinds(storage, token) -> list[str]:
    return [r["kind"] for r in storage.records(participant=token)]


def current(flow, token):
    return flow.current(flow.state(token))


# -- consent --------------------------------------------------------------------


@pytest.mark.parametrize("answers", [{"consent": False}, {}, {"consent": "yes"}])
def test_refused_consent_stores_nothing_but_the_arrival(flow, storage, answers):
    token = flow.arrive({})
    result = flow.submit(token, "consent", answers)
    assert not result.ok and not result.stored
    assert "consent" in result.errors[0]
    assert kinds(storage, token) == ["arrival"]
    assert current(flow, token).name == "consent"
    assert flow.steps(flow.state(token))[0].name == "consent" and len(flow.steps(flow.state(token))) == 1


def test_consent_assigns_the_situations(flow, storage, study):
    token = consented(flow)
    assert kinds(storage, token) == ["arrival", "consent", "assignment"]
    steps = flow.steps(flow.state(token))
    assert [s.name for s in steps] == (
        ["consent"] + [f"situation-{i}" for i in range(1, 6)] + ["questionnaire", "demographics", "done"]
    )
    assert current(flow, token).name == "situation-1"


def test_tokens_never_look_like_researcher_records(flow, storage, monkeypatch):
    # token_urlsafe draws from A-Z a-z 0-9 - _: one token in 64 starts with "_", which the
    # tables reserve for researcher events; such a participant vanished from every export.
    drawn = iter(["_looks-internal0", "Regular-token-01"])
    monkeypatch.setattr("infact.participation.flow.secrets.token_urlsafe", lambda n: next(drawn))
    token = flow.arrive({})
    assert token == "Regular-token-01"
    submit_consent(flow, token)
    walk(flow, token)
    assert list(tables.participants_table(storage.records())["participant"]) == [token]


def test_consent_stored_without_assignment_is_assigned_on_the_next_submit(flow, storage, clock):
    # The process died between storing the consent and the assignment (two separate writes).
    token = flow.arrive({})
    st = flow.state(token)
    flow.store_step(st, flow.steps(st)[0], answers={"consent": True})
    st = flow.state(token)
    assert flow.current(st).name == "consent"  # not "done" with no completion code
    result = flow.submit(token, "consent", {"consent": True})
    assert result.ok and result.next_step.name == "situation-1"
    assert kinds(storage, token) == ["arrival", "consent", "assignment"]
    walk(flow, token)
    assert flow.state(token).complete["outcome"] == "completed"


def test_unknown_token_is_refused(flow, storage):
    assert flow.state("nobody") is None
    assert flow.state("") is None
    result = flow.submit("nobody", "consent", {"consent": True})
    assert not result.ok and "not valid" in result.errors[0]
    assert storage.records() == []


# -- situations -----------------------------------------------------------------


def test_incomplete_situation_names_the_missing_response(flow, storage, study):
    token = consented(flow)
    step = current(flow, token)
    answers = answers_for(study, step)
    del answers["ratings"][step.order[1]]  # response B unrated
    result = flow.submit(token, step.name, answers)
    assert not result.ok
    assert result.errors == ("Please rate response B.",)
    assert result.next_step.name == step.name
    assert "situation" not in kinds(storage, token)
    answers = answers_for(study, step)
    answers["ratings"][step.order[2]][study.config.criteria[0].id] = 0  # not a scale point
    assert flow.submit(token, step.name, answers).errors == ("Please rate response C.",)
    assert flow.submit(token, step.name, {}).errors == tuple(f"Please rate response {c}." for c in "ABC")


def test_ratings_accept_labels_and_points(flow, storage, study):
    token = consented(flow)
    step = current(flow, token)
    labels = study.config.scale.labels
    given = {s: {"meaningful": labels[4] if i == 0 else 4 - i} for i, s in enumerate(step.order)}
    assert not step.attention_check  # positions [2, 4]
    assert flow.submit(token, step.name, {"ratings": given}).ok
    [rec] = storage.records(participant=token, kind="situation")
    assert [r["ratings"]["meaningful"] for r in rec["responses"]] == [5, 3, 2]


def test_double_submit_stores_once(flow, storage, study):
    token = consented(flow)
    step = current(flow, token)
    first = flow.submit(token, step.name, answers_for(study, step, rating=5))
    again = flow.submit(token, step.name, answers_for(study, step, rating=1))
    assert first.ok and first.stored
    assert again.ok and not again.stored
    assert again.next_step.name == "situation-2"
    [rec] = storage.records(participant=token, kind="situation")
    assert {r["ratings"]["meaningful"] for r in rec["responses"]} == {5}


def test_cannot_go_back_or_skip_ahead(flow, storage, study):
    token = consented(flow)
    walk(flow, token, until="situation-3")
    before = storage.records(participant=token)
    # an earlier page again: a no-op, the stored answer stays
    step1 = flow.steps(flow.state(token))[1]
    back = flow.submit(token, "situation-1", answers_for(study, step1, rating=1))
    assert back.ok and not back.stored and back.next_step.name == "situation-3"
    assert flow.submit(token, "consent", {"consent": False}).next_step.name == "situation-3"
    # a later page: refused
    ahead = flow.submit(token, "situation-4", answers_for(study, flow.steps(flow.state(token))[4]))
    assert not ahead.ok and "cannot go back" in ahead.errors[0]
    assert not flow.submit(token, "questionnaire", {}).ok
    assert storage.records(participant=token) == before


def test_fresh_flow_resumes_at_the_same_step_with_the_same_situations(study, storage, clock):
    flow = Flow(study, storage, clock=clock)
    token = consented(flow)
    walk(flow, token, until="situation-3")
    flow.mark_shown(flow.state(token), current(flow, token))
    steps = flow.steps(flow.state(token))
    reloaded = Flow(study, storage, clock=clock)  # a refresh: only the token survives
    st = reloaded.state(token)
    assert reloaded.current(st) == current(flow, token)
    assert reloaded.current(st).name == "situation-3"
    assert reloaded.steps(st) == steps
    assert [(s.situation_id, s.order) for s in reloaded.steps(st)] == [(s.situation_id, s.order) for s in steps]
    assert reloaded.progress(st) == (2, 5)
    walk(reloaded, token)
    assert reloaded.state(token).complete is not None


def test_each_response_gets_one_rating_per_criterion(tmp_path, storage, clock):
    study = load_study(make_study(tmp_path, criteria=["fluent", "relevant"], per_participant=4))
    flow = Flow(study, storage, clock=clock)
    token = consented(flow)
    step = current(flow, token)
    answers = answers_for(study, step)
    del answers["ratings"][step.order[0]]["relevant"]
    result = flow.submit(token, step.name, answers)
    assert result.errors == ("Please rate response A (relevant).",)
    walk(flow, token)
    recs = storage.records(participant=token, kind="situation")
    assert len(recs) == 4
    for rec in recs:
        assert len(rec["responses"]) == 2
        for resp in rec["responses"]:
            assert set(resp["ratings"]) == {"fluent", "relevant"}
    ratings = tables.ratings_table(storage.records(), study.config.scale.labels)
    assert len(ratings) == 4 * 2 * 2
    assert Counter(ratings["criterion"]) == {"fluent": 8, "relevant": 8}


def test_order_is_shuffled_per_participant_and_situation_and_stored(study, storage, clock):
    flow = Flow(study, storage, clock=clock)
    orders = Counter()
    per_participant = []
    for _ in range(12):
        token = consented(flow)
        steps = [s for s in flow.steps(flow.state(token)) if s.kind == "situation"]
        per_participant.append(tuple(s.order for s in steps))
        orders.update(s.order for s in steps)
        for s in steps:
            assert sorted(s.order) == ["Alpha", "Beta", "Gamma"]
        walk(flow, token, until="situation-3")
        for rec in storage.records(participant=token, kind="situation"):
            step = next(s for s in steps if s.name == rec["step"])
            assert [r["system"] for r in rec["responses"]] == list(step.order)
            assert [r["position"] for r in rec["responses"]] == [1, 2, 3]
    assert len(orders) == 6  # every permutation of three systems occurs (60 draws)
    # Orders are drawn per participant: two of twelve draw the same five orders by chance in ~1% of
    # runs (66 pairs / 6^5), which failed CI once; one fixed order for everyone would give 1.
    assert len(set(per_participant)) >= 10
    assert any(len(set(p)) > 1 for p in per_participant)  # not one order per participant


def test_attention_check_position_within_bounds(tmp_path, storage, clock):
    study = load_study(make_study(tmp_path, per_participant=6, attention_check={"positions": [2, 4]}))
    flow = Flow(study, storage, clock=clock)
    positions = Counter()
    for _ in range(30):
        steps = [s for s in flow.steps(flow.state(consented(flow))) if s.kind == "situation"]
        checks = [s for s in steps if s.attention_check]
        assert len(checks) == 1
        assert checks[0].situation_id == "check-t1"
        assert checks[0].instructed_system in study.systems
        positions[checks[0].index] += 1
        assert "check-t1" not in {s.situation_id for s in steps if not s.attention_check}
        assert len({s.situation_id for s in steps}) == 6
    assert set(positions) == {2, 3, 4}


@pytest.mark.parametrize("fail", [False, True])
def test_attention_check_result_is_recorded(flow, storage, study, fail):
    token = consented(flow)
    walk(flow, token, fail_check=fail)
    recs = storage.records(participant=token, kind="situation")
    [check] = [r for r in recs if r["attention_check"]]
    assert check["attention_passed"] is (not fail)
    [instructed] = [r for r in check["responses"] if r["instructed"]]
    assert instructed["text"] == study.config.attention_check.text
    assert all("attention_passed" not in r for r in recs if not r["attention_check"])
    # on_attention_fail = "continue": the participant goes on to the end
    complete = flow.state(token).complete
    assert complete["outcome"] == "completed"
    p = tables.participants_table(storage.records())
    assert bool(p.loc[0, "attention_passed"]) is (not fail) and p.loc[0, "status"] == "completed"


def test_screen_out_ends_the_study_at_a_failed_check(tmp_path, storage, clock):
    study = load_study(make_study(tmp_path, per_participant=5, quality={"on_attention_fail": "screen_out"}))
    flow = Flow(study, storage, clock=clock)
    token = consented(flow)
    check = next(s for s in flow.steps(flow.state(token)) if s.attention_check)
    walk(flow, token, until=check.name)
    result = flow.submit(token, check.name, answers_for(study, check, fail_check=True))
    assert result.ok and result.next_step.kind == "done"
    st = flow.state(token)
    assert st.complete["outcome"] == "screened_out"
    assert flow.completion(st).code == st.complete["completion_code"]
    assert len(storage.records(participant=token, kind="situation")) == check.index
    nxt = flow.steps(st)[check.index + 1]
    assert not flow.submit(token, nxt.name, answers_for(study, nxt)).ok
    assert "questionnaire" not in kinds(storage, token)
    assert tables.participants_table(storage.records()).loc[0, "status"] == "screened_out"


def test_screen_out_passing_participant_completes(tmp_path, storage, clock):
    study = load_study(make_study(tmp_path, per_participant=5, quality={"on_attention_fail": "screen_out"}))
    flow = Flow(study, storage, clock=clock)
    token = consented(flow)
    walk(flow, token)
    assert flow.state(token).complete["outcome"] == "completed"


def test_questionnaire_attention_item(flow, storage, study):
    token = consented(flow)
    walk(flow, token, until="questionnaire")
    answers = answers_for(study, current(flow, token))
    answers["careful"] = "Disagree"
    assert flow.submit(token, "questionnaire", answers).ok
    [rec] = storage.records(participant=token, kind="questionnaire")
    assert rec["attention_passed"] is False
    assert rec["answers"]["careful"] == 2
    missing = {k: v for k, v in answers.items() if k != "natural"}
    token2 = consented(flow)
    walk(flow, token2, until="questionnaire")
    result = flow.submit(token2, "questionnaire", missing)
    assert not result.ok and result.errors == ("Please answer statement 1: The dialogs felt natural.",)


# -- the end --------------------------------------------------------------------


def test_completion_code_only_after_everything_is_stored(flow, storage, study):
    token = consented(flow)
    walk(flow, token, until="demographics")
    st = flow.state(token)
    assert flow.completion(st) is None and st.complete is None
    answers = answers_for(study, current(flow, token))
    bad = dict(answers, gender="Robot")
    assert not flow.submit(token, "demographics", bad).ok
    assert flow.completion(flow.state(token)) is None
    result = flow.submit(token, "demographics", answers)
    assert result.ok and result.next_step.kind == "done"
    st = flow.state(token)
    done = flow.completion(st)
    assert done.code == st.complete["completion_code"] and done.redirect_url is None
    assert done.code in done.text
    recs = storage.records(participant=token)
    assert recs[-1]["kind"] == "complete"
    answered = {r["step"] for r in recs if r["kind"] in ("consent", "situation", "questionnaire", "demographics")}
    assert answered == {s.name for s in flow.steps(st) if s.kind != "done"}
    # nothing further is accepted, and finishing again does not draw a new code
    assert not flow.submit(token, "done", {}).ok
    assert flow.submit(token, "demographics", answers).stored is False
    assert flow.state(token).complete["completion_code"] == done.code


def test_timing_comes_from_the_clock(flow, storage, study, clock):
    start = clock.now
    token = flow.arrive({})
    clock.advance(30)
    flow.mark_shown(flow.state(token), current(flow, token))
    clock.advance(12.5)
    submit_consent(flow, token)
    [consent] = storage.records(participant=token, kind="consent")
    assert consent["shown_at"] == iso(start + timedelta(seconds=30))
    assert consent["answered_at"] == iso(start + timedelta(seconds=42.5))
    assert consent["seconds"] == 12.5
    # the first display is kept across refreshes
    step = current(flow, token)
    clock.advance(5)
    first = flow.mark_shown(flow.state(token), step)
    clock.advance(100)
    assert Flow(study, storage, clock=clock).mark_shown(flow.state(token), step) == first
    clock.advance(7)
    flow.submit(token, step.name, answers_for(study, step))
    [sit] = storage.records(participant=token, kind="situation")
    assert sit["shown_at"] == first and sit["seconds"] == 107.0
    walk(flow, token, seconds=10)
    complete = flow.state(token).complete
    assert complete["started_at"] == iso(start)
    assert complete["ended_at"] == iso(clock.now)
    assert complete["total_seconds"] == (clock.now - start).total_seconds()
    assert [r["kind"] for r in storage.records(participant=token, kind="shown")].count("shown") == 8


def test_step_never_shown_takes_zero_seconds(flow, storage, clock):
    token = flow.arrive({})
    clock.advance(50)
    submit_consent(flow, token)
    [consent] = storage.records(participant=token, kind="consent")
    assert consent["seconds"] == 0 and consent["shown_at"] == consent["answered_at"]


def test_records_have_every_documented_field(flow, storage, study):
    token = consented(flow)
    walk(flow, token)
    other = consented(flow)
    flow.withdraw(other, "changed my mind")
    recs = storage.records()
    assert {r["kind"] for r in recs} == set(FIELDS)
    for rec in recs:
        want = COMMON | FIELDS[rec["kind"]]
        if rec["kind"] == "situation" and rec["attention_check"]:
            want |= {"attention_passed"}
        assert want <= set(rec), (rec["kind"], want - set(rec))
        assert rec["study"] == study.id and rec["dataset_version"] == study.dataset_version
        assert rec["preview"] is False
        suffix = SUFFIX.get(rec["kind"]) or (
            f"shown/{rec['step']}" if rec["kind"] == "shown" else f"step/{rec['step']}"
        )
        assert rec["key"] == f"{study.id}/{rec['participant']}/{suffix}"
    [a] = [r for r in recs if r["kind"] == "assignment" and r["participant"] == token]
    for s in a["steps"]:
        assert {"step", "index", "situation_id", "order", "attention_check"} <= set(s)
    for rec in (r for r in recs if r["kind"] == "situation"):
        for resp in rec["responses"]:
            assert {"position", "system", "text", "ratings"} <= set(resp)
        assert rec["context"] == [{"role": "user", "text": f"hi, I want a movie ({rec['situation_id']})"}]
        assert rec["dialog_id"] == study.situation(rec["situation_id"]).dialog_id


# -- withdrawal and previews ------------------------------------------------------


def test_withdraw_is_recorded_and_excluded(flow, storage, study, clock):
    stays = consented(flow)
    walk(flow, stays)
    leaves = consented(flow)
    walk(flow, leaves, until="situation-4")
    assert flow.withdraw(leaves, "no time")
    assert flow.withdraw(leaves) is False  # once
    st = flow.state(leaves)
    assert st.withdrawn["reason"] == "no time" and st.withdrawn["delete_requested"] is False
    assert flow.current(st).kind == "done" and flow.completion(st) is None
    step = flow.steps(st)[4]
    assert not flow.submit(leaves, step.name, answers_for(study, step)).ok
    recs = storage.records()
    answered = Counter(
        r["situation_id"]
        for r in recs
        if r["kind"] == "situation" and not r["attention_check"] and r["participant"] == stays
    )
    cov = {c["situation_id"]: c for c in assignment.coverage(study, recs, clock())}
    assert {sid: c["ratings"] for sid, c in cov.items() if c["ratings"]} == dict(answered)
    assert sum(c["reserved"] for c in cov.values()) == 0
    assert set(tables.ratings_table(recs)["participant"]) == {stays}
    assert set(tables.ratings_table(recs, include_withdrawn=True)["participant"]) == {stays, leaves}
    assert set(tables.steps_table(recs)["participant"]) == {stays}
    p = tables.participants_table(recs, include_withdrawn=False)
    assert list(p["participant"]) == [stays]
    p = tables.participants_table(recs)
    assert dict(zip(p["participant"], p["status"])) == {stays: "completed", leaves: "withdrawn"}


def test_withdrawn_participants_reservations_are_released(flow, storage, study, clock):
    leaves = consented(flow)
    reserved = {
        s.situation_id for s in flow.steps(flow.state(leaves)) if s.kind == "situation" and not s.attention_check
    }
    cov = {c["situation_id"]: c["reserved"] for c in assignment.coverage(study, storage.records(), clock())}
    assert {sid for sid, n in cov.items() if n} == reserved
    flow.withdraw(leaves)
    assert all(c["reserved"] == 0 for c in assignment.coverage(study, storage.records(), clock()))


def test_preview_participants_never_count(flow, storage, study, clock):
    token = flow.arrive({}, preview=True)
    submit_consent(flow, token)
    walk(flow, token)
    st = flow.state(token)
    assert st.preview and st.complete is not None
    assert all(r["preview"] for r in storage.records(participant=token))
    recs = storage.records()
    assert all(c["ratings"] == 0 and c["reserved"] == 0 for c in assignment.coverage(study, recs, clock()))
    assert tables.ratings_table(recs).empty
    assert tables.participants_table(recs).empty
    assert tables.steps_table(recs).empty
    assert len(tables.participants_table(recs, include_preview=True)) == 1
    # a real participant next is assigned as if the preview had never happened
    real = consented(flow)
    assert sum(c["reserved"] for c in assignment.coverage(study, storage.records(), clock())) == 4
    assert flow.state(real).preview is False


# -- platforms ------------------------------------------------------------------

PID = "5f1e2d3c4b5a69788796a5b4"


@pytest.fixture
def prolific(tmp_path, storage, clock):
    study = load_study(
        make_study(
            tmp_path,
            name="prolific",
            per_participant=4,
            platform={"kind": "prolific", "completion_code": "C1ABCD23", "require_id": True},
        )
    )
    return Flow(study, storage, clock=clock)


SESSION = {"PROLIFIC_PID": PID, "STUDY_ID": "a" * 24, "SESSION_ID": "b" * 24}


def test_one_participation_per_prolific_id(prolific, storage):
    query = dict(SESSION)
    token = prolific.arrive(query)
    arrival = prolific.state(token).arrival
    assert arrival["platform"] == "prolific" and arrival["platform_id"] == PID
    assert arrival["platform_params"] == query
    submit_consent(prolific, token)
    walk(prolific, token, until="situation-3")
    assert prolific.arrive(query) == token  # the same Prolific session again: resumes
    assert current(prolific, token).name == "situation-3"
    walk(prolific, token)
    code = prolific.state(token).complete["completion_code"]
    again = prolific.arrive(query)
    assert again == token
    st = prolific.state(again)
    assert prolific.current(st).kind == "done"
    done = prolific.completion(st)
    assert done.code == "C1ABCD23" and done.redirect_url.endswith("cc=C1ABCD23")
    assert st.complete["completion_code"] == code
    assert len(storage.records(kind="arrival")) == 1
    assert prolific.arrive({"PROLIFIC_PID": "6" * 24}) != token


@pytest.mark.parametrize(
    "query",
    [
        {"PROLIFIC_PID": PID},  # the ID alone
        {"PROLIFIC_PID": PID, "STUDY_ID": "a" * 24},
        {"PROLIFIC_PID": PID.upper(), "STUDY_ID": "a" * 24},  # case does not make a new person
    ],
)
def test_a_platform_id_alone_never_takes_over_a_session(prolific, storage, query):
    """Another SESSION_ID is a participant of its own (tests/participation/test_shared_platform_id.py)."""
    token = prolific.arrive(dict(SESSION))
    submit_consent(prolific, token)
    n = len(storage.records())
    with pytest.raises(IdInUse) as info:
        prolific.arrive(query)
    assert token not in info.value.participant_message and "another session" in info.value.participant_message
    with pytest.raises(IdInUse):
        prolific.admit(query)
    assert len(storage.records()) == n, "a refused arrival stored something"


def test_ids_that_differ_only_in_case_are_one_participant(prolific, storage):
    token = prolific.arrive(dict(SESSION))
    shouting = {k: v.upper() for k, v in SESSION.items()}
    assert prolific.arrive(shouting) == token
    assert len(storage.records(kind="arrival")) == 1


def test_admit_stores_nothing_and_finds_the_session(prolific, storage):
    arrival, token = prolific.admit(dict(SESSION))
    assert token is None and arrival.platform_id == PID and storage.records() == []
    stored = prolific.arrive(dict(SESSION))
    assert prolific.admit(dict(SESSION))[1] == stored


def test_unusual_id_warning_is_stored_with_the_arrival(prolific):
    token = prolific.arrive({"PROLIFIC_PID": "ABC123", "SESSION_ID": "s1"})
    warnings = prolific.state(token).arrival["platform_warnings"]
    assert any("PROLIFIC_PID" in w and "24-character" in w for w in warnings)


@pytest.mark.parametrize(
    "query",
    [
        {},  # require_id: the id is missing
        {"PROLIFIC_PID": "{{%PROLIFIC_PID%}}"},  # unfilled placeholder
        {"PROLIFIC_PID": ""},
        {"PROLIFIC_PID": "abc def"},
        {"PROLIFIC_PID": PID, "p": "../../etc"},
    ],
)
def test_invalid_platform_params_are_refused_and_not_stored(prolific, storage, query):
    with pytest.raises(PlatformError) as info:
        prolific.arrive(query)
    assert info.value.participant_message
    assert storage.records() == []


def test_group_parameter_is_stored(tmp_path, storage, clock):
    study = load_study(make_study(tmp_path, platform={"group_values": ["x", "y"]}))
    flow = Flow(study, storage, clock=clock)
    token = flow.arrive({"q": "y"})
    assert flow.state(token).arrival["group"] == "y"
    with pytest.raises(PlatformError):
        flow.arrive({"q": "z"})


def test_simultaneous_arrivals_of_one_prolific_id_share_a_token(prolific, storage):
    import threading

    barrier = threading.Barrier(8)
    tokens = []

    def go():
        barrier.wait()
        tokens.append(Flow(prolific.study, storage, clock=prolific.clock).arrive(dict(SESSION)))

    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(tokens) == 8 and len(set(tokens)) == 1
    assert len(storage.records(kind="arrival")) == 1


def test_a_withdrawn_prolific_session_cannot_start_again(prolific, storage):
    token = prolific.arrive(dict(SESSION))
    submit_consent(prolific, token)
    prolific.withdraw(token)
    with pytest.raises(IdInUse):
        prolific.arrive({"PROLIFIC_PID": PID})  # the ID without a session of its own
    other = prolific.arrive({"PROLIFIC_PID": PID, "SESSION_ID": "f" * 24})  # another submission: its own person
    assert other != token and prolific.state(other).withdrawn is None
    again = prolific.arrive(dict(SESSION))
    assert again == token
    st = prolific.state(again)
    assert st.withdrawn is not None and prolific.current(st).kind == "done" and prolific.completion(st) is None


def test_previews_do_not_take_a_platform_id(prolific, storage):
    preview = prolific.arrive(dict(SESSION), preview=True)
    real = prolific.arrive(dict(SESSION))
    assert real != preview
    assert prolific.arrive(dict(SESSION)) == real
