"""A real deployment under load: participants through nginx in front of app replicas on one PostgreSQL.

    python bench/replicas.py [--participants 300] [--concurrency 30] [--replicas 3]
                             [--baseline-participants 90] [--kill] [--pg URL]

nginx (Debian's package) is configured from deploy/nginx.conf (sticky by cookie, websocket upgrades)
and put in front of `--replicas` `streamlit run streamlit_app.py` processes on one fresh PostgreSQL
database (simulations/deployment.py). Participants speak Streamlit's websocket protocol
(simulations/ws_participants.py): consent, then each step answered with widget values and submitted,
attentively (instructed ratings followed), on a study of 12 situations, 3 per participant (one the
attention check), questionnaire and demographics: 6 submitted steps each. They do not pause: the
worst case for the app.

Prints, one per line: participants=, concurrency=, replicas=, completed=, lost_answers= (acknowledged
steps not in the store; must be 0), duplicate_answers= (steps stored more than once; must be 0),
situation_spread= (max - min ratings per situation; must be <= 1), orphan_participants= (consented, never
finished: see check_store), reconnects=, p50_step_ms=,
p95_step_ms= (submit -> next step drawn, through nginx), wall_s=, load_avg= (the machine's 1-minute load
average at the start and the end of that phase: other sessions' work shows here); then the baseline, measured in the
same run: the same study on **one replica without nginx** (a fresh database), `--baseline-participants`
at the same concurrency: single_p95_step_ms=, single_wall_s=, and ratio_p95_vs_single= (through nginx
+ replicas / one replica; on one machine the replicas share its cores, so this says what nginx and
the replicas cost per step, not how a cluster scales). With --kill, one replica is SIGKILLed when a
third of the steps are done: its participants reconnect through nginx and resume by their token.

PostgreSQL comes from --pg or INFACT_TEST_PG_URL (scripts/pg_test_server.sh).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from simulations.browser import start_server, stop_server  # noqa: E402
from simulations.deployment import deployment, fresh_database  # noqa: E402
from simulations.study_folders import make_study  # noqa: E402
from simulations.ws_participants import crowd  # noqa: E402

ANSWER_KINDS = {"consent", "situation", "questionnaire", "demographics"}


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else (values[0] if values else 0.0)


def check_store(store, outcomes) -> dict[str, int]:
    stored: Counter = Counter()
    for r in store.records():
        if r.get("kind") in ANSWER_KINDS and not str(r["participant"]).startswith("_"):
            stored[(r["participant"], r["step"])] += 1
    acked = [(o.token, step) for o in outcomes for step in o.acknowledged]
    ratings = Counter(r["situation_id"] for r in store.records(kind="situation") if not r.get("attention_check"))
    complete = {r["participant"] for r in store.records(kind="complete")}
    consented = {r["participant"] for r in store.records(kind="consent") if not str(r["participant"]).startswith("_")}
    return {
        # Consented and never finished: a client whose consent was stored but whose connection dropped before
        # it saw its token starts again as a new participant (it runs no page script, so it keeps no
        # remembered-participant cookie); the situations assigned to the first one skew the balance.
        "orphan_participants": len(consented - complete),
        "lost_answers": sum(1 for a in acked if stored[a] == 0),
        "duplicate_answers": sum(n - 1 for n in stored.values() if n > 1),
        "situation_spread": max(ratings.values()) - min(ratings.values()) if ratings else -1,
    }


async def run_crowd(url: str, n: int, at_once: int, kill=None) -> list:
    if kill is None:
        return await crowd(url, n, at_once)
    done = []
    run = asyncio.ensure_future(crowd(url, n, at_once, on_step=lambda o: done.append(o.token)))
    while len(done) < n * 6 // 3 and not run.done():
        await asyncio.sleep(0.1)
    await asyncio.to_thread(kill)
    return await run


def load_avg() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def report(prefix: str, outcomes, wall: float, load_start: str) -> list[float]:
    steps = [s for o in outcomes for s in o.latencies]
    print(f"{prefix}completed={sum(o.completed for o in outcomes)}")
    errors = [o.error for o in outcomes if not o.completed]
    if errors:
        print(f"{prefix}first_error={errors[0]}")
    print(f"{prefix}p50_step_ms={statistics.median(steps) * 1000:.0f}")
    print(f"{prefix}p95_step_ms={p95(steps) * 1000:.0f}")
    print(f"{prefix}wall_s={wall:.1f}")
    print(f"{prefix}load_avg={load_start}/{load_avg()}")
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=30)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--baseline-participants", type=int, default=90, help="0: no baseline (and no ratio)")
    parser.add_argument("--kill", action="store_true", help="SIGKILL one replica a third of the way through")
    parser.add_argument("--pg", default=os.environ.get("INFACT_TEST_PG_URL"))
    args = parser.parse_args()
    if not args.pg:
        print("skipped: no PostgreSQL (--pg URL or INFACT_TEST_PG_URL; scripts/pg_test_server.sh start)")
        return 0
    with tempfile.TemporaryDirectory(prefix="infact-bench-replicas-") as tmp:
        study = make_study(Path(tmp), n_situations=12, per_participant=3, assignment={"ratings_per_situation": 500})
        print(f"participants={args.participants}\nconcurrency={args.concurrency}\nreplicas={args.replicas}")
        with deployment(Path(tmp) / "site", study, args.pg, replicas=args.replicas) as site:
            started, load_start = time.monotonic(), load_avg()
            kill = (lambda: site.kill(0)) if args.kill else None
            outcomes = asyncio.run(run_crowd(site.url, args.participants, args.concurrency, kill))
            steps = report("", outcomes, time.monotonic() - started, load_start)
            for name, value in check_store(site.storage(), outcomes).items():
                print(f"{name}={value}")
            print(f"reconnects={sum(o.reconnects for o in outcomes)}")
        if args.baseline_participants <= 0:
            print("ratio_p95_vs_single=not measured (--baseline-participants 0)")
            return 0
        with fresh_database(args.pg) as store_url:
            server = start_server(Path(tmp) / "single", study, store=store_url)
            try:
                started, load_start = time.monotonic(), load_avg()
                single = asyncio.run(run_crowd(server.url, args.baseline_participants, args.concurrency))
                single_steps = report("single_", single, time.monotonic() - started, load_start)
            finally:
                stop_server(server)
        print(f"ratio_p95_vs_single={p95(steps) / p95(single_steps):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
