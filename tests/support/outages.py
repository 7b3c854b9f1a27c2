"""What a store outage looks like to a participant and in the log (issue 36, item 10): shared by the TinyDB
test (tests/ui/test_store_outage.py) and the PostgreSQL one (tests/stores/test_pg_outage.py)."""

from __future__ import annotations

import errno
import logging
import os
import subprocess
from pathlib import Path

from streamlit.testing.v1 import AppTest

from infact.storage import TinyDBStorage
from infact.stores.outage import KIND, RESEARCHER
from infact.ui import outage
from tests.support.paths import REPO

OUTAGE_LOGGER = "infact.stores.outage"


def assert_paused(at: AppTest, unsent: bool = False) -> None:
    """The page says saving is paused and answers are safe; never a lost session, a restart or a traceback."""
    assert not at.exception, [e.value for e in at.exception]
    warnings = [w.value for w in at.warning]
    assert outage.PAUSED in warnings, warnings
    texts = " ".join(warnings + [e.value for e in at.error] + [m.value for m in at.markdown])
    assert "could not find your session" not in texts and "something went wrong" not in texts, texts
    assert not [b for b in at.button if b.key == "restart"], "offers to start from the beginning"
    assert [b for b in at.button if b.key == "outage_retry"], "no Try again button"
    assert (outage.NOT_SENT in [i.value for i in at.info]) == unsent


def error_lines(caplog, logger: str | None = None) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and (logger is None or r.name == logger)
    ]


def outage_records(storage) -> list[dict]:
    return [r for r in storage.records(participant=RESEARCHER) if r.get("kind") == KIND]


class OwnPostgres:
    """A PostgreSQL server of one test's own (scripts/pg_test_server.sh), which the test may stop and start
    again: the suite's shared server serves other tests at the same time."""

    def __init__(self) -> None:
        out = subprocess.run(
            ["bash", str(REPO / "scripts" / "pg_test_server.sh"), "start"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        env = dict(line.removeprefix("export ").split("=", 1) for line in out.splitlines() if line.strip())
        self.url, self.dir = env["INFACT_TEST_PG_URL"], Path(env["INFACT_TEST_PG_DIR"])
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])

    def _pg_ctl(self, *args: str) -> None:
        bindir = (self.dir / "bindir").read_text().strip()
        run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*run_as, f"{bindir}/pg_ctl", "-D", str(self.dir / "data"), *args], check=True, timeout=60)

    def stop(self) -> None:
        self._pg_ctl("stop", "-m", "fast", "-w")

    def start(self) -> None:
        options = f"-p {self.port} -h 127.0.0.1 -k {self.dir} -c max_connections=300"
        self._pg_ctl("-l", str(self.dir / "server.log"), "-w", "-t", "30", "-o", options, "start")

    def remove(self) -> None:
        subprocess.run(["bash", str(REPO / "scripts" / "pg_test_server.sh"), "stop", str(self.dir)], timeout=120)


class FailingDisk:
    """Every TinyDB store call fails with EIO while `down` (AppTest runs the app in this process)."""

    METHODS = ("append", "append_in_order", "records", "changes", "arrival_by_platform_id", "lock", "purge")

    def __init__(self, monkeypatch):
        self.down, self.refused = False, 0
        for name in self.METHODS:
            real = getattr(TinyDBStorage, name)
            monkeypatch.setattr(TinyDBStorage, name, self._guard(real))

    def _guard(self, real):
        def method(store, *args, **kw):
            if self.down:
                self.refused += 1
                raise OSError(errno.EIO, "Input/output error")
            return real(store, *args, **kw)

        return method
