"""Sign-out revokes the researcher's cookie on the server (AppTest): a copy of the cookie taken
before *Sign out* no longer opens the dashboard on a new connection, and a dashboard open in
another session is signed out at its next generation check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from infact.access import session as researcher_session
from infact.access.auth import hash_password
from infact.ui import resources

REPO = Path(__file__).resolve().parents[2]
APP, DASHBOARD = REPO / "streamlit_app.py", REPO / "pages" / "dashboard.py"
PASSWORD = "signout-test-pw"
HASH = hash_password(PASSWORD, n=2**10)


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.setenv("INFACT_DB", str(tmp_path / "db"))
    monkeypatch.setenv("INFACT_STUDY", str(REPO / "data" / "demo"))


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def signed_in_browser() -> tuple[AppTest, str]:
    """Sign in with the password; returns the session and the cookie value its page script sets."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.secrets["researcher"] = {"password_hash": HASH}
    ok(at.run())
    at.switch_page("pages/researcher.py")
    ok(at.run())
    at.text_input(key="password").input(PASSWORD)
    at.button(key="sign_in_submit").click()
    ok(at.run())
    assert any("You are signed in." in s.value for s in at.success)
    cookies = [
        m.group(1) for h in at.get("html") for m in re.finditer(r"infact_researcher=([A-Za-z0-9.]+)", h.proto.body)
    ]
    assert len(cookies) == 1, cookies
    return at, cookies[0]


def replay(monkeypatch, cookie: str) -> AppTest:
    """A new connection that brings the captured cookie (st.context.cookies is what the browser sent)."""
    with monkeypatch.context() as m:
        m.setattr("streamlit.context", type("C", (), {"cookies": {researcher_session.COOKIE: cookie}})())
        at = AppTest.from_file(str(DASHBOARD), default_timeout=90)
        at.secrets["researcher"] = {"password_hash": HASH}
        return ok(at.run())


def refused(at: AppTest) -> bool:
    return [e.value for e in at.error] == ["Please sign in first."] and not at.metric


@pytest.mark.slow  # 2.4 s on a quiet 2-core machine: out of the fast subset (docs/testing.md)
def test_a_cookie_replayed_after_sign_out_is_refused(env, monkeypatch):
    browser, cookie = signed_in_browser()
    assert not refused(replay(monkeypatch, cookie))  # before sign-out the cookie opens the dashboard
    browser.button(key="sign_out").click()
    ok(browser.run())
    assert any("max-age=0" in h.proto.body for h in browser.get("html"))  # the browser is told to forget it
    assert refused(replay(monkeypatch, cookie))  # and the server refuses a copy that was kept
    # Signing in again issues a cookie of the new generation, which works.
    again, fresh = signed_in_browser()
    assert fresh != cookie and not refused(replay(monkeypatch, fresh))


def test_a_dashboard_open_elsewhere_is_signed_out_at_its_next_check(env, monkeypatch):
    browser, cookie = signed_in_browser()
    with monkeypatch.context() as m:
        m.setattr("streamlit.context", type("C", (), {"cookies": {researcher_session.COOKIE: cookie}})())
        other = AppTest.from_file(str(DASHBOARD), default_timeout=90)
        other.secrets["researcher"] = {"password_hash": HASH}
        assert not refused(ok(other.run()))
        browser.button(key="sign_out").click()
        ok(browser.run())
        monkeypatch.setattr(resources, "GENERATION_CHECK_SECONDS", 0)
        assert refused(ok(other.run()))


@pytest.fixture
def unwritable(monkeypatch):
    """The store refuses every write from now on, as a read-only disk does; this process's own
    record of unrecorded sign-outs starts empty and is dropped after the test."""
    import errno

    from infact.storage import TinyDBStorage

    monkeypatch.setattr(researcher_session, "LOCAL_SIGN_OUTS", researcher_session.LocalSignOuts())

    def refuse(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    def turn_on():
        monkeypatch.setattr(TinyDBStorage, "append", refuse)
        monkeypatch.setattr(TinyDBStorage, "append_many", refuse, raising=False)

    return turn_on


def test_sign_out_on_an_unwritable_store_fails_safe(env, monkeypatch, unwritable):
    browser, cookie = signed_in_browser()
    unwritable()
    browser.button(key="sign_out").click()
    ok(browser.run())  # no redacted Streamlit error
    assert not any("You are signed in." in s.value for s in browser.success)
    (shown,) = [e.value for e in browser.error]  # said once and plainly, with what is left
    assert "could not be recorded" in shown and "another app process" in shown
    assert any("max-age=0" in h.proto.body for h in browser.get("html"))  # the cookie is deleted anyway
    assert refused(replay(monkeypatch, cookie))  # and this process refuses a copy that was kept
    # The sign-in form is back, the notice stays on the next run, and the session is not signed in.
    ok(browser.run())
    assert browser.text_input(key="password") is not None and [e.value for e in browser.error] == [shown]


def test_an_unrecorded_sign_out_ends_the_dashboards_open_in_this_process_at_once(env, monkeypatch, unwritable):
    browser, cookie = signed_in_browser()
    with monkeypatch.context() as m:
        m.setattr("streamlit.context", type("C", (), {"cookies": {researcher_session.COOKIE: cookie}})())
        other = AppTest.from_file(str(DASHBOARD), default_timeout=90)
        other.secrets["researcher"] = {"password_hash": HASH}
        assert not refused(ok(other.run()))
        unwritable()
        browser.button(key="sign_out").click()
        ok(browser.run())
        assert not other.run().exception  # no generation check wait: the sign-out was here
        assert "Please sign in first." in [e.value for e in other.error]
