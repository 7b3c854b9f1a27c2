"""How pytest-xdist shares the test files between its workers (the hooks are in tests/conftest.py).

Units of work. Under `--dist loadgroup` each test file is one unit, so a module's fixtures (bot-played stores,
servers, a deployment) are built once, as in a serial run, and every real-browser test is in one unit, so
browsers never run beside the CPU-bound tests (first clicks were lost under that load). xdist's own loadgroup
reads `xdist_group` marks through a suffix it writes into each test's node id; since pytest 9.2 (structured node
ids) that write is lost, so no test had a group and a file's tests were spread over both workers, each building
the module's fixtures again (pytest-xdist issue 1386). FileGroups takes the unit from the node id's path.

Order. The workers take units from one queue; xdist's default puts the files with most tests first, so a
long file of three tests went last while the other worker had ended. longest_first orders the files by their
expected seconds (the classic longest-processing-time rule), from MEASURED_S: seconds on 2 shared cores
(`--durations=0`, setup + call + teardown summed per file and split into its `slow` tests and the rest). The
figures only order the queue: a stale one costs time, never a result. A file not listed counts its tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

BROWSER_UNIT = "tests/e2e/"

# tests/-relative path: (seconds of its `slow` tests, seconds of the others), measured; longest first.
MEASURED_S: dict[str, tuple[float, float]] = {}

SLOW_TEST_S = 10.0  # a `slow` test of a file not in MEASURED_S
TEST_S = 0.05  # any other such test


class FileGroups(LoadScopeScheduling):
    """`--dist loadgroup` with a test file as the unit of work, all of tests/e2e/ as one."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return BROWSER_UNIT if path.startswith(BROWSER_UNIT) else path


def expected_seconds(items: list[pytest.Item], here: Path) -> dict[str, float]:
    """Each file's expected seconds for the tests that will run: measured where listed, else counted."""
    out: dict[str, float] = {}
    parts: dict[str, set[bool]] = {}
    for item in items:
        name = Path(str(item.fspath)).relative_to(here).as_posix()
        slow = item.get_closest_marker("slow") is not None
        if name in MEASURED_S:
            parts.setdefault(name, set()).add(slow)
        else:
            out[name] = out.get(name, 0.0) + (SLOW_TEST_S if slow else TEST_S)
    for name, kinds in parts.items():
        slow_s, other_s = MEASURED_S[name]
        out[name] = (slow_s if True in kinds else 0.0) + (other_s if False in kinds else 0.0)
    return out


def longest_first(items: list[pytest.Item], here: Path) -> list[pytest.Item]:
    """The items with whole files ordered by expected seconds, longest first; within a file, as collected."""
    seconds = expected_seconds(items, here)
    names = [Path(str(item.fspath)).relative_to(here).as_posix() for item in items]
    first_seen: dict[str, int] = {}
    for index, name in enumerate(names):
        first_seen.setdefault(name, index)
    order = sorted(range(len(items)), key=lambda i: (-seconds[names[i]], first_seen[names[i]], i))
    return [items[i] for i in order]
