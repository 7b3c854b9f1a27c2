"""Which tests share a pytest-xdist worker under `--dist loadgroup` (scripts/test.sh), and the scheduler that
keeps them together.

Every real-browser test is in one group ("browser"), so browsers never run two modules at once beside other
tests (scripts/test.sh runs them on their own, two files at a time); every other file is its own group, so a
module's fixtures (bot-played stores, servers) are built once, as in a serial run. A file's group is its path
under tests/ (two folders may hold files of the same name).

Why a scheduler of our own: pytest-xdist 3.8 hands a test's `xdist_group` to its scheduler as a suffix
written into the test's node id (`item._nodeid`), and pytest 9.2 ignores that write (node ids are structured
now: pytest-xdist issue #1386). Every test then became its own unit of work: one file's tests ran on both
workers and its module fixtures were built twice. `FileGroups` reads the group from the node id's file part,
which needs nothing from the workers.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def group_of(path: Path) -> str:
    """The group of a test file: "browser" for tests/e2e/, else its path under tests/."""
    path = Path(path).resolve()
    return "browser" if TESTS / "e2e" in path.parents else path.relative_to(TESTS).as_posix()


def file_group_scheduler(config, log):
    """A LoadScopeScheduling whose units are the groups of `group_of`."""
    from xdist.scheduler import LoadScopeScheduling

    root = Path(config.rootpath)

    class FileGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(root / nodeid.split("::", 1)[0])

    return FileGroups(config, log)
