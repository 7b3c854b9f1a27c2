"""Password hashes (scrypt at OWASP parameters, old hashes still verify) and the OIDC rules."""

from __future__ import annotations

import threading

import pytest

from infact.access import auth
from infact.access.auth import email_allowed, hash_password, needs_rehash, oidc_refusal, parse_hash, verify_password

# Printed by the previous `hash-password` (N=2^14) for "old-researcher-pw": such hashes are
# already pasted into researchers' secrets and must keep working.
OLD_HASH = (
    "scrypt$16384$8$1$00112233445566778899aabbccddeeff$5450b8bf12d433583cdd615ea925cbd332f2ffb68837a31f7a96496049ab6af7"
)


@pytest.fixture(scope="module")
def owasp_hash() -> str:
    return hash_password("correct horse battery")


def test_new_hashes_use_owasp_scrypt_parameters(owasp_hash):
    h = parse_hash(owasp_hash)
    assert (h.n, h.r, h.p) == (2**17, 8, 1)
    assert len(h.salt) == 16 and len(h.digest) == 32
    assert not needs_rehash(owasp_hash)


@pytest.mark.slow  # 1.8 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_right_password_verifies_wrong_one_does_not(owasp_hash):
    assert verify_password("correct horse battery", owasp_hash)
    assert not verify_password("correct horse batterY", owasp_hash)
    assert not verify_password("", owasp_hash)


def test_two_hashes_of_one_password_differ_by_salt():
    a, b = hash_password("same", n=2**10), hash_password("same", n=2**10)
    assert a != b and verify_password("same", a) and verify_password("same", b)


def test_hash_made_with_old_parameters_still_verifies_and_asks_for_rehash():
    assert verify_password("old-researcher-pw", OLD_HASH)
    assert not verify_password("old-researcher-pW", OLD_HASH)
    assert needs_rehash(OLD_HASH)


@pytest.mark.parametrize(
    "stored, problem",
    [
        ("", "expected scrypt$N$r$p"),
        ("bcrypt$2b$12$abc", "expected scrypt$N$r$p"),
        ("scrypt$16384$8$1$zz$00", "hexadecimal"),
        ("scrypt$1000$8$1$00ff$" + "00" * 32, "unsupported scrypt parameters"),  # N not a power of 2
        ("scrypt$1073741824$8$1$00ff$" + "00" * 32, "unsupported scrypt parameters"),  # 1 TiB of memory
        ("scrypt$16384$8$0$00ff$" + "00" * 32, "unsupported scrypt parameters"),
        ("scrypt$16384$8$1$$" + "00" * 32, "too short"),
    ],
)
def test_damaged_hash_is_explained_and_never_verifies(stored, problem):
    with pytest.raises(ValueError, match=problem.replace("$", r"\$")):
        parse_hash(stored)
    assert not verify_password("anything", stored)


def test_at_most_two_checks_hold_scrypt_memory_at_once(monkeypatch):
    running, peak, lock = 0, 0, threading.Lock()
    real = auth.hashlib.scrypt

    def counting(*args, **kwargs):
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                running -= 1

    monkeypatch.setattr(auth.hashlib, "scrypt", counting)
    stored = hash_password("pw", n=2**12)
    threads = [threading.Thread(target=verify_password, args=("pw", stored)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak <= 2


SETTINGS = {"allowed_emails": ["Ada@Uni.edu"]}


def test_oidc_requires_an_allowed_and_verified_email():
    assert oidc_refusal({"email": "ada@uni.edu", "email_verified": True}, SETTINGS) is None
    assert oidc_refusal({"email": "ada@uni.edu", "email_verified": "true"}, SETTINGS) is None


@pytest.mark.parametrize(
    "claims",
    [
        {"email": "ada@uni.edu"},  # provider sent no email_verified
        {"email": "ada@uni.edu", "email_verified": False},
        {"email": "ada@uni.edu", "email_verified": "false"},
        {"email": "ada@uni.edu", "email_verified": None},
    ],
)
def test_oidc_refuses_an_unverified_email(claims):
    refusal = oidc_refusal(claims, SETTINGS)
    assert refusal and "not verified" in refusal and "ada@uni.edu" in refusal


def test_oidc_refuses_an_email_not_on_the_allow_list_even_if_verified():
    assert "allow-list" in oidc_refusal({"email": "eve@uni.edu", "email_verified": True}, SETTINGS)
    assert "allow-list" in oidc_refusal({"email_verified": True}, SETTINGS)
    assert email_allowed(" ADA@uni.edu ", SETTINGS) and not email_allowed(None, SETTINGS)
