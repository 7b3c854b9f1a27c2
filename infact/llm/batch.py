"""Many calls at once, resumable: the engine under `infact generate` and `infact judge`.

`run_batch(jobs, call, checkpoint, workers)` runs `call(job)` for every job whose key the
checkpoint does not hold as done, on `workers` threads (the endpoint's limiter still caps
what is in flight), appending each result to the checkpoint as it finishes.

After `STOP_AFTER_UNREACHABLE` results in a row fail as `unreachable` (no server listening, a wrong
port), the jobs not yet started are not tried: each would spend its retries on the same closed port.
The summary says so (`stopped`, `not_tried`); a rerun tries them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import islice
from typing import Protocol

from infact.llm.checkpoint import Checkpoint

STOP_AFTER_UNREACHABLE = 5


class Job(Protocol):
    key: str


@dataclass
class BatchSummary:
    jobs: int = 0
    resumed: int = 0  # already done in the checkpoint: not called again
    calls: int = 0  # calls made in this run (retries inside one call not counted)
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    failed_keys: list[str] = field(default_factory=list)
    cut: int = 0  # answers the server cut at max_tokens (finish_reason "length")
    not_tried: int = 0  # jobs left when the batch stopped
    stopped: str | None = None  # why the batch stopped before its last job

    def lines(self) -> list[str]:
        return [
            f"jobs={self.jobs}",
            f"resumed={self.resumed}",
            f"calls={self.calls}",
            f"failures={self.failures}",
            f"prompt_tokens={self.prompt_tokens}",
            f"completion_tokens={self.completion_tokens}",
            f"cut_at_max_tokens={self.cut}",
            f"seconds={self.seconds:.1f}",
            *([f"not_tried={self.not_tried}"] if self.stopped else []),
        ]


def run_batch(
    jobs: Iterable[Job],
    call: Callable[[Job], dict],
    checkpoint: Checkpoint,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
    stop_after_unreachable: int = STOP_AFTER_UNREACHABLE,
) -> BatchSummary:
    jobs = list(jobs)
    todo = [j for j in jobs if not checkpoint.done(j.key)]
    summary = BatchSummary(jobs=len(jobs), resumed=len(jobs) - len(todo))
    start, finished = time.monotonic(), summary.resumed
    if progress:
        progress(finished, len(jobs))
    unreachable = 0  # results in a row that could not reach the server
    waiting = iter(todo)
    with checkpoint, ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="infact-batch") as pool:
        # At most `workers` calls in flight: submitting every job at once let the pool run ahead of the
        # results, so calls went on after the batch had decided to stop.
        running = {pool.submit(call, job): job for job in islice(waiting, max(1, workers))}
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                record = {"key": running.pop(future).key, **future.result()}
                checkpoint.append(record)
                _count(summary, record)
                unreachable = unreachable + 1 if (record.get("error") or {}).get("kind") == "unreachable" else 0
                if unreachable >= stop_after_unreachable and summary.stopped is None:
                    summary.stopped = f"{unreachable} calls in a row could not reach the server"
                finished += 1
                if progress:
                    progress(finished, len(jobs))
            if summary.stopped is None:
                running.update({pool.submit(call, job): job for job in islice(waiting, len(done))})
    summary.not_tried = len(todo) - (finished - summary.resumed)
    summary.seconds = time.monotonic() - start
    return summary


def _count(summary: BatchSummary, record: dict) -> None:
    summary.calls += int(record.get("calls", 1))
    call_info = record.get("call") or {}
    summary.prompt_tokens += int(call_info.get("prompt_tokens") or 0)
    summary.completion_tokens += int(call_info.get("completion_tokens") or 0)
    summary.cut += int(call_info.get("finish_reason") == "length")
    if record.get("error"):
        summary.failures += 1
        summary.failed_keys.append(record["key"])
