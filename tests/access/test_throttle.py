"""Wrong researcher passwords are slowed down per session, per source and per server, and logged;
attempts are reserved before the password is checked, so parallel sessions cannot beat it."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from infact.access.throttle import SignInThrottle, attempt, backoff


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def guess(throttle: SignInThrottle, session: str, source: str | None = None) -> bool:
    """One wrong password as the page handles it; False if the attempt was refused unchecked."""
    return attempt(throttle, session, source, lambda: False).checked


def wrong(throttle: SignInThrottle, session: str, source: str | None = None) -> float:
    """A wrong password that was checked; the wait it imposes."""
    assert throttle.reserve(session, source) == 0, "refused: the test expected a check"
    return throttle.failed(session, source)


def test_backoff_is_free_then_doubles_up_to_the_cap():
    assert [backoff(k, 3, 2.0, 20.0) for k in range(1, 9)] == [0, 0, 0, 2, 4, 8, 16, 20]


def test_one_session_gets_a_few_free_tries_then_waits_longer_each_time(clock):
    t = SignInThrottle(session_free=3, server_free=100, clock=clock)
    assert [wrong(t, "s1") for _ in range(3)] == [0, 0, 0]
    assert wrong(t, "s1") == 2.0
    assert t.wait_seconds("s1") == 2.0 and t.wait_seconds("other") == 0
    clock.now += 2.0
    assert t.wait_seconds("s1") == 0
    assert wrong(t, "s1") == 4.0


def test_a_correct_password_clears_the_session_count(clock):
    t = SignInThrottle(session_free=2, server_free=100, clock=clock)
    for _ in range(3):
        wrong(t, "s1")
    clock.now += 10
    t.succeeded("s1")
    assert t.wait_seconds("s1") == 0 and wrong(t, "s1") == 0


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
    for i in range(1000):  # ~1000 fresh sessions within 100 s
        checked += guess(t, f"fresh-{i}")
        clock.now += 0.1
    assert checked == 16, checked  # 11 without waiting, then 2, 4, 8, 16, 32 s apart; next after 60 s
    assert t.wait_seconds("the-real-researcher") <= 60  # a locked-out researcher waits at most the cap


def test_old_failures_expire_after_the_window(clock):
    t = SignInThrottle(session_free=1, server_free=1, window=900, clock=clock)
    wrong(t, "s1")
    wrong(t, "s2")
    assert t.wait_seconds("s3") > 0  # server-wide: 2 failures > 1 free
    clock.now += 901
    assert t.wait_seconds("s1") == 0 and t.wait_seconds("s3") == 0
    assert wrong(t, "s1") == 0  # counting starts afresh
    assert len(t._sessions) == 1  # expired sessions are forgotten: bounded memory


def test_failures_and_refusals_are_logged_without_the_password(clock, caplog):
    t = SignInThrottle(session_free=1, server_free=100, clock=clock)
    with caplog.at_level(logging.WARNING, logger="infact.access.auth"):
        wrong(t, "abcdef0123456789")
        wait = wrong(t, "abcdef0123456789")
        t.refused("abcdef0123456789", wait)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 3
    assert (
        "wrong password (session abcdef01: 1 in a row; source unknown: 0; server: 1 in the last 15 min)" in messages[0]
    )
    assert "next attempt allowed in 2 s" in messages[1]
    assert "refused while throttled" in messages[2]


def test_concurrent_failures_are_all_counted(clock):
    t = SignInThrottle(server_free=10_000, session_free=10_000, source_free=10_000, clock=clock)
    threads = [threading.Thread(target=lambda: [wrong(t, "s", "x") for _ in range(200)]) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert t._sessions["s"].failures == 1600 and t._sources["x"].failures == 1600 and len(t._server) == 1600


# -- concurrency and sources (issue 19, point 10) ----------------------------------------------


def forty_at_once(t: SignInThrottle, source_of) -> list:
    """40 sessions send a wrong password at the same moment; each check is a real scrypt check."""
    from infact.access.auth import hash_password, verify_password

    stored = hash_password("the-right-one", n=2**10)
    barrier = threading.Barrier(40)
    checks, results, lock = [], [], threading.Lock()

    def check() -> bool:
        with lock:
            checks.append(1)
        time.sleep(0.05)  # the checks overlap, as half-second scrypt checks would
        return verify_password("wrong", stored)

    def session(i: int) -> None:
        barrier.wait()
        outcome = attempt(t, f"session-{i}", source_of(i), check)
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(40)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(results) == 40 and not any(r.ok for r in results)
    return [len(checks), sum(r.checked for r in results), sum(not r.checked and r.wait > 0 for r in results)]


def test_forty_parallel_wrong_passwords_from_one_source_get_only_the_free_checks(clock):
    # Before: the throttle was read before the check and written after it, so all 40 were checked.
    # 5 free failures: the 6th check is the one whose failure imposes the first wait.
    assert forty_at_once(SignInThrottle(clock=clock), lambda i: "203.0.113.7") == [6, 6, 34]


def test_forty_parallel_wrong_passwords_from_forty_sources_stop_at_the_server_limit(clock):
    t = SignInThrottle(clock=clock)
    assert forty_at_once(t, lambda i: f"198.51.100.{i}") == [21, 21, 19]
    assert t.wait_seconds("the-researcher", "192.0.2.1") == 2.0  # the server-wide wait, short


def test_without_a_known_source_the_server_limit_still_holds(clock):
    assert forty_at_once(SignInThrottle(clock=clock), lambda i: None) == [21, 21, 19]


def test_a_stranger_guessing_from_one_address_never_holds_up_the_researcher(clock):
    # Before per-source limits, the server-wide count let one stranger make the researcher wait up to a minute.
    t = SignInThrottle(clock=clock)
    checked = 0
    for i in range(3000):  # a fresh session per guess, for 15 minutes
        checked += guess(t, f"fresh-{i}", "203.0.113.7")
        assert t.wait_seconds("researcher", "192.0.2.1") == 0
        clock.now += 0.3
    assert checked <= 15, checked  # 6 at once, then 2, 4 … 256, 300 s apart
    assert attempt(t, "researcher", "192.0.2.1", lambda: True).ok


def test_a_correct_password_takes_its_reserved_attempt_back(clock):
    t = SignInThrottle(server_free=1, clock=clock)
    assert attempt(t, "a", "192.0.2.1", lambda: True).ok
    assert attempt(t, "b", "192.0.2.2", lambda: True).ok
    assert len(t._server) == 0 and not t._sessions and not t._sources
    wrong(t, "c", "192.0.2.3")
    assert t.wait_seconds("d", "192.0.2.4") == 0  # one failure: still within the free one
