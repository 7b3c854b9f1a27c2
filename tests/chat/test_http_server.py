"""The product's own HTTP server (infact/chat/http_server.py, `infact chat-stub`): a demo system behind a URL,
reached by the same HttpSystem a study's `url = …` makes. The misbehaving servers are simulations/chat_stub.py."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from infact.chat.client import HttpSystem
from infact.chat.contract import Message, build_request
from infact.chat.http_server import demo_system, serve


def post(url: str, body: bytes) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, body, {"Content-Type": "application/json"})) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_a_demo_system_answers_over_http_as_it_does_in_process():
    request = build_request("s", "c1", 1, [Message("user", "something scary please")])
    with serve(demo_system("genre_recommender")) as server:
        answer = HttpSystem("Genre", server.url, 5.0).reply(request)
    assert answer.text == demo_system("genre_recommender")(request)["text"]
    assert answer.items


def test_bad_requests_and_a_failing_system_get_http_errors_and_the_server_lives_on():
    def broken(request: dict) -> dict:
        raise KeyError("messages")

    with serve(broken) as server:
        assert post(server.url, b"not json") == (400, {"error": "request is not JSON"})
        status, body = post(server.url, b"{}")
        assert status == 500 and "KeyError" in body["error"]
        assert post(server.url, b"{}")[0] == 500  # still serving


def test_an_unknown_demo_system_is_refused_by_name():
    with pytest.raises(ValueError, match="no built-in demo system 'nope'.*genre_recommender"):
        demo_system("nope")
