"""A process killed between storing a participant's last answer and their completion record (a replica
SIGKILLed behind nginx: bench/replicas.py --kill found it) left them on "Saving your answers… please
reload the page." on every replica, for good. The done page now stores the missing completion."""

from __future__ import annotations

from infact.participation.flow import Flow
from infact.stores.memory import MemoryStorage
from infact.study.loader import load_study
from tests.support.participants import consented
from tests.support.studies import FakeClock, make_study, walk


class DiesBeforeCompletion(MemoryStorage):
    """A store whose writer dies just before the completion record."""

    def append(self, record: dict) -> bool:
        if record["kind"] == "complete":
            return False  # never written: the process is gone
        return super().append(record)


def test_the_done_page_stores_the_completion_a_crash_left_out(tmp_path):
    study = load_study(make_study(tmp_path, n_situations=4, per_participant=2))
    crashed = DiesBeforeCompletion()
    flow = Flow(study, crashed, clock=FakeClock())
    token = consented(flow)
    walk(flow, token)
    st = flow.state(token)
    assert flow.current(st).kind == "done" and st.complete is None and flow.completion(st) is None
    # Another replica, healthy, on the same store:
    other = Flow(study, crashed, clock=FakeClock())
    crashed.append = MemoryStorage.append.__get__(crashed)  # the store itself is fine
    st = other.finish_pending(other.state(token))
    assert st.complete["outcome"] == "completed" and other.completion(st) is not None
    assert other.finish_pending(st) is st  # once only
    assert len(crashed.records(kind="complete")) == 1


def test_nothing_is_completed_early(tmp_path):
    study = load_study(make_study(tmp_path, n_situations=4, per_participant=2))
    flow = Flow(study, MemoryStorage(), clock=FakeClock())
    token = consented(flow)
    st = flow.finish_pending(flow.state(token))
    assert st.complete is None and flow.current(st).kind == "situation"
