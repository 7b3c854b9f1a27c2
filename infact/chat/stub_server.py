"""Small HTTP systems on 127.0.0.1 that speak the chat contract, for tests and bench/live.py.

    with serve(behaviour="normal", delay_s=0.2) as url: ...

Behaviours: `normal` (a short answer naming one movie), `slow` (sleeps `delay_s`,
meant to exceed the client's timeout), `error` (HTTP 500), `malformed` (200 with
text that is not JSON), `leak` (says "I am KBRD"), `trickle` (headers at once, then the
answer one byte per `trickle_s`), `demo:NAME` (a built-in demo
system from infact.chat.demo_systems served over HTTP). Every request is kept in
`server.requests` so tests can check what the app sent.

Latency: every answer waits `delay_s`; with `first_delay_s` the first request of each
conversation waits that long instead (a system that overruns its timeout once, then answers:
"Try again" works).

`python -m infact chat-stub --behaviour demo:genre_recommender --port 9001`
serves one for trying a study's `url = …` by hand.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _answer(behaviour: str, request: dict) -> dict:
    if behaviour.startswith("demo:"):
        from infact.chat import demo_systems

        return getattr(demo_systems, behaviour[5:])(request)
    turn = request.get("turn", 0)
    if behaviour == "leak":
        return {"text": 'I am KBRD, a knowledge-based recommender. Try "Up (2009)".', "items": ["Up (2009)"]}
    return {"text": f'Answer {turn}: you might like "Up (2009)".', "items": ["Up (2009)"]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # kept-alive connection: no ~40 ms Nagle/delayed-ACK wait on the body

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        server: StubServer = self.server  # type: ignore[assignment]
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            return self._send(400, b'{"error": "request is not JSON"}')
        with server.lock:
            first = not any(r.get("conversation_id") == request.get("conversation_id") for r in server.requests)
            server.requests.append(request)
        delay = server.first_delay_s if first and server.first_delay_s is not None else server.delay_s
        if delay:
            time.sleep(delay)
        if server.behaviour == "error":
            return self._send(500, b'{"error": "model crashed"}')
        if server.behaviour == "malformed":
            return self._send(200, b"<html>not json</html>", "text/html")
        if server.behaviour == "trickle":
            return self._trickle(json.dumps(_answer("normal", request)).encode("utf-8"), server.trickle_s)
        self._send(200, json.dumps(_answer(server.behaviour, request)).encode("utf-8"))

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

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to tell it


class StubServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(
        self, behaviour: str, delay_s: float, port: int = 0, first_delay_s: float | None = None, trickle_s: float = 0.2
    ):
        super().__init__(("127.0.0.1", port), _Handler)
        self.behaviour, self.delay_s, self.first_delay_s = behaviour, delay_s, first_delay_s
        self.trickle_s = trickle_s
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/chat"


@contextmanager
def running(server):
    """An HTTP server answering on a background thread for the block's duration, then shut and closed
    (this stub's and simulations/openai_stub.py's)."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(
    behaviour: str = "normal", delay_s: float = 0.0, first_delay_s: float | None = None, trickle_s: float = 0.2
) -> Iterator[StubServer]:
    with running(StubServer(behaviour, delay_s, first_delay_s=first_delay_s, trickle_s=trickle_s)) as server:
        yield server
