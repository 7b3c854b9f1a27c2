"""Reference adapter: serve an existing CRS over INFACT's chat contract (docs/live.md).

Reference only: it is documented and checked by hand, not run in CI (the CRSs it wraps
need their own models and environments). Copy it next to your CRS and adapt `load_*`.

    python scripts/crs_adapter.py --backend ievalm --port 9001 -- kbrd --kg_dataset redial ...
    python scripts/crs_adapter.py --backend demo --port 9001        # no model: try the contract

then in study.toml:

    [live.systems.KBRD]
    url = "http://127.0.0.1:9001/chat"
    timeout_s = 20

The contract: INFACT POSTs `{"study_id", "conversation_id", "turn", "messages":
[{"role": "user"|"assistant", "text"}]}` (the whole conversation so far) and expects
`{"text": "...", "items": ["Title (Year)", ...]}` back (`items` optional). The CRS itself
keeps no state between requests: the messages are the state.

Backends
- `ievalm`: the iEvaLM-CRS / CRS Arena model interface, `CRSModel(name, *args).get_response(
  conv_dict, id2entity)` with `conv_dict = {"context": [user, system, user, ...]}` (texts
  alternating, starting with the user). Run from the iEvaLM/CRS Arena checkout so
  `src.model.crs_model` imports; the arguments after `--` go to `CRSModel`.
- `function`: any `module:function(context: list[str]) -> str`. For CRSLab, whose
  systems only offer an interactive stdin loop (`system.interact()`), write that function
  from one iteration of your release's loop (tokenize the context, update the
  rec/conv contexts, run the conversation model, decode) and serve it with
  `--backend function --function my_crslab_wrapper:respond`.
- `demo`: INFACT's built-in genre recommender, to try the adapter and the contract.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Respond = Callable[[list[str]], str]  # alternating texts, user first → the system's answer
_TITLE = re.compile(r'"?([^"\n]{1,120}? \(\d{4}\))"?')


def alternating(messages: list[dict]) -> list[str]:
    """INFACT messages → the alternating user/system text list most CRS code bases expect."""
    texts: list[str] = []
    expect = "user"
    for m in messages:
        if m["role"] != expect:  # two of a kind in a row (e.g. after a failed answer): pad
            texts.append("")
            expect = m["role"]
        texts.append(m["text"])
        expect = "assistant" if expect == "user" else "user"
    return texts


def load_ievalm(args: list[str]) -> Respond:
    from src.model.crs_model import CRSModel  # import from the iEvaLM / CRS Arena checkout

    model = CRSModel(*args)
    id2entity: dict = getattr(model.crs_model, "id2entity", {}) or {}

    def respond(context: list[str]) -> str:
        answer = model.get_response({"context": context}, id2entity)
        return answer[0] if isinstance(answer, tuple) else answer

    return respond


def load_function(spec: str) -> Respond:
    """Any `module:function(context: list[str]) -> str` on the Python path (e.g. a CRSLab wrapper)."""
    import importlib

    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def load_demo(args: list[str]) -> Respond:
    sys.path.insert(0, ".")
    from infact.chat.demo_systems import genre_recommender

    return lambda context: genre_recommender(
        {"messages": [{"role": "user" if i % 2 == 0 else "assistant", "text": t} for i, t in enumerate(context)]}
    )["text"]


def make_handler(respond: Respond):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            try:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                text = respond(alternating(request["messages"]))
                body, status = {"text": text, "items": _TITLE.findall(text)}, 200
            except (ValueError, KeyError) as exc:
                body, status = {"error": f"bad request: {exc}"}, 400
            except Exception as exc:  # the model failed: INFACT shows "try again / skip"
                body, status = {"error": f"{type(exc).__name__}: {exc}"}, 500
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def main() -> None:
    p = argparse.ArgumentParser(description="Serve a CRS over INFACT's chat contract.")
    p.add_argument("--backend", choices=("ievalm", "function", "demo"), required=True)
    p.add_argument("--function", help="module:function for --backend function")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9001)
    p.add_argument("model_args", nargs="*", help="after --: arguments for the backend's model")
    args = p.parse_args()
    if args.backend == "function":
        if not args.function:
            p.error("--backend function needs --function module:function")
        respond = load_function(args.function)
    else:
        respond = {"ievalm": load_ievalm, "demo": load_demo}[args.backend](args.model_args)
    server = ThreadingHTTPServer((args.host, args.port), make_handler(respond))
    print(f"{args.backend} answering at http://{args.host}:{args.port}/chat", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
