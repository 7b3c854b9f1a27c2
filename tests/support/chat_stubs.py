"""Stub systems on 127.0.0.1: the fixtures (normal_server, slow_server, ...) are in tests/conftest.py.

normal: answers at once; slow: answers after 1.5 s (beyond a 0.3 s timeout);
erroring: HTTP 500; leaky: says "I am KBRD"; malformed: 200 with HTML.
"""

from __future__ import annotations

from infact.chat.client import HttpSystem

SHORT_TIMEOUT = 0.3


def http(name: str, url: str, timeout: float = 5.0) -> HttpSystem:
    return HttpSystem(name, url, timeout)


# In-process systems (`callable = "tests.support.chat_stubs:leaky"` in a study's [live.systems]).


def leaky(request: dict) -> dict:
    """Names itself in its answer (the arena must hide that)."""
    return {"text": 'As Gamma I recommend "Up (2009)".', "items": ["Up (2009)"]}


def script_bot(request: dict) -> dict:
    """Answers with markup that must be shown as text, never run."""
    return {"text": "<script>alert('x')</script> **not bold**\nsecond line", "items": []}
