"""API keys: looked up by the variable's NAME when a client is made, never stored, scrubbed everywhere.

A key may reach text we keep in three ways: a server (or proxy) echoes it in an error
body, a library logs a request at debug level, or someone pastes it in a prompt. Every
detail we store or raise goes through `scrub`, and the `openai`/`httpx` loggers get a
filter that does the same to their records.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping

MASK = "[api key removed]"
_KNOWN: set[str] = set()  # every key this process has read (scrubbed from all text)
_LOCK = threading.Lock()
_LOGGERS = ("openai", "httpx", "httpx2", "httpcore")


def read_key(env_name: str | None, env: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> str | None:
    """The key held by variable `env_name` (environment first, then a top-level secret), or None."""
    if not env_name:
        return None
    value = (os.environ if env is None else env).get(env_name)
    if not value and secrets is not None:
        try:
            value = secrets.get(env_name)
        except (FileNotFoundError, KeyError, TypeError):  # st.secrets without a secrets.toml
            value = None
    if not value:
        return None
    remember(str(value))
    return str(value)


def remember(key: str) -> None:
    if len(key) >= 4:  # scrubbing a 1-3 character "key" would mangle ordinary text
        with _LOCK:
            _KNOWN.add(key)
        _install_log_filter()


def scrub(text: object) -> str:
    """`text` with every key this process knows replaced by a mask (and bearer tokens cut)."""
    out = str(text)
    with _LOCK:
        keys = sorted(_KNOWN, key=len, reverse=True)
    for key in keys:
        if key in out:
            out = out.replace(key, MASK)
    return out


class ScrubFilter(logging.Filter):
    """Rewrites a log record's message so no known key reaches a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        with _LOCK:
            if not _KNOWN:
                return True
        message = record.getMessage()
        clean = scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


_FILTER = ScrubFilter()


def _install_log_filter() -> None:
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
