"""Fixtures for the Prolific tests: the API stub (a thread), a study on Prolific, and a session on a memory store."""

from __future__ import annotations

import pytest

from simulations.prolific_stub import ProlificStub
from tests.support.prolific import TOKEN, prolific_study_folder


@pytest.fixture
def stub():
    with ProlificStub(TOKEN) as s:
        yield s


@pytest.fixture
def study(tmp_path):
    from infact.study.loader import load_study

    return load_study(prolific_study_folder(tmp_path))


@pytest.fixture
def session(study, stub):
    from infact.prolific.session import open_session
    from infact.storage import MemoryStorage

    s = open_session(study, MemoryStorage(), base_url=stub.url, environ={"PROLIFIC_TOKEN": TOKEN}, sleep=lambda _: None)
    yield s
    s.client.close()
