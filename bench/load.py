"""Load test: hundreds of participants arriving at once, on each storage backend.

    python bench/load.py [--participants 200] [--concurrency 20] [--pg URL]
                         [--backends tinydb,postgres] [--mode bots,consent]
                         [--consent-stored 100,10000] [--consent-samples 200]

`bots` (default) plays attentive bots (infact.participation.bots) through the real Flow on the
demo study: arrival, consent + assignment under storage.lock(), 10 situations with
3 rated responses, questionnaire, demographics, completion — plus the "shown"
records and every read the UI does. `records` appends the same record shapes
directly (storage layer only). Bots do not pause: the worst case for the store.

Per backend it prints, one per line: backend=, participants=, concurrency=,
answers_saved= (records stored for the study), lost_answers= (acknowledged
appends not found afterwards; must be 0), errors=, p50_save_ms=, p95_save_ms=
(one append call; target <= 100), then the same participants played one at a time
on a fresh store — sequential_p95_save_ms=, ratio_vs_sequential= — and wall_s=.
`consent` (bench/consent_scale.py): consent + assignment with 100 and 10,000
participants already stored. Per backend: consent_p95_ms_100=, consent_p95_ms_10k=,
consent_growth_10k_vs_100= (target <= 2; consent_p95_ms_10k target <= 50),
consent_first_ms_10k= (first consent of a process), arrival_pid_p95_ms_100=/_10k=
(arrival with a Prolific ID), append_p95_ms_10k= and consent_vs_append_p95_10k= (one
durable append timed in the same moments: what a consent is made of),
full_read_plan_ms_10k= (planning from every record, the way before: the baseline
measured in the same run), ratio_full_read_vs_kept=, and
platform_index_build_ms_10k= (once, for a TinyDB store written before the index existed).

PostgreSQL comes from --pg or INFACT_TEST_PG_URL (scripts/pg_test_server.sh);
without either it is skipped with a message. Each run uses a fresh TinyDB temp
dir / a fresh PostgreSQL schema that is dropped afterwards.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import infact.kinds  # noqa: E402, F401  (registers the built-in kinds)
from infact.stores.tinydb.store import TinyDBStorage  # noqa: E402

DEMO = REPO / "data" / "demo"


class Timed:
    """Storage proxy: times every append and remembers which keys were acknowledged."""

    def __init__(self, inner):
        self.inner = inner
        self.save_ms: list[float] = []
        self.acked: set[str] = set()
        self._mutex = threading.Lock()

    def append(self, record: dict) -> bool:
        t0 = time.perf_counter()
        added = self.inner.append(record)
        ms = (time.perf_counter() - t0) * 1000
        with self._mutex:
            self.save_ms.append(ms)
            self.acked.add(record["key"])  # True or False: either way it is stored now
        return added

    def records(self, **kw):
        return self.inner.records(**kw)

    def changes(self, cursor=None):
        return self.inner.changes(cursor)

    @contextmanager
    def lock(self):
        with self.inner.lock():
            yield

    def close(self):
        self.inner.close()


def synthetic_participant(store, study: str, i: int, rng: random.Random) -> None:
    """The records one participant leaves (docs/data-model.md), appended as the app would."""
    p = f"bench{i:04d}"
    base = {"study": study, "participant": p, "dataset_version": "bench", "preview": False}

    def put(what: str, kind: str, **fields) -> None:
        store.append(
            {
                **base,
                "key": f"{study}/{p}/{what}",
                "kind": kind,
                "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                **fields,
            }
        )

    put(
        "arrival",
        "arrival",
        platform="prolific",
        platform_params={"PROLIFIC_PID": f"pid{i}"},
        platform_id=f"pid{i}",
        group=None,
    )
    with store.lock():  # assignment reads what others got, then stores its own
        taken = len(store.records(study=study, kind="assignment"))
        steps = [
            {
                "step": f"situation-{n}",
                "index": n,
                "situation_id": f"sit{(taken + n) % 50}",
                "order": rng.sample(["A", "B", "C"], 3),
                "attention_check": n == 7,
            }
            for n in range(1, 11)
        ]
        put("assignment", "assignment", steps=steps, lease_until="2030-01-01T00:00:00Z")
    put("step/consent", "consent", step="consent", answers={"consent": True}, seconds=40.0)
    for s in steps:
        responses = [
            {
                "position": k + 1,
                "system": sysname,
                "text": "A film you may like. " * 8,
                "ratings": {c: rng.randint(1, 5) for c in ("relevance", "fluency", "overall")},
            }
            for k, sysname in enumerate(s["order"])
        ]
        put(
            f"step/{s['step']}",
            "situation",
            step=s["step"],
            index=s["index"],
            situation_id=s["situation_id"],
            dialog_id="d" + s["situation_id"],
            attention_check=s["attention_check"],
            context=[{"role": "user", "text": "I liked Alien, anything similar?"}] * 4,
            responses=responses,
            seconds=rng.uniform(20, 60),
        )
    put("step/questionnaire", "questionnaire", answers={f"q{k}": rng.randint(1, 5) for k in range(8)}, seconds=30.0)
    put("step/demographics", "demographics", answers={"age": "25-34", "gender": "prefer not to say"}, seconds=20.0)
    put("complete", "complete", completion_code="C0DE", outcome="completed", total_seconds=600.0)


def make_players(mode: str):
    """(study id, play(store, i)) for the chosen mode."""
    if mode == "records":
        return "bench", lambda store, i: synthetic_participant(store, "bench", i, random.Random(i))
    from infact.participation.bots import Bot
    from infact.study.loader import load_study

    study = load_study(DEMO)

    def play(store, i: int) -> None:
        result = Bot(study, store, "attentive", seed=i).run()
        if not result.completed:
            raise RuntimeError(f"bot {i} did not complete")

    return study.id, play


def run_once(open_store, play, study: str, n: int, concurrency: int) -> dict:
    store = Timed(open_store())
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            play(store, i)
        except BaseException as exc:  # counted and shown, not fatal to the benchmark
            errors.append(exc)

    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            list(pool.map(one, range(n)))
        wall = time.perf_counter() - started
        stored = [r["key"] for r in store.records(study=study)]
    finally:
        store.close()
        if isinstance(store.inner, TinyDBStorage):  # its fresh temp dir (see backends())
            shutil.rmtree(store.inner.path.parent, ignore_errors=True)
    if errors:
        print(f"  first error: {errors[0]!r}", file=sys.stderr)
    ms = sorted(store.save_ms)
    return {
        "saved": len(set(stored)),
        "duplicates": len(stored) - len(set(stored)),
        "lost": len(store.acked - set(stored)),
        "errors": len(errors),
        "wall": wall,
        "p50": statistics.median(ms) if ms else float("nan"),
        "p95": ms[max(0, int(round(0.95 * len(ms))) - 1)] if ms else float("nan"),
        "appends": len(ms),
    }


def backends(args) -> list[tuple[str, object]]:
    chosen = [b.strip() for b in args.backends.split(",") if b.strip()]
    out = []
    if "tinydb" in chosen:

        def tinydb():
            return TinyDBStorage(Path(tempfile.mkdtemp(prefix="infact-bench-")) / "store")

        out.append(("tinydb", tinydb))
    if "postgres" in chosen:
        url = args.pg or os.environ.get("INFACT_TEST_PG_URL")
        if not url:
            print(
                "postgres: skipped — pass --pg URL or set INFACT_TEST_PG_URL "
                '(eval "$(scripts/pg_test_server.sh start)")',
                file=sys.stderr,
            )
        else:
            from infact.stores.sql.store import SQLStorage

            def postgres():
                return SQLStorage(url, schema=f"bench_{uuid.uuid4().hex[:10]}", drop_on_close=True)

            out.append(("postgres", postgres))
    return out


def _size(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def consent_figures(args) -> None:
    """The `consent` mode (see the module docstring and bench/consent_scale.py)."""
    from consent_scale import measure, p95

    from infact.study.loader import load_study

    study = load_study(DEMO)
    sizes = [int(x) for x in args.consent_stored.split(",")]
    for name, _ in backends(args):
        lines, results = [f"backend={name}", "mode=consent"], {}
        for n in sizes:
            open_fresh = fresh_store_opener(name, args)
            try:
                res = measure(study, open_fresh, n, args.consent_samples)
            finally:
                open_fresh.drop()
            results[n] = res
            lines += [
                f"consent_p95_ms_{_size(n)}={p95(res['consent']):.1f}",
                f"consent_median_ms_{_size(n)}={statistics.median(res['consent']):.1f}",
                f"consent_first_ms_{_size(n)}={res['first']:.1f}",
                f"arrival_pid_p95_ms_{_size(n)}={p95(res['arrival']):.1f}",
                f"append_p95_ms_{_size(n)}={p95(res['append']):.1f}",
                f"consent_vs_append_p95_{_size(n)}={p95(res['consent']) / p95(res['append']):.1f}",
                f"full_read_plan_ms_{_size(n)}={res['full_read']:.1f}",
                f"platform_index_build_ms_{_size(n)}={res['index_ms']:.1f}",
            ]
        small, large = min(sizes), max(sizes)
        lines.append(
            f"consent_growth_{_size(large)}_vs_{_size(small)}="
            f"{p95(results[large]['consent']) / p95(results[small]['consent']):.2f}"
        )
        lines.append(
            f"ratio_full_read_vs_kept_{_size(large)}="
            f"{results[large]['full_read'] / statistics.median(results[large]['consent']):.1f}"
        )
        lines.append(f"consent_samples={args.consent_samples}")
        print("\n".join(lines) + "\n", flush=True)


class fresh_store_opener:
    """Opens new store objects on one pre-filled place (a temp dir / a PostgreSQL schema)."""

    def __init__(self, name: str, args) -> None:
        self.name = name
        self.url = args.pg or os.environ.get("INFACT_TEST_PG_URL")
        self.place = (
            Path(tempfile.mkdtemp(prefix="infact-bench-consent-"))
            if name == "tinydb"
            else f"bench_{uuid.uuid4().hex[:10]}"
        )

    def __call__(self):
        if self.name == "tinydb":
            return TinyDBStorage(self.place / "store")
        from infact.stores.sql.store import SQLStorage

        return SQLStorage(self.url, schema=self.place)

    def drop(self) -> None:
        if self.name == "tinydb":
            shutil.rmtree(self.place, ignore_errors=True)
        else:
            store = self()
            store.drop()
            store.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--participants", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=20)
    ap.add_argument("--pg", help="PostgreSQL URL (default: $INFACT_TEST_PG_URL)")
    ap.add_argument("--backends", default="tinydb,postgres")
    ap.add_argument("--mode", default="bots,consent", help="comma-separated: bots, records, consent")
    ap.add_argument("--consent-stored", default="100,10000", help="participants stored before the consent runs")
    ap.add_argument("--consent-samples", type=int, default=200, help="consents timed per size")
    ap.add_argument("--no-baseline", action="store_true", help="skip the sequential run")
    args = ap.parse_args(argv)
    modes = [m.strip() for m in args.mode.split(",") if m.strip()]
    unknown = set(modes) - {"bots", "records", "consent"}
    if unknown:
        ap.error(f"unknown --mode {', '.join(sorted(unknown))}; choose from bots, records, consent")
    failed = False
    for mode in modes:
        if mode == "consent":
            consent_figures(args)
        else:
            failed |= play_figures(args, mode)
    return 1 if failed else 0


def play_figures(args, mode: str) -> bool:
    study, play = make_players(mode)
    failed = False
    for name, open_store in backends(args):
        res = run_once(open_store, play, study, args.participants, args.concurrency)
        lines = [
            f"backend={name}",
            f"mode={mode}",
            f"participants={args.participants}",
            f"concurrency={args.concurrency}",
            f"answers_saved={res['saved']}",
            f"lost_answers={res['lost']}",
            f"duplicate_answers={res['duplicates']}",
            f"errors={res['errors']}",
            f"p50_save_ms={res['p50']:.1f}",
            f"p95_save_ms={res['p95']:.1f}",
            f"wall_s={res['wall']:.1f}",
        ]
        if not args.no_baseline:
            seq = run_once(open_store, play, study, args.participants, 1)
            lines += [
                f"sequential_p95_save_ms={seq['p95']:.1f}",
                f"ratio_vs_sequential={res['p95'] / seq['p95']:.2f}",
                f"sequential_wall_s={seq['wall']:.1f}",
            ]
        print("\n".join(lines) + "\n", flush=True)
        failed |= bool(res["lost"] or res["errors"] or res["duplicates"])
    return failed


if __name__ == "__main__":
    sys.exit(main())
