"""Benchmark: `python -m infact --help` and every `python -m infact COMMAND --help`, each as a whole process,
vs a bare `python -c pass`.

    python bench/cli_help.py [--runs 20] [--command-runs 5]

Both commands are started by this script in turn (A B A B …, so a busy machine slows both
alike), each timed from its start to its exit: interpreter start-up included, which is what a
researcher waits for. `infact --help` imports only infact.cli.main, .args, .commands and what
they need (argparse, the deployment settings); a command's own module is imported when it runs.

Then every `infact COMMAND --help`, nested commands included (`import redial --help`, `prolific create --help`):
help_COMMAND_s= (median wall seconds; target <= 0.3 each), its CPU seconds and its ratio to `python -c pass`, and
slowest_help_s=.

Prints, one per line: cli_help_s= (median wall seconds of `python -m infact --help`; target
<= 0.3), baseline_s= (median of `python -c pass`), ratio= (cli_help_s / baseline_s, pair by
pair, median), runs=. The same figures come from the machine's own timer:
    farm-bench -n 20 --vs 'python -c pass' -- python -m infact --help
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HELP = [sys.executable, "-m", "infact", "--help"]
BARE = [sys.executable, "-c", "pass"]


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one run; cpu is the child's user + system time, which other processes' load
    on a shared machine inflates far less than the wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL, check=True)
    end = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return end - start, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--command-runs", type=int, default=5, help="runs of each COMMAND --help")
    opts = parser.parse_args()
    runs = opts.runs
    timed(HELP), timed(BARE)  # warm the file cache and the .pyc files
    pairs = [(timed(HELP), timed(BARE)) for _ in range(runs)]
    for name, i in (("", 0), ("cpu_", 1)):
        cli = statistics.median(a[i] for a, _ in pairs)
        bare = statistics.median(b[i] for _, b in pairs)
        print(f"cli_help_{name}s={cli:.3f}")
        print(f"baseline_{name}s={bare:.3f}")
        print(f"{name}ratio={statistics.median(a[i] / max(b[i], 1e-3) for a, b in pairs):.1f}")
    print(f"runs={runs}")
    every_command(opts.command_runs)


def command_paths() -> list[list[str]]:
    """Every command, nested ones included (`import redial`, `prolific create`), in the order of `infact --help`."""
    import argparse

    sys.path.insert(0, str(REPO))
    from infact.cli.main import build_parser

    paths: list[list[str]] = []

    def walk(path: list[str], parser: argparse.ArgumentParser) -> None:
        if path:
            paths.append(path)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk([*path, name], sub)

    walk([], build_parser())
    return paths


def every_command(runs: int) -> None:
    """Each command's own help: it imports that command's module (infact/cli/commands.py), which must stay light."""
    slowest = 0.0
    for path in command_paths():
        command = "_".join(path)
        cmd = [sys.executable, "-m", "infact", *path, "--help"]
        timed(cmd)  # warm its .pyc files
        pairs = [(timed(cmd), timed(BARE)) for _ in range(runs)]
        wall = statistics.median(a[0] for a, _ in pairs)
        cpu = statistics.median(a[1] for a, _ in pairs)
        ratio = statistics.median(a[0] / max(b[0], 1e-3) for a, b in pairs)
        slowest = max(slowest, wall)
        print(f"help_{command}_s={wall:.3f} help_{command}_cpu_s={cpu:.3f} help_{command}_ratio={ratio:.1f}")
    print(f"slowest_help_s={slowest:.3f}")


if __name__ == "__main__":
    main()
