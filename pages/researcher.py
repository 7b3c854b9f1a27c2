"""Researcher sign-in: a password checked against a hash in secrets, or OIDC (st.login)."""

import logging
import math
import secrets

import streamlit as st

from infact import ui
from infact.access.auth import needs_rehash, oidc_refusal, parse_hash, researcher_settings, verify_password
from infact.access.shared_throttle import shared_throttle
from infact.access.source import request_source
from infact.access.throttle import attempt

st.title("Researcher sign-in")
settings = researcher_settings(ui.secrets())
password_hash = settings.get("password_hash")
oidc = bool(settings["allowed_emails"]) and settings["oidc"]  # infact/deployment.py reads both
# Also here, not only in streamlit_app.py: a page served the legacy way (a fresh server) still sets or
# deletes the cookie (idempotent: once per session).
ui.keep_researcher_signed_in()

if ui.is_researcher():
    st.success("You are signed in.")
    if password_hash and st.session_state.get("researcher_by_password"):
        try:
            if needs_rehash(password_hash):
                st.info(
                    "Your password hash uses older, weaker scrypt parameters. Run "
                    "`python -m infact hash-password` and replace `password_hash` in your secrets."
                )
        except ValueError:
            pass
    st.page_link("pages/dashboard.py", label="Open the dashboard", icon="📊")
    st.page_link("pages/builder.py", label="Build a new study", icon="🛠️")
    if st.button("Sign out", key="sign_out", help="Signs out every browser signed in to this study."):
        # Revoked on the server too: a copied cookie no longer signs anyone in. If the store refuses the
        # record, this process still ends the sign-in and the next run says what is left (ui.sign_out).
        ui.sign_out()
        st.rerun()
    st.stop()

if not password_hash and not oidc:
    st.error("Researcher pages are disabled: no researcher password is configured.")
    st.markdown(
        "To enable them, run `python -m infact hash-password` and paste the two lines it prints "
        "into `.streamlit/secrets.toml` (locally) or the app's *Secrets* settings (Community Cloud):\n\n"
        '```toml\n[researcher]\npassword_hash = "scrypt$…"\n```\n\n'
        'Optionally add `allowed_emails = ["you@uni.edu"]` and an `[auth]` section to sign in with '
        "Streamlit's OIDC login instead."
    )
    st.stop()

if oidc:
    user = getattr(st, "user", None)
    if user is not None and getattr(user, "is_logged_in", False):
        refusal = oidc_refusal(user.to_dict(), settings)
        if refusal is None:
            st.session_state["researcher_signed_in"] = True
            st.rerun()
        if st.session_state.get("oidc_refusal_logged") != refusal:  # once, not on every rerun
            logging.getLogger("infact.access.auth").warning("researcher OIDC sign-in refused: %s", refusal)
            st.session_state["oidc_refusal_logged"] = refusal
        st.error(refusal)
    if st.button("Sign in with your institution account", key="oidc_login"):
        st.login()


def client_source() -> str | None:
    """Where this session's connection comes from, for the per-source limit: the address a trusted
    proxy reports (infact/access/source.py: X-Forwarded-For only with the proxy secret, or from
    loopback / INFACT_TRUSTED_PROXIES without one), else the socket's peer."""
    try:
        return request_source(st.context.headers, st.context.ip_address)
    except Exception:  # no browser connection (bare script runs)
        return None


def check_password(password: str) -> None:
    """Verify, unless this session, its source or the server is throttled after wrong passwords.
    The attempt is reserved before the check (infact/access/throttle.py): parallel tries cannot
    all get through."""
    session = st.session_state.setdefault("signin_session", secrets.token_hex(8))
    study = ui.get_study()
    # The counts are the store's: every replica on it shares one allowance (infact/access/shared_throttle.py).
    throttle = shared_throttle(ui.get_storage(study), study.id)
    result = attempt(throttle, session, client_source(), lambda: verify_password(password, password_hash))
    if result.ok:
        st.session_state["researcher_signed_in"] = True
        st.session_state["researcher_by_password"] = True
        st.rerun()
    if not result.checked:
        st.error(f"Too many wrong passwords. Try again in {math.ceil(result.wait)} seconds.")
        return
    st.error(
        "Wrong password." + (f" Wait {math.ceil(result.wait)} seconds before the next try." if result.wait > 0 else "")
    )


if password_hash:
    try:
        parse_hash(password_hash)
    except ValueError as exc:
        st.error(f"`[researcher] password_hash` in the secrets is not valid: {exc}.")
        st.stop()
    with st.form("sign_in"):
        password = st.text_input("Password", type="password", key="password")
        if st.form_submit_button("Sign in", type="primary", key="sign_in_submit"):
            check_password(password)
