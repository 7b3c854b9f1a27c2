"""A Prolific launch on one process: N participants press "Start the study" within a few seconds.

    python bench/burst.py [--sizes 10,40,100,200] [--pause 3] [--spread 10] [--store tinydb|URL]
                          [--replicas 1] [--no-floor]

For each size N, a fresh `streamlit run streamlit_app.py` (TinyDB by default; `--store` a PostgreSQL URL;
`--replicas 3` nginx in front of three replicas on a fresh PostgreSQL database, simulations/deployment.py)
gets N participants speaking Streamlit's websocket (simulations/st_client.py). They open the study page at
moments spread evenly over `--spread` seconds, and each presses a button `--pause` seconds after its page
appeared, as a quick person does: "Start the study" (consent), three situations (one the attention check),
the questionnaire and demographics. Before the crowd one visitor opens the page (a warm server). A
participant whose press leaves them on the same page presses again after the pause (counted as refused).

Then the same crowd against the floor: a bare Streamlit app with one button and three radios, started the
same way on the same machine, pressed as many times with the same pauses.

Prints per size, `N` standing for it: `N_refused_starts=` (presses of "Start the study" that left the
participant on the consent page; must be 0), `N_start_p50_ms=`, `N_start_p95_ms=` (that press to the first
situation drawn, waiting included), `N_step_p50_ms=`, `N_step_p95_ms=` (every other press to the next page),
`N_cpu_ms_per_step=` (the server processes' CPU time over the crowd / the script runs it caused: page opens
and presses; `N_client_cpu_ms_per_step=` the bench's own), `N_mem_mb_per_session=`
(peak resident memory during the crowd minus before it, / N), `N_completed=`, `N_situation_spread=` (max -
min ratings per situation; balanced assignment keeps it <= 1), `N_floor_*` the same for the bare app and
`N_ratio_start_p95=`, `N_ratio_step_p95=`, `N_ratio_cpu=` against it; `N_load_avg=` (1-minute load average
at the start and end of the size). Last `step_p95_growth_100_vs_10=` (issue 38: <= 3) and the floor's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from simulations.browser import start_server, stop_server  # noqa: E402
from simulations.st_client import StreamlitClient  # noqa: E402
from simulations.study_folders import make_study  # noqa: E402
from simulations.ws_participants import DONE, answers, submit_key  # noqa: E402

FLOOR_APP = """
import streamlit as st

st.session_state.setdefault("presses", 0)
with st.form("f"):
    for name in ("a", "b", "c"):
        st.radio(f"Scale {name}", ["1", "2", "3", "4", "5"], index=None, horizontal=True, key=f"floor-{name}")
    if st.form_submit_button("Submit and continue", key="submit-floor"):
        st.session_state.presses += 1
st.write(f"Presses: {st.session_state.presses}")
"""
PRESSES = 6  # consent, three situations, questionnaire, demographics
MAX_PRESSES = 60  # per participant: a participant refused this often gives up (reported as not completed)


@dataclass
class Run:
    start: list[float] = field(default_factory=list)  # seconds: the press of "Start the study"
    steps: list[float] = field(default_factory=list)  # seconds: every other press
    refused: int = 0
    completed: int = 0
    errors: list[str] = field(default_factory=list)


async def participant(url: str, delay: float, pause: float, floor: bool, run: Run) -> None:
    await asyncio.sleep(delay)
    client = StreamlitClient(url)
    try:
        screen = await client.open()
        presses, first = 0, True
        while presses < MAX_PRESSES:
            if not floor and screen.has(DONE):
                run.completed += 1
                return
            if floor and presses >= PRESSES:
                run.completed += 1
                return
            key = submit_key(screen)
            if key is None:
                raise AssertionError(f"no submit button: {screen.text()[-300:]}")
            await asyncio.sleep(pause)
            started = time.perf_counter()
            screen = await client.rerun(answers(screen), press=key)
            took = time.perf_counter() - started
            presses += 1
            if first:
                run.start.append(took)
                if not floor and submit_key(screen) == "consent_submit":
                    run.refused += 1  # asked to press again
                    continue
                first = False
            else:
                run.steps.append(took)
        run.errors.append(f"gave up after {MAX_PRESSES} presses")
    except Exception as exc:  # reported, never raised: one participant's trouble does not end the bench
        run.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        try:
            await client.close()
        except Exception:
            pass


async def crowd(url: str, n: int, pause: float, spread: float, floor: bool) -> Run:
    run = Run()
    gap = spread / max(1, n - 1) if n > 1 else 0.0
    await asyncio.gather(*(participant(url, i * gap, pause, floor, run) for i in range(n)))
    return run


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextmanager
def peak_rss(pids: list[int]):
    """Samples the processes' summed resident memory every 0.2 s; yields a dict filled with before/peak."""
    out = {"before": sum(rss_mb(p) for p in pids), "peak": 0.0}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            out["peak"] = max(out["peak"], sum(rss_mb(p) for p in pids))
            stop.wait(0.2)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield out
    finally:
        stop.set()
        thread.join()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0] * 1000
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000


async def warm_up(url: str) -> None:
    """One page opened and closed before the crowd: a server that has been up a while has its modules
    imported and its pages compiled (the first visitor's imports are not a launch's cost)."""
    client = StreamlitClient(url)
    try:
        await client.open()
    finally:
        await client.close()


def measure(url: str, pids: list[int], n: int, args, floor: bool) -> dict:
    asyncio.run(warm_up(url))
    cpu0, client0 = sum(cpu_seconds(p) for p in pids), time.process_time()
    with peak_rss(pids) as mem:
        run = asyncio.run(crowd(url, n, args.pause, args.spread, floor))
    cpu = sum(cpu_seconds(p) for p in pids) - cpu0
    runs = n + len(run.start) + len(run.steps)  # page opens and presses: the script runs the crowd caused
    return {
        "refused_starts": run.refused,
        "start_p50_ms": pct(run.start, 50),
        "start_p95_ms": pct(run.start, 95),
        "step_p50_ms": pct(run.steps, 50),
        "step_p95_ms": pct(run.steps, 95),
        "cpu_ms_per_step": cpu * 1000 / max(1, runs),
        "client_cpu_ms_per_step": (time.process_time() - client0) * 1000 / max(1, runs),
        "mem_mb_per_session": max(0.0, mem["peak"] - mem["before"]) / n,
        "completed": run.completed,
        "errors": run.errors,
    }


def spread_of(storage) -> int:
    ratings = Counter(r["situation_id"] for r in storage.records(kind="situation") if not r.get("attention_check"))
    return max(ratings.values()) - min(ratings.values()) if ratings else -1


@contextmanager
def app_site(work: Path, study: Path, args):
    """(url, server pids, store) of the app: one process, or nginx + replicas on PostgreSQL."""
    if args.replicas > 1:
        from simulations.deployment import deployment

        with deployment(work, study, args.store, replicas=args.replicas) as site:
            yield site.url, [s.proc.pid for s in site.replicas], site.storage
        return
    if args.store == "tinydb":
        server = start_server(work, study)
        try:
            yield server.url, [server.proc.pid], server.storage
        finally:
            stop_server(server)
        return
    from infact.stores.sql.store import SQLStorage
    from simulations.deployment import fresh_database

    with fresh_database(args.store) as url:
        server = start_server(work, study, store=url)
        try:
            yield server.url, [server.proc.pid], lambda: SQLStorage(url)
        finally:
            stop_server(server)


@contextmanager
def py_spy(out: str | None, pid: int):
    """`py-spy record` of the app process during the crowd (collapsed stacks in `out`), when asked."""
    if not out:
        yield
        return
    import signal
    import subprocess

    spy = subprocess.Popen(
        ["py-spy", "record", "--pid", str(pid), "--format", "raw", "--rate", "50", "--gil", "-o", out]
    )
    try:
        yield
    finally:
        spy.send_signal(signal.SIGINT)
        spy.wait(timeout=60)


def load_avg() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def show(prefix: str, figures: dict) -> None:
    for name, value in figures.items():
        if name == "errors":
            if value:
                print(f"{prefix}errors={len(value)} first: {value[0]}")
            continue
        print(f"{prefix}{name}={value:.1f}" if isinstance(value, float) else f"{prefix}{name}={value}")


def one_size(tmp: Path, n: int, args) -> dict:
    study = make_study(
        tmp / f"study-{n}", n_situations=12, per_participant=3, assignment={"ratings_per_situation": 1000}
    )
    load = load_avg()
    with app_site(tmp / f"app-{n}", study, args) as (url, pids, storage):
        with py_spy(args.py_spy and f"{args.py_spy}-{n}.txt", pids[0]):
            ours = measure(url, pids, n, args, floor=False)
        ours["situation_spread"] = spread_of(storage())
    show(f"{n}_", ours)
    floor = None
    if not args.no_floor:
        app = tmp / "floor_app.py"
        app.write_text(FLOOR_APP, encoding="utf-8")
        server = start_server(tmp / f"floor-{n}", study, app=app)
        try:
            floor = measure(server.url, [server.proc.pid], n, args, floor=True)
        finally:
            stop_server(server)
        floor.pop("refused_starts")
        show(f"{n}_floor_", floor)
        for name in ("start_p95_ms", "step_p95_ms", "cpu_ms_per_step"):
            key = name.removesuffix("_ms").removesuffix("_per_step").removesuffix("_ms")
            print(f"{n}_ratio_{key}={ours[name] / floor[name]:.2f}")
    print(f"{n}_load_avg={load}/{load_avg()}", flush=True)
    return {"ours": ours, "floor": floor}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,40,100,200")
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between a page appearing and its press")
    parser.add_argument("--spread", type=float, default=10.0, help="seconds over which the participants arrive")
    parser.add_argument("--store", default="tinydb", help="tinydb, or a PostgreSQL URL (a fresh database in it)")
    parser.add_argument("--replicas", type=int, default=1, help=">1: nginx in front of replicas (needs --store URL)")
    parser.add_argument("--py-spy", metavar="PREFIX", help="profile the app process (py-spy on PATH): PREFIX-N.txt")
    parser.add_argument("--no-floor", action="store_true", help="skip the bare app (and the ratios)")
    args = parser.parse_args()
    if args.replicas > 1 and args.store == "tinydb":
        parser.error("--replicas needs --store with a PostgreSQL URL (replicas share one database)")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(f"sizes={','.join(map(str, sizes))}\npause_s={args.pause}\nspread_s={args.spread}")
    print(f"store={'tinydb' if args.store == 'tinydb' else 'postgresql'}\nreplicas={args.replicas}")
    results = {}
    with tempfile.TemporaryDirectory(prefix="infact-bench-burst-") as tmp:
        for n in sizes:
            results[n] = one_size(Path(tmp), n, args)
    if 10 in results and 100 in results:
        growth = results[100]["ours"]["step_p95_ms"] / results[10]["ours"]["step_p95_ms"]
        print(f"step_p95_growth_100_vs_10={growth:.2f}")
        if results[10]["floor"] and results[100]["floor"]:
            floor = results[100]["floor"]["step_p95_ms"] / results[10]["floor"]["step_p95_ms"]
            print(f"floor_step_p95_growth_100_vs_10={floor:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
