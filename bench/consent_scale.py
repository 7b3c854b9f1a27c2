"""Consent + assignment latency with 100 and 10,000 participants stored (issue 11 item 4).

Used by `bench/load.py --mode consent`. A store is pre-filled with N participants,
each the ~29 records an attentive bot leaves on the demo study (arrival with a
Prolific ID, consent, assignment, 10 situations, questionnaire, …), written in
bulk. Then, on a fresh store object (as after a server start), participants
arrive (Prolific ID) and consent one after another through the real Flow, while
others keep answering between consents (5 answers each time, not timed), so the
kept situation load has new records to read at every consent, as in a live study.

Figures per backend and size: consent_p95_ms (Flow.submit of the consent step:
consent record, lock, situation load, plan, assignment record, state re-read),
consent_first_ms (the first consent of a process: the situation load reads the
study once — on TinyDB from the participant summaries, see
infact/participation/situation_load.py), arrival_pid_p95_ms (Flow.arrive with a
new Prolific ID: the indexed lookup plus the arrival record), append_p95_ms (one durable append, timed right
after each consent: a consent makes two, so consent ≈ 2-3 appends when nothing else
costs), and full_read_plan_ms (the old way, for comparison: plan from every record
of the study, under the lock).
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import UTC, datetime

from storage import participant_records, template_participant  # bench/storage.py

import infact.kinds  # noqa: F401  (registers the built-in kinds)
from infact.participation import assignment
from infact.participation.flow import Flow
from infact.storage import TinyDBStorage
from infact.study.loader import Study


def participant(template_records: list[dict], token: str, pid: str) -> list[dict]:
    """One pre-filled participant: the bot's records re-keyed, with their own Prolific ID."""
    out = participant_records(template_records, token)
    for r in out:
        if r["kind"] == "arrival":
            r["platform_id"] = pid
            r["platform_params"] = {"PROLIFIC_PID": pid}
    return out


def prefill(store, template_records: list[dict], n: int, summaries: bool = True) -> None:
    """Write n participants in bulk (not through append one by one: that is not what is timed);
    TinyDB: with the summary files `append` keeps, unless `summaries` is off (a store from
    before them, whose first read rebuilds them)."""
    if isinstance(store, TinyDBStorage):
        import json

        from infact.stores.tinydb.summaries import signature

        for i in range(n):
            recs = participant(template_records, f"pre{i:06d}", f"pre{i:06d}pid")
            table = {str(k): r for k, r in enumerate(recs, start=1)}
            shard = store.shards / f"pre{i:06d}.json"
            shard.write_text(json.dumps({"_default": table}, separators=(",", ":")))
            if summaries:  # what `append` leaves beside each shard (infact/stores/tinydb/summaries.py)
                store.summary_files.write(f"pre{i:06d}", signature(shard.stat()), recs)
        for marker in store.index.glob(".complete"):
            marker.unlink()  # the files were written behind the store's back: index them like an upgraded store
        return
    batch: list[dict] = []
    for i in range(n):
        batch += participant(template_records, f"pre{i:06d}", f"pre{i:06d}pid")
        if len(batch) >= 5000:
            store.append_many(batch)
            batch = []
    if batch:
        store.append_many(batch)
    # A table filled in one go has no planner statistics yet (autovacuum gets to it later;
    # a study that grows over days has them): without this the timed queries scan the table.
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"VACUUM ANALYZE {store.table.fullname}")


def _ratings(study: Study, step, rng: random.Random) -> dict:
    labels = study.config.scale.labels
    return {"ratings": {system: {c.id: rng.choice(labels) for c in study.config.criteria} for system in step.order}}


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def _ms(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def measure(study: Study, open_fresh, n_stored: int, samples: int, seed: int = 7) -> dict:
    """open_fresh(): a new store object on the pre-filled data (nothing cached)."""
    rng = random.Random(seed)
    template_records = template_participant()  # the demo study's records, as in bench/storage.py
    prefill(open_fresh(), template_records, n_stored)
    store = open_fresh()
    index_ms, _ = _ms(lambda: store.arrival_by_platform_id(study.id, "warm-up"))  # builds the index once if needed
    flow = Flow(study, store, clock=lambda: datetime.now(UTC))
    consent_ms, arrival_ms, append_ms, tokens = [], [], [], []
    for i in range(samples + 1):
        a_ms, token = _ms(lambda i=i: flow.arrive({"PROLIFIC_PID": f"new{i:05d}{rng.randrange(10**6):06d}"}))
        c_ms, result = _ms(lambda token=token: flow.submit(token, "consent", {"consent": True}))
        assert result.ok, result.errors
        if i:  # the first arrival and consent of a process are reported apart
            arrival_ms.append(a_ms)
        consent_ms.append(c_ms)
        tokens.append(token)
        # the unit a consent is made of, timed in the same moment: one durable append
        append_ms.append(
            _ms(
                lambda i=i: store.append(
                    {"key": f"baseline/b{i}/x", "study": "baseline", "participant": f"b{i}", "kind": "x"}
                )
            )[0]
        )
        for other in rng.sample(tokens, min(5, len(tokens))):  # others answer meanwhile (not timed)
            step = flow.current(flow.state(other))
            if step.kind == "situation":
                flow.submit(other, step.name, _ratings(study, step, rng))
    full_ms = []
    for _ in range(3):

        def old_way():
            with store.lock():
                return assignment.plan_assignment(study, store.records(study=study.id), rng=rng, now=datetime.now(UTC))

        full_ms.append(_ms(old_way)[0])
    store.close()
    return {
        "first": consent_ms[0],
        "consent": consent_ms[1:],
        "arrival": arrival_ms,
        "index_ms": index_ms,
        "full_read": statistics.median(full_ms),
        "append": append_ms,
    }
