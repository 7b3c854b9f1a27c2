"""How pytest-xdist shares the test files between its workers (the hooks are in tests/conftest.py).

Units of work. Under `--dist loadgroup` each test file is one unit, so a module's fixtures (bot-played stores,
servers, a deployment) are built once, as in a serial run, and every real-browser test is in one unit, so
browsers never run beside the CPU-bound tests (first clicks were lost under that load). xdist's own loadgroup
reads `xdist_group` marks through a suffix it writes into each test's node id; since pytest 9.2 (structured node
ids) that write is lost, so no test had a group and a file's tests were spread over both workers, each building
the module's fixtures again (pytest-xdist issue 1386). FileGroups takes the unit from the node id's path.

Order. The workers take units from one queue; xdist's default puts the files with most tests first, so a
long file of three tests went last while the other worker had ended. longest_first puts the files of LONGEST
first, in its order (the classic longest-processing-time rule), then every other file by its tests counted (a
`slow` one as SLOW_TEST_S). The list only orders the queue: a stale entry costs time, never a result."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

BROWSER_UNIT = "tests/e2e/"

# The longest files, longest first: summed setup + call + teardown of a quiet 2-core run on 2026-12-02, `slow` tests
# included (`pytest --durations=0`), after MACE's one restart. The browser files (their own phase, `--dist loadfile`)
# first: their order is kept within the phase. The rest: nginx replicas 108 s (about 35 s since the app's config
# turned runner.postScriptGC off), bots on four demos drawn by AppTest 52 s, hostile input to `python -m infact`
# 43 s, SIGKILLed bonus runs 43 s, simulators on three demos 42 s, ...
LONGEST = [
    "e2e/test_protocol_pages_e2e.py",
    "e2e/test_participant_ux_e2e.py",
    "e2e/test_export_links_e2e.py",
    "e2e/test_concurrent_e2e.py",
    "e2e/test_researcher_e2e.py",
    "e2e/test_long_words_e2e.py",
    "e2e/test_pairwise_e2e.py",
    "e2e/test_participant_e2e.py",
    "test_nginx_replicas.py",
    "ui/test_comparison_dashboard.py",
    "cli/test_bad_input.py",
    "prolific/test_bonus_kills.py",
    "results/judges/test_simulators_against_people.py",
    "results/ranking/test_fragility.py",
    "results/ratings/test_analysis.py",
    "stores/test_storage.py",
    "results/crowd/test_label_models.py",
    "ui/test_dashboard_sections.py",
    "ui/test_ranking_dashboard.py",
    "participation/test_balance_processes.py",
    "ui/test_app.py",
    "participation/test_flow.py",
]

SLOW_TEST_S = 10.0  # a `slow` test of a file not in LONGEST
TEST_S = 0.05  # any other such test


class FileGroups(LoadScopeScheduling):
    """`--dist loadgroup` with a test file as the unit of work, all of tests/e2e/ as one."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return BROWSER_UNIT if path.startswith(BROWSER_UNIT) else path


def expected_seconds(items: list[pytest.Item], here: Path) -> dict[str, float]:
    """Each file's weight for the queue: LONGEST's files above all others, in its order; else its tests counted."""
    out: dict[str, float] = {}
    for item in items:
        name = Path(str(item.fspath)).relative_to(here).as_posix()
        if name in LONGEST:
            out[name] = 1e6 * (len(LONGEST) - LONGEST.index(name))
        else:
            out[name] = out.get(name, 0.0) + (SLOW_TEST_S if item.get_closest_marker("slow") else TEST_S)
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
