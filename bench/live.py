"""Live chats under load: 50 participants chatting at once with systems that take 200 ms.

    python bench/live.py [--chats 50] [--turns 5] [--delay 0.2] [--think 0] [--rounds 3]
                         [--store tinydb|memory|URL] [--systems http|endpoint]

With `--systems endpoint` the two systems are OpenAI-compatible stubs (simulations/openai_stub.py,
each in its own process) reached as endpoint systems through infact.llm (the official openai
client, limiter, call records), and the baseline is a bare urllib POST to /chat/completions.

Two stub systems (`python -m simulations.chat_stub`, each in its own process) answer every request after `--delay`
seconds. `--chats` threads each hold one conversation of `--turns` messages through
`ChatSession.send` — the same call the live page makes: store the participant's
message, call the system over HTTP, store the answer with its latency. The
baseline is a bare HTTP call to the same stub (`HttpSystem.reply`, no storage)
made by the same thread right before each send: interleaved turn by turn, so the
load of other processes on a shared machine slows both alike.

Prints, one per line:
  lost_messages=     messages acknowledged by a send but not read back from a fresh
                     store (participant messages + usable answers); must be 0
  failed_answers=    answers that failed (timeouts etc.); expected 0
  overhead_p95_ms=   p95 of (time of one send - the system's own 200 ms): the app's time
                     beyond the system's latency, HTTP included; target <= 50
  overhead_p50_ms=
  bare_http_overhead_p95_ms=  p95 of (bare HTTP call - 200 ms), the floor
  app_only_p95_ms=   overhead_p95_ms - bare_http_overhead_p95_ms (storage and bookkeeping)
  overhead_p95_ms_per_round=  the p95 of each round (the figures above are medians over rounds)
  wall_s=
  load_average=      the machine's 1-minute load average before and after the run
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from infact.chat.client import HttpSystem  # noqa: E402
from infact.chat.contract import Message, build_request  # noqa: E402
from infact.chat.conversation import read_conversation  # noqa: E402
from infact.chat.identity import LeakDetector  # noqa: E402
from infact.chat.session import ChatSession  # noqa: E402
from infact.storage import open_storage  # noqa: E402

STUDY = "bench-live"


def chat(
    storage,
    client,
    token: str,
    turns: int,
    think: float,
    timings: list,
    base: list,
    lock: threading.Lock,
    baseline=None,
) -> int:
    session = ChatSession(
        storage,
        study_id=STUDY,
        dataset_version="v",
        token=token,
        slot="A",
        system=client.name,
        client=client,
        detector=LeakDetector(["StubOne", "StubTwo"]),
        max_turns=turns,
    )
    acked = 0
    rng = random.Random(token)
    for n in range(turns):
        time.sleep(rng.uniform(0, think))  # reading the answer and typing the next message
        t0 = time.perf_counter()
        (baseline or client).reply(build_request(STUDY, "bare", n + 1, [Message("user", "something funny please")]))
        t1 = time.perf_counter()
        outcome = session.send(f"message {n + 1}: something funny please")
        t2 = time.perf_counter()
        with lock:
            base.append((t1 - t0) * 1000)
            timings.append((t2 - t1) * 1000)
        acked += 2 if outcome.ok else 1
    return acked


def count_stored(target: str, tokens: list[str], clients: list) -> tuple[int, int]:
    """Read every conversation back; a TinyDB store through a fresh handle (what a restart sees)."""
    storage = open_storage(target) if not target.startswith(("memory://", "postgresql")) else None
    found = failed = 0
    for i, token in enumerate(tokens):
        recs = (storage or SHARED[0]).records(study=STUDY, participant=token)
        conv = read_conversation(recs, f"{token}-A", clients[i % 2].name, "A")
        found += sum(1 for t in conv.turns if t.role == "user" or t.ok)
        failed += sum(1 for t in conv.turns if not t.ok)
    return found, failed


SHARED: list = []


def start_stub(delay: float) -> tuple[subprocess.Popen, str]:
    """A stub system in its own process, so it does not share the app's interpreter lock."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simulations.chat_stub",
            "--behaviour",
            "normal",
            "--delay",
            str(delay),
            "--port",
            str(port),
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}/chat"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the stub system did not start")


class BareOpenAI:
    """The floor of an endpoint system's call: one urllib POST to the stub's /chat/completions, no client library."""

    def __init__(self, name: str, base_url: str):
        self.name, self.url = name, base_url + "/chat/completions"

    def reply(self, request: dict):
        import json
        import urllib.request

        body = json.dumps(
            {"model": "stub", "messages": [{"role": m["role"], "content": m["text"]} for m in request["messages"]]}
        ).encode()
        req = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.load(resp)


def start_openai_stub(delay: float) -> tuple[subprocess.Popen, str]:
    """An OpenAI-compatible stub (simulations/openai_stub.py) in its own process; its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulations.openai_stub", "--delay", str(delay)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    return proc, proc.stdout.readline().strip()


def endpoint_clients(urls: list[str]) -> tuple[list, list]:
    from infact.chat.llm_chat import LLMSystem
    from infact.llm.client import LLMClient
    from infact.study.endpoints import Endpoint

    names = ["StubOne", "StubTwo"]
    clients = [
        LLMSystem(
            name,
            LLMClient(
                f"bench-{name}", Endpoint(base_url=url, model="stub", max_concurrency=64, timeout_s=10), label=name
            ),
            system_prompt="You recommend movies.",
            timeout_s=10,
        )
        for name, url in zip(names, urls)
    ]
    return clients, [BareOpenAI(name, url) for name, url in zip(names, urls)]


def one_round(args, storage, target: str, clients: list, n: int, baselines: list | None = None) -> dict:
    """The chats of fresh participants, each send right after its bare-HTTP baseline call."""
    lock = threading.Lock()
    base_ms: list[float] = []
    tokens = [f"bench{n}x{i:03d}" for i in range(args.chats)]
    send_ms: list[float] = []
    with ThreadPoolExecutor(args.chats) as pool:
        acked = sum(
            pool.map(
                lambda i: chat(
                    storage,
                    clients[i % 2],
                    tokens[i],
                    args.turns,
                    args.think,
                    send_ms,
                    base_ms,
                    lock,
                    baselines[i % 2] if baselines else None,
                ),
                range(args.chats),
            )
        )
    found, failed = count_stored(target, tokens, clients)
    delay_ms = args.delay * 1000
    return {
        "acked": acked,
        "lost": acked - found,
        "failed": failed,
        "p95": float(np.percentile(np.array(send_ms) - delay_ms, 95)),
        "p50": float(np.percentile(np.array(send_ms) - delay_ms, 50)),
        "bare_p95": float(np.percentile(np.array(base_ms) - delay_ms, 95)),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--chats", type=int, default=50)
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--delay", type=float, default=0.2)
    p.add_argument(
        "--store",
        default="tinydb",
        help="tinydb (a temp dir), memory, or a PostgreSQL URL (a fresh schema, dropped afterwards)",
    )
    p.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="each participant waits uniform(0, THINK) s before a message (0: all 50 send in lockstep, the worst case)",
    )
    p.add_argument("--rounds", type=int, default=3, help="rounds of fresh chats; figures are medians over rounds")
    p.add_argument(
        "--systems",
        choices=("http", "endpoint"),
        default="http",
        help="http: chat-contract stubs; endpoint: OpenAI-compatible stubs reached as endpoint systems "
        "(infact.llm), the baseline a bare urllib POST to /chat/completions",
    )
    args = p.parse_args()
    load_before = os.getloadavg()[0]
    tmp = tempfile.TemporaryDirectory()
    target = (
        str(Path(tmp.name) / "store")
        if args.store == "tinydb"
        else ("memory://" if args.store == "memory" else args.store)
    )
    if target.startswith("postgresql"):
        from infact.stores.sql.store import SQLStorage

        storage = SQLStorage(target, schema=f"bench_{uuid.uuid4().hex[:10]}", drop_on_close=True)
    else:
        storage = open_storage(target)
    SHARED.append(storage)
    start = start_openai_stub if args.systems == "endpoint" else start_stub
    stubs = [start(args.delay), start(args.delay)]
    t0 = time.perf_counter()
    try:
        if args.systems == "endpoint":
            clients, baselines = endpoint_clients([url for _, url in stubs])
        else:
            clients, baselines = [HttpSystem("StubOne", stubs[0][1], 10), HttpSystem("StubTwo", stubs[1][1], 10)], None
        rounds = [one_round(args, storage, target, clients, n, baselines) for n in range(args.rounds)]
    finally:
        for proc, _ in stubs:
            proc.terminate()
            proc.wait()
    med = {k: float(np.median([r[k] for r in rounds])) for k in ("p95", "p50", "bare_p95")}
    print(f"store={'postgresql' if target.startswith('postgresql') else args.store}")  # never the URL's password
    print(f"systems={args.systems}")
    print(f"chats={args.chats}")
    print(f"turns={args.turns}")
    print(f"think_s={args.think}")
    print(f"rounds={args.rounds}")
    print(f"messages_acknowledged={sum(r['acked'] for r in rounds)}")
    print(f"lost_messages={sum(r['lost'] for r in rounds)}")
    print(f"failed_answers={sum(r['failed'] for r in rounds)}")
    print(f"overhead_p95_ms={med['p95']:.1f}")
    print(f"overhead_p50_ms={med['p50']:.1f}")
    print(f"bare_http_overhead_p95_ms={med['bare_p95']:.1f}")
    print(f"app_only_p95_ms={med['p95'] - med['bare_p95']:.1f}")
    per_round = ",".join(f"{r['p95']:.1f}" for r in rounds)
    print(f"overhead_p95_ms_per_round={per_round}")
    print(f"wall_s={time.perf_counter() - t0:.2f}")
    print(f"load_average={load_before:.2f},{os.getloadavg()[0]:.2f}")  # other processes share the cores
    storage.close()
    tmp.cleanup()


if __name__ == "__main__":
    main()
