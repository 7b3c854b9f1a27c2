"""A chat-contract system served over HTTP on 127.0.0.1 (`infact chat-stub`): a built-in demo system behind a
`url = …`, to try a live study's HTTP route by hand with no model and no network.

    with serve(demo_system("retrieval_bot")) as server:  # server.url == "http://127.0.0.1:PORT/chat"

Each POST is one request of the contract (docs/live.md); the answer is the system's. A body that is not JSON gets
HTTP 400 and a system that raises gets HTTP 500 with the error, as a real CRS server would. Nothing else: the
fault-injecting servers of the tests and benchmarks (slow, erroring, leaking, trickling) build on this one in
simulations/chat_stub.py, outside the product.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

System = Callable[[dict], dict]  # the in-process contract: request dict -> {"text", "items"}
DEMO_SYSTEMS = ("genre_recommender", "retrieval_bot", "popular_recommender")  # infact.chat.demo_systems


def demo_system(name: str) -> System:
    if name not in DEMO_SYSTEMS:
        raise ValueError(f"no built-in demo system {name!r}: choose one of {', '.join(DEMO_SYSTEMS)}")
    from infact.chat import demo_systems

    return getattr(demo_systems, name)


class ContractHandler(BaseHTTPRequestHandler):
    """Reads one JSON request and hands it to `answer`, which a subclass may override."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # kept-alive connection: no ~40 ms Nagle/delayed-ACK wait on the body

    def log_message(self, *args) -> None:  # keep the terminal (and test output) clean
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            return self.send_body(400, b'{"error": "request is not JSON"}')
        self.answer(request)

    def answer(self, request: dict) -> None:
        server: SystemServer = self.server  # type: ignore[assignment]
        try:
            answer = server.system(request)
        except Exception as exc:  # the system's own bug: told to the caller as a failed answer, the server lives on
            return self.send_body(500, json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode("utf-8"))
        self.send_body(200, json.dumps(answer).encode("utf-8"))

    def send_body(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing to tell it


class SystemServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, system: System, port: int = 0, handler: type[ContractHandler] = ContractHandler):
        super().__init__(("127.0.0.1", port), handler)
        self.system = system

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/chat"


@contextmanager
def running(server: SystemServer) -> Iterator[SystemServer]:
    """Serves on a daemon thread until the block ends."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def serve(system: System, port: int = 0):
    return running(SystemServer(system, port))
