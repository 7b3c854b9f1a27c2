"""`chat-stub`: serve a built-in demo system over HTTP, to try a live study's `url = …` by hand."""

from __future__ import annotations

import argparse

from infact.cli.args import command

# infact.chat.http_server.DEMO_SYSTEMS, repeated: `chat-stub --help` imports no server (tests/cli checks they agree)
DEMO_SYSTEMS = ("genre_recommender", "retrieval_bot", "popular_recommender")


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "chat-stub",
        "Serve a built-in demo system (infact.chat.demo_systems) over the chat contract on "
        "http://127.0.0.1:PORT/chat, for trying a live study's `url = …` by hand with no model and no network.",
    )
    p.add_argument("--system", default="genre_recommender", choices=DEMO_SYSTEMS, help="the demo system to serve")
    p.add_argument("--port", type=int, default=9001, help="port on 127.0.0.1")
    p.set_defaults(func=run)


def run(args) -> int:
    from infact.chat.http_server import SystemServer, demo_system

    server = SystemServer(demo_system(args.system), args.port)
    print(f"serving {args.system} at {server.url}", flush=True)
    server.serve_forever()
    return 0
