"""The researcher sign-in page under AppTest: throttled wrong passwords, old hashes, bad hashes."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from infact.access import shared_throttle
from infact.access import throttle as signin_throttle
from infact.access.auth import hash_password

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "page-test-researcher-pw"
FAST_HASH = hash_password(PASSWORD, n=2**10)  # the page reads N from the hash; tests stay fast


class Clock:
    now = 5000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch, tmp_path) -> Clock:
    """A fresh server-wide throttle on a fake clock, so waits pass without sleeping."""
    clock = Clock()
    monkeypatch.setattr(signin_throttle, "_SERVER", signin_throttle.SignInThrottle(clock=clock))
    # The page's throttle keeps its counts in the store (infact/access/shared_throttle.py): a fresh one per test,
    # on the same fake clock.
    monkeypatch.setattr(shared_throttle, "CLOCK", clock)
    monkeypatch.setattr(shared_throttle, "_SHARED", {})
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(REPO / "data" / "demo"))
    return clock


def sign_in_page(password_hash: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "streamlit_app.py"), default_timeout=60)
    at.secrets["researcher"] = {"password_hash": password_hash}
    at.run()
    at.switch_page("pages/researcher.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def submit(at: AppTest, password: str) -> list[str]:
    at.text_input(key="password").input(password)
    at.button(key="sign_in_submit").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return [e.value for e in at.error]


def signed_in(at: AppTest) -> bool:
    return any("You are signed in." in s.value for s in at.success)


def test_repeated_wrong_passwords_lock_the_session_even_for_the_right_one(clock):
    at = sign_in_page(FAST_HASH)
    for _ in range(3):
        assert submit(at, "wrong") == ["Wrong password."]
    assert submit(at, "wrong") == ["Wrong password. Wait 2 seconds before the next try."]
    # While the wait runs even the right password is refused unchecked.
    assert submit(at, PASSWORD) == ["Too many wrong passwords. Try again in 2 seconds."]
    assert not signed_in(at)
    clock.now += 2
    assert submit(at, PASSWORD) == []
    assert signed_in(at)


@pytest.mark.slow  # 1.9 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_guesser_with_many_sessions_locks_every_session_briefly(clock, monkeypatch):
    monkeypatch.setattr(signin_throttle, "_SERVER", signin_throttle.SignInThrottle(server_free=2, clock=clock))
    monkeypatch.setattr(shared_throttle, "SETTINGS", {"server_free": 2})
    for _ in range(3):  # a fresh session per guess: 2 free on the server
        errors = submit(sign_in_page(FAST_HASH), "wrong")
        assert errors[0].startswith("Wrong password.")
    researcher = sign_in_page(FAST_HASH)
    assert submit(researcher, PASSWORD) == ["Too many wrong passwords. Try again in 2 seconds."]
    clock.now += 2
    assert submit(researcher, PASSWORD) == [] and signed_in(researcher)


def test_old_hash_signs_in_and_suggests_a_new_one(clock):
    at = sign_in_page(hash_password(PASSWORD, n=2**14))
    assert submit(at, PASSWORD) == []
    assert signed_in(at)
    assert any("older, weaker scrypt parameters" in i.value for i in at.info)


@pytest.mark.slow  # 1.6 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_current_hash_signs_in_without_a_rehash_note(clock):
    at = sign_in_page(hash_password(PASSWORD))
    assert submit(at, PASSWORD) == [] and signed_in(at)
    assert not at.info


def test_damaged_hash_in_secrets_is_explained_instead_of_wrong_password(clock):
    at = sign_in_page("scrypt$16384$8$1$nothex$00")
    errors = [e.value for e in at.error]
    assert any("password_hash" in e and "not valid" in e and "hexadecimal" in e for e in errors), errors
    assert not at.text_input
