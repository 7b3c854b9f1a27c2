"""Under pytest-xdist (scripts/test.sh: -n 2 --dist loadgroup) a test file is one unit of work, run by one worker
in one process, so its module fixtures are built once; the longest files go first (tests/support/schedule.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.schedule import BROWSER_UNIT, LONGEST, FileGroups, expected_seconds

SEEN: list[str] = []


def test_the_first_test_of_this_file_notes_its_process():
    SEEN.append(f"{os.getpid()} {os.environ.get('PYTEST_XDIST_WORKER', '')}")


@pytest.mark.parametrize("i", range(6))
def test_every_other_test_of_this_file_runs_in_the_same_process(i):
    # Split over two workers (as under pytest 9.2 with xdist's own loadgroup), some of these ran where SEEN was empty.
    assert SEEN == [f"{os.getpid()} {os.environ.get('PYTEST_XDIST_WORKER', '')}"]


def test_the_unit_of_a_test_is_its_file_and_every_browser_test_shares_one():
    split = FileGroups._split_scope
    assert split(None, "tests/a/test_x.py::test_y[p::q@r]") == "tests/a/test_x.py"
    assert split(None, "tests/a/test_x.py::Class::test_y@tests/a/test_x.py") == "tests/a/test_x.py"
    assert split(None, "tests/e2e/test_one.py::test_y") == split(None, "tests/e2e/two/test_z.py::t") == BROWSER_UNIT


class FakeItem:
    def __init__(self, path: Path, slow: bool = False):
        self.fspath, self.slow = path, slow

    def get_closest_marker(self, name):
        return name == "slow" and self.slow or None


def test_listed_files_go_first_in_their_order_then_the_others_by_their_tests(tmp_path):
    listed = [FakeItem(tmp_path / LONGEST[1]), FakeItem(tmp_path / LONGEST[0])]
    many = [FakeItem(tmp_path / "test_many.py") for _ in range(50)]
    one_slow = [FakeItem(tmp_path / "test_one_slow.py", slow=True)]
    seconds = expected_seconds([*many, *one_slow, *listed], tmp_path)
    ranked = sorted(seconds, key=seconds.get, reverse=True)
    assert ranked == [LONGEST[0], LONGEST[1], "test_one_slow.py", "test_many.py"]
