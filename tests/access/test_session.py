"""The researcher's sign-in token: signed, expiring, bound to the password hash and revoked by a sign-out."""

import threading

from infact.access import session as rs
from infact.stores.memory import MemoryStorage

SECRETS = {"researcher": {"password_hash": "scrypt$16384$8$1$00$11"}}


def test_a_fresh_token_is_valid_until_it_expires():
    key = rs.signing_key(SECRETS)
    t = rs.token(key, now=1000)
    assert rs.valid(t, key, now=1001)
    assert rs.valid(t, key, now=1000 + rs.LIFETIME_SECONDS - 1)
    assert not rs.valid(t, key, now=1000 + rs.LIFETIME_SECONDS)


def test_tokens_cannot_be_forged_or_extended():
    key = rs.signing_key(SECRETS)
    version, expires, generation, mac = rs.token(key, now=1000).split(".")
    assert not rs.valid(f"{version}.{int(expires) + 3600}.{generation}.{mac}", key, now=1001)  # later expiry
    assert not rs.valid(f"{version}.{expires}.{generation}.{'0' * len(mac)}", key, now=1001)
    assert not rs.valid(f"{version}.{expires}.1.{mac}", key, now=1001, generation=1)  # a later generation
    far = rs.token(key, now=1000, lifetime=10 * rs.LIFETIME_SECONDS)
    assert not rs.valid(far, key, now=1001)  # longer than allowed
    for junk in ("", "v1", "v1.x.y", "v2.1.2", "v2.1.x.y", f"v1.{expires}.{mac}", None):
        assert not rs.valid(junk, key, now=1001)


def test_changing_the_password_signs_everyone_out():
    old = rs.signing_key(SECRETS)
    new = rs.signing_key({"researcher": {"password_hash": "scrypt$16384$8$1$00$22"}})
    assert not rs.valid(rs.token(old, now=1000), new, now=1001)


def test_no_key_without_a_configured_sign_in():
    assert rs.signing_key({}) is None
    assert not rs.valid(rs.token(b"x", now=1000), None, now=1001)
    assert rs.signing_key({"auth": {"cookie_secret": "s3cret"}}) is not None  # OIDC sign-in


def test_cookie_script_sets_and_deletes():
    script = rs.cookie_script("v1.123.abc")
    assert "infact_researcher=v1.123.abc; path=/;" in script and "SameSite=Strict" in script and "Secure" in script
    assert "max-age=0" in rs.cookie_script(None)


def test_a_sign_out_revokes_every_token_issued_before_it(tmp_path):
    from infact.storage import TinyDBStorage

    key = rs.signing_key(SECRETS)
    for storage in (MemoryStorage(), TinyDBStorage(tmp_path / "db")):
        assert rs.generation(storage, "demo") == 0
        before = rs.token(key, generation=rs.generation(storage, "demo"))
        assert rs.valid(before, key, generation=rs.generation(storage, "demo"))
        assert rs.sign_out(storage, "demo") == 1
        assert not rs.valid(before, key, generation=rs.generation(storage, "demo"))  # a replayed cookie
        after = rs.token(key, generation=1)
        assert rs.valid(after, key, generation=rs.generation(storage, "demo"))  # signing in again works
        assert rs.generation(storage, "other-study") == 0  # per deployment (study)
        # reopened, as another app process would: the revocation is in the store, not in memory
        if isinstance(storage, TinyDBStorage):
            storage.close()
            assert not rs.valid(before, key, generation=rs.generation(TinyDBStorage(tmp_path / "db"), "demo"))


def test_two_sign_outs_at_once_both_revoke():
    storage = MemoryStorage()
    key = rs.signing_key(SECRETS)
    old = rs.token(key, generation=0)
    threads = [threading.Thread(target=rs.sign_out, args=(storage, "demo")) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    current = rs.generation(storage, "demo")
    assert 1 <= current <= 8 and not rs.valid(old, key, generation=current)


def test_local_sign_outs_end_earlier_sign_ins_only():
    local = rs.LocalSignOuts()
    assert not local.ends(1_000.0) and not local.ends(None)
    local.record(at=2_000.0)
    assert local.ends(1_999.5) and local.ends(2_000.0) and local.ends(None)  # unknown: refused, fail safe
    assert not local.ends(2_000.5)
    token = rs.token(b"k" * 32, now=1_500.0)
    assert rs.issued_at(token) == 1_500 and local.ends(rs.issued_at(token))
    assert rs.issued_at("garbage") is None
