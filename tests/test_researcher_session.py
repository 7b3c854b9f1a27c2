"""The researcher's sign-in token: signed, expiring, bound to the password hash."""

from infact.access import session as rs

SECRETS = {"researcher": {"password_hash": "scrypt$16384$8$1$00$11"}}


def test_a_fresh_token_is_valid_until_it_expires():
    key = rs.signing_key(SECRETS)
    t = rs.token(key, now=1000)
    assert rs.valid(t, key, now=1001)
    assert rs.valid(t, key, now=1000 + rs.LIFETIME_SECONDS - 1)
    assert not rs.valid(t, key, now=1000 + rs.LIFETIME_SECONDS)


def test_tokens_cannot_be_forged_or_extended():
    key = rs.signing_key(SECRETS)
    version, expires, mac = rs.token(key, now=1000).split(".")
    assert not rs.valid(f"{version}.{int(expires) + 3600}.{mac}", key, now=1001)    # later expiry, old MAC
    assert not rs.valid(f"{version}.{expires}.{'0' * len(mac)}", key, now=1001)
    far = rs.token(key, now=1000, lifetime=10 * rs.LIFETIME_SECONDS)
    assert not rs.valid(far, key, now=1001)                                         # longer than allowed
    for junk in ("", "v1", "v1.x.y", "v2.1.2", None):
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
