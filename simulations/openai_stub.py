"""A local OpenAI-compatible server for tests and benchmarks: nothing leaves the machine.

    with serve_openai(rule=lambda req: "Try \"Up (2009)\".", delay_s=0.2) as stub:
        Endpoint(base_url=stub.url, model="stub-model")

- `POST /v1/chat/completions` answers with `rule(request_body)`: a string (the content) or
  a dict with any of `content`, `refusal`, `finish_reason`, `delay_s` (this answer's own latency),
  `trickle_s` (headers at once, then the body one piece per `trickle_s`: a byte of JSON, or one
  word's SSE event). The default rule echoes the last user message. A request with `"stream": true`
  is answered as server-sent events (`chat.completion.chunk`s, one per word, then `[DONE]`), as
  llama.cpp and vLLM do; a client that closes the stream stops the answer (`stub.cut` counts them).
- `GET /v1/models` lists `stub.models`.
- `stub.fail(status, times=1, retry_after=None, message=None)` makes the next `times` completions fail
  with that HTTP status (429 with a `Retry-After` header when given; `message` the error's text);
  `stub.malformed(times)` answers 200 with a body that is not JSON.
- `stub.requests` keeps every completion request body, `stub.auth` its Authorization header,
  `stub.peak_in_flight` the most requests served at once, `stub.in_flight` those being answered.
Threaded, bound to 127.0.0.1 on a free port. `GET /stub/stats` gives the counters.

    python -m simulations.openai_stub --delay 0.2 --answer "Meaningless"

serves one in its own process (benchmarks: the client's process then has its interpreter to itself)
and prints its URL.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Rule = Callable[[dict], "str | dict"]


def echo_rule(request: dict) -> str:
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    last = users[-1].get("content", "") if users else ""
    return f"You said: {last}"


def _words(text: str) -> int:
    return len(str(text).split())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; on a kept-alive connection Nagle's algorithm held the body
    # until the client's delayed ACK (~40 ms a call, measured) — real servers (uvicorn, vLLM) set TCP_NODELAY too.
    disable_nagle_algorithm = True

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        stub: OpenAIStub = self.server  # type: ignore[assignment]
        if self.path.rstrip("/") == "/stub/stats":
            return self._json(
                200, {"served": stub.served, "in_flight": stub.in_flight, "peak_in_flight": stub.peak_in_flight}
            )
        if self.path.rstrip("/") == "/v1/models":
            return self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": m, "object": "model", "owned_by": "infact-stub"} for m in stub.models],
                },
            )
        self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        stub: OpenAIStub = self.server  # type: ignore[assignment]
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
        try:
            request = json.loads(body or b"{}")
        except json.JSONDecodeError:
            return self._json(400, {"error": {"message": "request is not JSON", "type": "invalid_request_error"}})
        scripted = stub.enter(request, self.headers.get("Authorization"))
        try:
            self._complete(stub, request, scripted)
        finally:
            stub.leave()

    def _complete(self, stub: OpenAIStub, request: dict, scripted: dict | None) -> None:
        if scripted is not None:
            time.sleep(stub.delay_s)
            if scripted["status"] == "malformed":
                return self._send(200, b'{"id": "x", "choices": [ {not json', "application/json")
            headers = {"Retry-After": str(scripted["retry_after"])} if scripted["retry_after"] is not None else {}
            return self._json(
                scripted["status"],
                {
                    "error": {
                        "message": scripted.get("message") or f"stub error {scripted['status']}",
                        "type": "server_error",
                    }
                },
                headers,
            )
        answer = stub.rule(request)
        answer = {"content": answer} if isinstance(answer, str) else dict(answer)
        time.sleep(answer.get("delay_s", stub.delay_s))
        content = answer.get("content")
        trickle = answer.get("trickle_s", stub.trickle_s)
        if request.get("stream") and not stub.ignore_stream:
            return self._stream(stub, request, answer, trickle)
        prompt = " ".join(str(m.get("content", "")) for m in request.get("messages", []))
        message = {"role": "assistant", "content": content, "refusal": answer.get("refusal")}
        payload = json.dumps(
            {
                "id": f"chatcmpl-stub-{stub.served}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.get("model", stub.model),
                "choices": [{"index": 0, "message": message, "finish_reason": answer.get("finish_reason", "stop")}],
                "usage": {
                    "prompt_tokens": _words(prompt),
                    "completion_tokens": _words(content or ""),
                    "total_tokens": _words(prompt) + _words(content or ""),
                },
            }
        ).encode("utf-8")
        if trickle:
            return self._trickle(stub, payload, trickle)
        self._send(200, payload, "application/json")

    def _trickle(self, stub: OpenAIStub, body: bytes, gap_s: float) -> None:
        """Headers at once, then the body one byte per `gap_s`: every read is quick, the whole is slow."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self._pieces(stub, [body[i : i + 1] for i in range(len(body))], gap_s)

    def _stream(self, stub: OpenAIStub, request: dict, answer: dict, gap_s: float | None) -> None:
        """Server-sent events, one chunk per word (with `gap_s` between them), then `[DONE]`."""
        base = {"id": f"chatcmpl-stub-{stub.served}", "object": "chat.completion.chunk", "created": int(time.time())}
        base["model"] = request.get("model", stub.model)
        words = str(answer.get("content") or "").split(" ")
        deltas = [{"role": "assistant", "content": ""}] + [
            {"content": w if i == 0 else " " + w} for i, w in enumerate(words) if answer.get("content")
        ]
        if answer.get("refusal"):
            deltas.append({"refusal": answer["refusal"]})
        chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        chunks.append(
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": answer.get("finish_reason", "stop")}]}
        )
        if (request.get("stream_options") or {}).get("include_usage"):
            prompt = " ".join(str(m.get("content", "")) for m in request.get("messages", []))
            used = {"prompt_tokens": _words(prompt), "completion_tokens": len(deltas) - 1}
            chunks.append({**base, "choices": [], "usage": {**used, "total_tokens": sum(used.values())}})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        events = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]
        self._pieces(stub, events, gap_s or 0.0)
        self.close_connection = True

    def _pieces(self, stub: OpenAIStub, pieces: list[bytes], gap_s: float) -> None:
        """Write each piece, waiting `gap_s` between them; a client that went away stops the answer."""
        try:
            for i, piece in enumerate(pieces):
                if i and gap_s:
                    time.sleep(gap_s)
                self.wfile.write(piece)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with stub._lock:
                stub.cut += 1

    def _json(self, status: int, payload: dict, headers: dict | None = None) -> None:
        self._send(status, json.dumps(payload).encode("utf-8"), "application/json", headers)

    def _send(self, status: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class OpenAIStub(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(
        self,
        rule: Rule | None = None,
        delay_s: float = 0.0,
        model: str = "stub-model",
        port: int = 0,
        trickle_s: float | None = None,
    ):
        super().__init__(("127.0.0.1", port), _Handler)
        self.rule, self.delay_s, self.model, self.trickle_s = rule or echo_rule, delay_s, model, trickle_s
        self.models = [model]
        self.ignore_stream = False  # True: answer `"stream": true` with a plain completion, as some servers do
        self.cut = 0  # answers the client stopped reading (closed the stream or the connection)
        self.requests: list[dict] = []
        self.auth: list[str | None] = []
        self._script: deque[dict] = deque()
        self._lock = threading.Lock()
        self.in_flight = self.peak_in_flight = self.served = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def handle_error(self, request, client_address) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # a client that went away: quiet
            super().handle_error(request, client_address)

    def fail(self, status: int, times: int = 1, retry_after: float | None = None, message: str | None = None) -> None:
        with self._lock:
            self._script.extend(
                {"status": status, "retry_after": retry_after, "message": message} for _ in range(times)
            )

    def malformed(self, times: int = 1) -> None:
        with self._lock:
            self._script.extend({"status": "malformed", "retry_after": None} for _ in range(times))

    def enter(self, request: dict, auth: str | None) -> dict | None:
        with self._lock:
            self.requests.append(request)
            self.auth.append(auth)
            self.in_flight += 1
            self.served += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return self._script.popleft() if self._script else None

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


@contextmanager
def serve_openai(
    rule: Rule | None = None, delay_s: float = 0.0, model: str = "stub-model", trickle_s: float | None = None
) -> Iterator[OpenAIStub]:
    from infact.chat.http_server import running

    with running(OpenAIStub(rule, delay_s, model, trickle_s=trickle_s)) as stub:
        yield stub


def _main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="a local OpenAI-compatible stub server")
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--answer", help="answer every completion with this text (default: echo the last user message)")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    stub = OpenAIStub((lambda request: args.answer) if args.answer else None, args.delay, port=args.port)
    print(stub.url, flush=True)
    stub.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    _main()
