"""Wrong researcher passwords are slowed down per session and per server, and logged."""

from __future__ import annotations

import logging
import threading

import pytest

from infact.access.throttle import SignInThrottle, backoff


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def guess(throttle: SignInThrottle, session: str) -> bool:
    """One wrong password as the page handles it; False if the attempt was refused unchecked."""
    if throttle.wait_seconds(session) > 0:
        return False
    throttle.failed(session)
    return True


def test_backoff_is_free_then_doubles_up_to_the_cap():
    assert [backoff(k, 3, 2.0, 20.0) for k in range(1, 9)] == [0, 0, 0, 2, 4, 8, 16, 20]


def test_one_session_gets_a_few_free_tries_then_waits_longer_each_time(clock):
    t = SignInThrottle(session_free=3, server_free=100, clock=clock)
    assert [t.failed("s1") for _ in range(3)] == [0, 0, 0]
    assert t.failed("s1") == 2.0
    assert t.wait_seconds("s1") == 2.0 and t.wait_seconds("other") == 0
    clock.now += 2.0
    assert t.wait_seconds("s1") == 0
    assert t.failed("s1") == 4.0


def test_a_correct_password_clears_the_session_count(clock):
    t = SignInThrottle(session_free=2, server_free=100, clock=clock)
    for _ in range(3):
        t.failed("s1")
    clock.now += 10
    t.succeeded("s1")
    assert t.wait_seconds("s1") == 0 and t.failed("s1") == 0


def test_the_reported_case_100_wrong_passwords_in_32_seconds_is_held_to_a_handful(clock):
    # One session hammering as fast as it can for 32 s: today all 100 were checked.
    t = SignInThrottle(clock=clock)
    checked = 0
    for _ in range(100):
        checked += guess(t, "hammer")
        clock.now += 0.32
    # 3 free, then waits of 2, 4, 8 and 16 s: the 9th check would come after 32 s.
    assert checked == 8, checked


def test_new_session_per_guess_is_throttled_server_wide(clock):
    t = SignInThrottle(session_free=3, server_free=10, server_max_delay=60, clock=clock)
    checked = 0
    for i in range(1000):                       # ~1000 fresh sessions within 100 s
        checked += guess(t, f"fresh-{i}")
        clock.now += 0.1
    assert checked == 16, checked   # 11 without waiting, then 2, 4, 8, 16, 32 s apart; next after 60 s
    assert t.wait_seconds("the-real-researcher") <= 60  # a locked-out researcher waits at most the cap


def test_old_failures_expire_after_the_window(clock):
    t = SignInThrottle(session_free=1, server_free=1, window=900, clock=clock)
    t.failed("s1")
    t.failed("s2")
    assert t.wait_seconds("s3") > 0             # server-wide: 2 failures > 1 free
    clock.now += 901
    assert t.wait_seconds("s1") == 0 and t.wait_seconds("s3") == 0
    assert t.failed("s1") == 0                  # counting starts afresh
    assert len(t._sessions) == 1                # expired sessions are forgotten: bounded memory


def test_failures_and_refusals_are_logged_without_the_password(clock, caplog):
    t = SignInThrottle(session_free=1, server_free=100, clock=clock)
    with caplog.at_level(logging.WARNING, logger="infact.access.auth"):
        t.failed("abcdef0123456789")
        wait = t.failed("abcdef0123456789")
        t.refused("abcdef0123456789", wait)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 3
    assert "wrong password (session abcdef01: 1 in a row; server: 1 in the last 15 min)" in messages[0]
    assert "next attempt allowed in 2 s" in messages[1]
    assert "refused while throttled" in messages[2]


def test_concurrent_failures_are_all_counted(clock):
    t = SignInThrottle(server_free=10_000, session_free=10_000, clock=clock)
    threads = [threading.Thread(target=lambda: [t.failed("s") for _ in range(200)]) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert t._sessions["s"].failures == 1600 and len(t._server) == 1600
