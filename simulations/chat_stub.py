"""Chat-contract systems that misbehave on purpose, on 127.0.0.1, for the tests and bench/live.py.

    with serve(behaviour="normal", delay_s=0.2) as server: ...

Behaviours: `normal` (a short answer naming one movie), `slow` (sleeps `delay_s`,
meant to exceed the client's timeout), `error` (HTTP 500), `malformed` (200 with
text that is not JSON), `leak` (says "I am KBRD"), `trickle` (headers at once, then the
answer one byte per `trickle_s`), `demo:NAME` (a built-in demo system from
infact.chat.demo_systems). Every request is kept in `server.requests` so tests can check what the app sent.

Latency: every answer waits `delay_s`; with `first_delay_s` the first request of each
conversation waits that long instead (a system that overruns its timeout once, then answers:
"Try again" works).

    python -m simulations.chat_stub --behaviour normal --delay 0.2 --port 9001

serves one in its own process (benchmarks: the client's process keeps its interpreter to itself). The product's
own server (infact/chat/http_server.py, `infact chat-stub`) serves a demo system and none of these faults.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from infact.chat.http_server import ContractHandler, SystemServer, demo_system, running


def _answer(behaviour: str, request: dict) -> dict:
    if behaviour.startswith("demo:"):
        return demo_system(behaviour[5:])(request)
    turn = request.get("turn", 0)
    if behaviour == "leak":
        return {"text": 'I am KBRD, a knowledge-based recommender. Try "Up (2009)".', "items": ["Up (2009)"]}
    return {"text": f'Answer {turn}: you might like "Up (2009)".', "items": ["Up (2009)"]}


class _Handler(ContractHandler):
    def answer(self, request: dict) -> None:
        server: StubServer = self.server  # type: ignore[assignment]
        with server.lock:
            first = not any(r.get("conversation_id") == request.get("conversation_id") for r in server.requests)
            server.requests.append(request)
        delay = server.first_delay_s if first and server.first_delay_s is not None else server.delay_s
        if delay:
            time.sleep(delay)
        if server.behaviour == "error":
            return self.send_body(500, b'{"error": "model crashed"}')
        if server.behaviour == "malformed":
            return self.send_body(200, b"<html>not json</html>", "text/html")
        if server.behaviour == "trickle":
            return self._trickle(json.dumps(_answer("normal", request)).encode("utf-8"), server.trickle_s)
        self.send_body(200, json.dumps(_answer(server.behaviour, request)).encode("utf-8"))

    def _trickle(self, body: bytes, gap_s: float) -> None:
        """Headers at once, then the answer one byte per `gap_s`: each read is quick, the whole is slow."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(gap_s)
        except (BrokenPipeError, ConnectionResetError):
            pass


class StubServer(SystemServer):
    def __init__(
        self, behaviour: str, delay_s: float, port: int = 0, first_delay_s: float | None = None, trickle_s: float = 0.2
    ):
        super().__init__(lambda request: _answer(behaviour, request), port, _Handler)
        self.behaviour, self.delay_s, self.first_delay_s = behaviour, delay_s, first_delay_s
        self.trickle_s = trickle_s
        self.requests: list[dict] = []
        self.lock = threading.Lock()


@contextmanager
def serve(
    behaviour: str = "normal", delay_s: float = 0.0, first_delay_s: float | None = None, trickle_s: float = 0.2
) -> Iterator[StubServer]:
    with running(StubServer(behaviour, delay_s, first_delay_s=first_delay_s, trickle_s=trickle_s)) as server:
        yield server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--behaviour", default="normal", help="normal, slow, error, malformed, leak, trickle, demo:NAME"
    )
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    opts = parser.parse_args()
    server = StubServer(opts.behaviour, opts.delay, opts.port)
    print(server.url, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
