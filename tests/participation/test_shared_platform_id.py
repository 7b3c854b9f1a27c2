"""Issue 36 item 3, the participant's side: a platform ID already taking part with another session is not
owned by whoever came first. A second SESSION_ID is a participant of its own (marked), found again on
reload; an ID without a session still opens nothing. Runs against every backend (the `storage` fixture)."""

from __future__ import annotations

import pytest

from infact.participation.flow import Flow
from infact.participation.platforms import IdInUse
from infact.study.loader import load_study
from tests.support.participants import submit_consent
from tests.support.studies import FakeClock, make_study, walk

PID = "5f1e2d3c4b5a69788796a5b4"
REAL = {"PROLIFIC_PID": PID, "STUDY_ID": "a" * 24, "SESSION_ID": "b" * 24}
IMPOSTOR = {"PROLIFIC_PID": PID, "STUDY_ID": "a" * 24, "SESSION_ID": "c" * 24}


@pytest.fixture
def prolific(tmp_path, storage):
    folder = make_study(
        tmp_path, name="prolific", per_participant=4, platform={"kind": "prolific", "completion_code": "C1ABCD23"}
    )
    return Flow(load_study(folder), storage, clock=FakeClock())


def test_the_real_participant_is_not_locked_out_by_someone_who_came_first(prolific, storage):
    first = prolific.arrive(dict(IMPOSTOR))
    submit_consent(prolific, first)
    real = prolific.arrive(dict(REAL))  # before: IdInUse, "already takes part"
    assert real != first
    submit_consent(prolific, real)
    walk(prolific, real)
    st = prolific.state(real)
    assert st.complete is not None and prolific.completion(st).code == "C1ABCD23"
    assert st.arrival["platform_params"]["SESSION_ID"] == "b" * 24
    assert st.arrival["platform_id_shared"] == first  # not silent: the second session names the first
    assert prolific.state(first).complete is None  # the first session's run is its own


def test_each_session_reopens_its_own_participant(prolific, storage):
    first = prolific.arrive(dict(IMPOSTOR))
    real = prolific.arrive(dict(REAL))
    assert prolific.arrive(dict(REAL)) == real  # a reload of the second session
    assert prolific.arrive({k: v.upper() for k, v in REAL.items()}) == real  # letter case ignored
    assert prolific.arrive(dict(IMPOSTOR)) == first
    assert prolific.admit(dict(REAL))[1] == real
    fresh = Flow(prolific.study, storage, clock=FakeClock())  # another server process
    assert fresh.arrive(dict(REAL)) == real
    assert len(storage.records(kind="arrival")) == 2


def test_an_id_without_a_session_still_opens_nothing(prolific, storage):
    prolific.arrive(dict(IMPOSTOR))
    prolific.arrive(dict(REAL))
    n = len(storage.records())
    with pytest.raises(IdInUse):
        prolific.arrive({"PROLIFIC_PID": PID})
    assert len(storage.records()) == n


def test_the_alias_is_kept_apart_from_the_participants(prolific, storage):
    from infact.results.study_results import StudyResults

    prolific.arrive(dict(IMPOSTOR))
    real = prolific.arrive(dict(REAL))
    aliases = storage.records(participant="_sessions")
    assert [a["became"] for a in aliases] == [real]
    assert PID not in str(aliases) and "b" * 24 not in str(aliases)  # keyed by a hash only
    people = StudyResults(prolific.study, storage.records(study=prolific.study.id)).tables.participants
    assert sorted(people["platform_id"]) == [PID, PID]
