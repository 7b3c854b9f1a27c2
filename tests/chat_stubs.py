"""Stub systems on 127.0.0.1 as pytest fixtures (imported by the chat test modules).

normal: answers at once; slow: answers after 1.5 s (beyond a 0.3 s timeout);
erroring: HTTP 500; leaky: says "I am KBRD"; malformed: 200 with HTML.
"""

from __future__ import annotations

import socket

import pytest

from infact.chat.client import HttpSystem
from infact.chat.stub_server import serve

SHORT_TIMEOUT = 0.3


@pytest.fixture(scope="module")
def normal_server():
    with serve("normal") as server:
        yield server


@pytest.fixture(scope="module")
def slow_server():
    with serve("slow", delay_s=1.5) as server:
        yield server


@pytest.fixture(scope="module")
def error_server():
    with serve("error") as server:
        yield server


@pytest.fixture(scope="module")
def leak_server():
    with serve("leak") as server:
        yield server


@pytest.fixture(scope="module")
def malformed_server():
    with serve("malformed") as server:
        yield server


@pytest.fixture
def refused_url() -> str:
    """A port nothing listens on: bound, then closed."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/chat"


def http(name: str, url: str, timeout: float = 5.0) -> HttpSystem:
    return HttpSystem(name, url, timeout)
