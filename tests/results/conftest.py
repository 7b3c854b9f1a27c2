"""Fixtures of the results tests."""

from __future__ import annotations

import pytest

from infact.study.loader import load_study
from tests.support.paths import DEMO_STUDY


@pytest.fixture(scope="module")
def demo():
    """The demo study, loaded once per module."""
    return load_study(DEMO_STUDY)
