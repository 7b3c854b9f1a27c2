"""infact/state.py: progress rebuilt from storage, cached between reruns, never trusted
over storage when something is submitted."""

from __future__ import annotations

from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest

from infact import storage as storage_module
from infact import ui
from infact.participation.flow import Flow
from infact.state import ProgressCache, load
from infact.storage import MemoryStorage, TinyDBStorage
from infact.study.loader import load_study
from tests.support.app import give_consent, progress_text
from tests.support.participants import consented
from tests.support.paths import DEMO_STUDY, REPO
from tests.support.studies import answers_for, make_study


class CountingStorage:
    """Delegates to a real store and counts every call that reads or writes it."""

    READS = ("records", "changes")
    WRITES = ("append", "purge")

    def __init__(self, inner):
        self.inner = inner
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name):
        attr = getattr(self.inner, name)
        if name in self.READS + self.WRITES:

            def counted(*args, **kwargs):
                self.calls[name] += 1
                return attr(*args, **kwargs)

            return counted
        return attr

    @property
    def reads(self) -> int:
        return sum(self.calls[n] for n in self.READS)

    @property
    def writes(self) -> int:
        return sum(self.calls[n] for n in self.WRITES)


@pytest.fixture
def study(tmp_path):
    return load_study(make_study(tmp_path, n_situations=8, per_participant=4, attention_check={"positions": [2, 3]}))


def test_progress_is_rebuilt_from_storage(study):
    flow = Flow(study, MemoryStorage())
    token = consented(flow)
    progress = load(flow, token)
    assert progress.token == token
    assert [s.name for s in progress.steps][:2] == ["consent", "situation-1"]
    assert progress.answered == {"consent"} and progress.current.name == "situation-1"
    assert load(flow, "nobody") is None


def test_a_cached_rerun_reads_nothing_and_a_submit_always_reads(study):
    store = CountingStorage(MemoryStorage())
    flow = Flow(study, store)
    token = consented(flow)
    session: dict = {}
    cache = ProgressCache(session)
    first = cache.get(flow, token)
    assert store.reads >= 1
    store.calls.clear()
    for _ in range(3):  # reruns that store nothing
        assert cache.get(flow, token) is first
    assert store.reads == 0 and store.writes == 0

    result = flow.submit(token, first.current.name, answers_for(study, first.current))
    assert store.reads >= 1, "a submit must check against storage"
    after = cache.put(flow, result.state)
    store.calls.clear()
    assert cache.get(flow, token) is after and after.current.name == "situation-2"
    assert store.reads == 0


def test_another_token_or_study_is_not_served_from_the_cache(study, tmp_path):
    flow = Flow(study, MemoryStorage())
    a, b = consented(flow), consented(flow)
    cache = ProgressCache({})
    assert cache.get(flow, a).token == a
    assert cache.get(flow, b).token == b
    other = Flow(load_study(make_study(tmp_path, name="other", study={"id": "other"})), flow.storage)
    assert cache.get(other, b) is None  # b is no participant of the other study
    cache.drop()
    assert ProgressCache.KEY not in cache.session


@pytest.mark.parametrize("processes", [False, True])
def test_a_second_tab_or_process_cannot_make_the_cached_state_lie(study, tmp_path, processes):
    """Tab A and tab B show situation 1 of one participant from their caches; A submits.
    B's stale page then submits the same step: nothing is stored twice and B moves on."""

    def storage():
        return TinyDBStorage(tmp_path / "db") if processes else shared

    shared = MemoryStorage()
    flow_a, flow_b = Flow(study, storage()), Flow(study, storage())
    token = consented(flow_a)
    tab_a, tab_b = ProgressCache({}), ProgressCache({})
    step = tab_a.get(flow_a, token).current
    assert tab_b.get(flow_b, token).current == step

    tab_a.put(flow_a, flow_a.submit(token, step.name, answers_for(study, step, rating=5)).state)
    stale = tab_b.get(flow_b, token)
    assert stale.current == step  # B's page is stale for a rerun, as a browser tab would be
    result = flow_b.submit(token, step.name, answers_for(study, step, rating=1))
    assert result.ok and not result.stored
    fresh = tab_b.put(flow_b, result.state)
    assert fresh.current.name == "situation-2" and "situation-1" in fresh.answered
    [stored] = flow_b.storage.records(participant=token, kind="situation")
    assert {v for r in stored["responses"] if not r["instructed"] for v in r["ratings"].values()} == {5}

    flow_a.withdraw(token)
    late = flow_b.submit(token, fresh.current.name, answers_for(study, fresh.current))
    assert not late.ok and "withdrawn" in late.errors[0]
    assert tab_b.put(flow_b, late.state).current.kind == "done"
    assert flow_b.storage.records(participant=token, kind="situation") == [stored]


# -- the participant page -------------------------------------------------------


@pytest.fixture
def counted_app(tmp_path, monkeypatch):
    """The app on the demo study with its store wrapped in a CountingStorage."""
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(DEMO_STUDY))
    wrapped: list[CountingStorage] = []

    def open_counted(target):
        wrapped.append(CountingStorage(storage_module.open_storage(target)))
        return wrapped[-1]

    monkeypatch.setattr(ui.resources, "open_storage", open_counted)
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    at.run()
    give_consent(at)
    assert not at.exception
    [store] = wrapped
    return at, store


def test_a_page_rerun_that_stores_nothing_reads_nothing(counted_app):
    at, store = counted_app
    assert any(r.key == "situation-1-A-meaningful" for r in at.radio)
    at.run()  # the first display of situation 1 stored its "shown" time: settled now
    store.calls.clear()
    for label in ("Meaningless", "Somewhat meaningful", "Perfectly meaningful"):
        at.radio(key="situation-1-A-meaningful").set_value(label)
        at.run()
        assert not at.exception
    assert store.reads == 0 and store.writes == 0, store.calls


def test_a_page_submit_reads_storage_and_shows_what_was_stored(counted_app):
    at, store = counted_app
    at.run()
    store.calls.clear()
    at.button(key="submit-situation-1").click()  # nothing rated: refused
    at.run()
    assert store.reads >= 1 and store.writes == 0
    assert any("Please rate response" in e.value for e in at.error)
    for letter in "ABC":
        at.radio(key=f"situation-1-{letter}-meaningful").set_value("Meaningless")
    at.button(key="submit-situation-1").click()
    at.run()
    assert store.calls["append"] >= 2  # the answer, then situation 2's shown time
    assert progress_text(at) == "Situation 2 of 10"
