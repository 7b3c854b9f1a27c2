"""`chat-stub`: serve a chat-contract system over HTTP, to try a live study's `url = …` by hand."""

from __future__ import annotations

import argparse

from infact.cli.args import command


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "chat-stub",
        "Serve a system that speaks the chat contract on http://127.0.0.1:PORT/chat, for trying a live "
        "study by hand and for benchmarks. Behaviours: normal, slow, error, malformed, leak, or demo:NAME "
        "(a built-in demo system from infact.chat.demo_systems).",
    )
    p.add_argument("--behaviour", default="demo:genre_recommender", help="how the system answers")
    p.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    p.add_argument("--port", type=int, default=9001, help="port on 127.0.0.1")
    p.set_defaults(func=run)


def run(args) -> int:
    from infact.chat.stub_server import StubServer

    server = StubServer(args.behaviour, args.delay, args.port)
    print(f"serving {args.behaviour} at {server.url}", flush=True)
    server.serve_forever()
    return 0
