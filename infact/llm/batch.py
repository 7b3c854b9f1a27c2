"""Many calls at once, resumable: the engine under `infact generate` and `infact judge`.

`run_batch(jobs, call, checkpoint, workers)` runs `call(job)` for every job whose key the
checkpoint does not hold as done, on `workers` threads (the endpoint's limiter still caps
what is in flight), appending each result to the checkpoint as it finishes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Protocol

from infact.llm.checkpoint import Checkpoint


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

    def lines(self) -> list[str]:
        return [
            f"jobs={self.jobs}",
            f"resumed={self.resumed}",
            f"calls={self.calls}",
            f"failures={self.failures}",
            f"prompt_tokens={self.prompt_tokens}",
            f"completion_tokens={self.completion_tokens}",
            f"seconds={self.seconds:.1f}",
        ]


def run_batch(
    jobs: Iterable[Job],
    call: Callable[[Job], dict],
    checkpoint: Checkpoint,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
) -> BatchSummary:
    jobs = list(jobs)
    todo = [j for j in jobs if not checkpoint.done(j.key)]
    summary = BatchSummary(jobs=len(jobs), resumed=len(jobs) - len(todo))
    start, finished = time.monotonic(), summary.resumed
    if progress:
        progress(finished, len(jobs))
    with checkpoint, ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="infact-batch") as pool:
        futures = {pool.submit(call, job): job for job in todo}
        for future in as_completed(futures):
            record = {"key": futures[future].key, **future.result()}
            checkpoint.append(record)
            summary.calls += int(record.get("calls", 1))
            call_info = record.get("call") or {}
            summary.prompt_tokens += int(call_info.get("prompt_tokens") or 0)
            summary.completion_tokens += int(call_info.get("completion_tokens") or 0)
            if record.get("error"):
                summary.failures += 1
                summary.failed_keys.append(record["key"])
            finished += 1
            if progress:
                progress(finished, len(jobs))
    summary.seconds = time.monotonic() - start
    return summary
