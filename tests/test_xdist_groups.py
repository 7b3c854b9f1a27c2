"""The xdist groups of scripts/test.sh's `--dist loadgroup` hold: one unit per test file, every browser test in one
(tests/support/xdist_groups.py: pytest-xdist 3.8 loses the marks under pytest 9.2)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.support.xdist_groups import TESTS, file_group_scheduler, group_of


def test_a_file_is_its_group_and_browser_tests_are_one():
    assert group_of(TESTS / "stores" / "test_tinydb.py") == "stores/test_tinydb.py"
    assert group_of(TESTS / "test_values.py") == "test_values.py"
    assert group_of(TESTS / "e2e" / "test_participant_e2e.py") == "browser"


def test_the_scheduler_puts_a_files_tests_in_one_unit():
    pytest.importorskip("xdist")
    config = SimpleNamespace(rootpath=TESTS.parent, getvalue={"tx": ["2*popen"]}.get)
    sched = file_group_scheduler(config, None)
    scopes = {
        nodeid: sched._split_scope(nodeid)
        for nodeid in (
            "tests/ui/test_app.py::test_a[1]",
            "tests/ui/test_app.py::test_b",
            "tests/ui/test_app.py::TestC::test_d",
            "tests/e2e/test_live_e2e.py::test_x",
            "tests/e2e/test_acute_e2e.py::test_y[phone]",
        )
    }
    assert set(scopes.values()) == {"ui/test_app.py", "browser"}
    assert scopes["tests/ui/test_app.py::TestC::test_d"] == "ui/test_app.py"
