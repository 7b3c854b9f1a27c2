"""An LLM judge over 1,000 items: wall time against the ideal, and a run killed half way.

    python bench/judge.py [--items 1000] [--delay 0.2] [--concurrency 16]

A rating study of 250 situations × 4 systems × 1 criterion (1,000 items) is judged by a local
OpenAI-compatible stub (simulations/openai_stub.py) that answers every call after `--delay` s.

1. `run_judge` in this process with `max_concurrency = --concurrency`, the stub in its own process
   (as a real server would be). The ideal is items × delay / concurrency (every slot busy all the
   time, zero overhead).
2. `python -m infact judge` in a subprocess, SIGKILLed once the stub has answered half of the
   items, then started again until it finishes.

Prints:
  judge_wall_s=            the batch's wall time (study and client set up before the clock starts)
  judge_ideal_s=
  judge_ratio_vs_ideal=    target <= 1.15
  bare_wall_s=, bare_ratio_vs_ideal=   the same calls as bare urllib POSTs from 16 threads: the machine's own floor
  judge_ratio_vs_bare=     the judge's wall time over that floor (its own overhead, load mostly cancelled)
  peak_in_flight=          calls the stub saw at once (should be the concurrency)
  killed_after_answers=    answers the stub had sent when the first run was killed
  duplicate_calls=         calls of the second run for items the checkpoint already held as done; must be 0
  redone_in_flight=        calls in flight at the kill (sent, never recorded), asked again: expected, not waste
  lost_items=              items without a row in judges/NAME.csv at the end; must be 0
  load_average=
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from infact.llm.checkpoint import Checkpoint  # noqa: E402
from infact.llm.client import open_client  # noqa: E402
from infact.results.judges.runner import judge_items, run_judge  # noqa: E402
from infact.study.config import DEFAULT_SCALE  # noqa: E402
from infact.study.loader import load_study  # noqa: E402
from simulations.openai_stub import serve_openai  # noqa: E402

SYSTEMS = ["S1", "S2", "S3", "S4"]
LABELS = list(DEFAULT_SCALE)  # the original INFACT scale


def make_study(folder: Path, url: str, n_situations: int, concurrency: int) -> Path:
    shutil.copytree(REPO / "data" / "demo", folder)
    with open(folder / "situations.jsonl", "w", encoding="utf-8") as f:
        for i in range(n_situations):
            f.write(
                json.dumps(
                    {
                        "situation_id": f"b{i:04d}",
                        "dialog_id": f"d{i:04d}",
                        "context": [{"role": "user", "text": f"I want a movie like number {i}"}],
                        "responses": {s: f"{s} suggests movie {i}-{n}" for n, s in enumerate(SYSTEMS)},
                        "meta": {"turn": 1, "relative_position": (i % 3) / 3, "item_mentioned": i % 2 == 0},
                    }
                )
                + "\n"
            )
    toml = folder / "study.toml"
    text = toml.read_text(encoding="utf-8").replace(
        'systems = ["CineMate", "FlickBot", "ReelTalk"]', f"systems = {json.dumps(SYSTEMS)}"
    )
    text = text.replace('situation = "demo-05-t3"', 'situation = "b0000"')
    text += (
        f'\n[endpoints.bench]\nbase_url = "{url}"\nmodel = "stub"\nmax_concurrency = {concurrency}\n'
        'timeout_s = 30\n\n[judges.bench]\nendpoint = "bench"\n'
    )
    toml.write_text(text, encoding="utf-8")
    return folder


def rule(request: dict) -> str:
    user = request["messages"][-1]["content"]
    return LABELS[len(user) % len(LABELS)]


def stub_process(delay: float) -> tuple[subprocess.Popen, str]:
    """The stub in its own process, so this one's interpreter serves only the judge (as with a real server)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulations.openai_stub", "--delay", str(delay), "--answer", LABELS[1]],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    return proc, proc.stdout.readline().strip()


def in_process(tmp: Path, n: int, delay: float, concurrency: int) -> dict:
    proc, url = stub_process(delay)
    try:
        study = load_study(make_study(tmp, url, n, concurrency))
        llm = open_client("bench", study.config.endpoints)
        t0 = time.perf_counter()
        report = run_judge(study, "bench", llm=llm)
        wall = time.perf_counter() - t0
        with urllib.request.urlopen(url.removesuffix("/v1") + "/stub/stats") as resp:
            stats = json.load(resp)
        bare = bare_calls(url, report.items, concurrency)
    finally:
        proc.terminate()
        proc.wait()
    ideal = report.items * delay / concurrency
    return {
        "items": report.items,
        "judge_wall_s": wall,
        "judge_ideal_s": ideal,
        "judge_ratio_vs_ideal": wall / ideal,
        "bare_wall_s": bare,
        "bare_ratio_vs_ideal": bare / ideal,
        "judge_ratio_vs_bare": wall / bare,
        "peak_in_flight": stats["peak_in_flight"],
        "rows": report.rows,
    }


def bare_calls(url: str, n: int, concurrency: int) -> float:
    """The same number of completions as bare urllib POSTs on `concurrency` threads: what the machine allows."""
    from concurrent.futures import ThreadPoolExecutor

    body = json.dumps({"model": "stub", "messages": [{"role": "user", "content": "x" * 500}]}).encode()

    def post(_):
        req = urllib.request.Request(url + "/chat/completions", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.read()

    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(post, range(n)))
    return time.perf_counter() - t0


def killed_and_resumed(folder: Path, stub) -> dict:
    study = load_study(folder)
    items = judge_items(study, open_client("bench", study.config.endpoints), study.config.judges["bench"])
    key_of = {i.messages[1]["content"]: i.key for i in items}
    half = len(items) // 2
    cmd = [sys.executable, "-m", "infact", "judge", "--study", str(folder), "--judge", "bench"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    first = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    start = len(stub.requests)
    while stub.served - stub.in_flight - start < half and first.poll() is None:
        time.sleep(0.01)
    answered = stub.served - stub.in_flight - start
    first.send_signal(signal.SIGKILL)
    first.wait()
    run1 = stub.requests[start:]
    held = Checkpoint(folder / "judges" / "bench.raw.jsonl")
    done = {k for k in (key_of.get(r["messages"][1]["content"]) for r in run1) if k is not None and held.done(k)}
    mark = len(stub.requests)
    second = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if second.returncode:
        raise SystemExit(f"the resumed run failed: {second.stderr[-2000:]}")
    run2 = [key_of.get(r["messages"][1]["content"]) for r in stub.requests[mark:]]
    seen1 = {key_of.get(r["messages"][1]["content"]) for r in run1}
    import csv

    with open(folder / "judges" / "bench.csv", encoding="utf-8") as f:
        rows = {(r["situation_id"], r["system"], r["criterion"]) for r in csv.DictReader(f)}
    lost = sum(1 for i in items if (i.situation_id, i.system, i.criterion) not in rows)
    return {
        "killed_after_answers": answered,
        "duplicate_calls": sum(1 for k in run2 if k in done),
        "redone_in_flight": sum(1 for k in run2 if k in seen1 and k not in done),
        "lost_items": lost,
        "second_run_calls": len(run2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="infact-bench-judge-"))
    try:
        n = args.items // len(SYSTEMS) + 1  # one situation is the attention check's, never judged
        out = in_process(tmp / "a", n, args.delay, args.concurrency)
        with serve_openai(rule=rule, delay_s=args.delay) as stub:
            out.update(killed_and_resumed(make_study(tmp / "b", stub.url, n, args.concurrency), stub))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for k, v in out.items():
        print(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}")
    print(f"load_average={load0:.2f},{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
