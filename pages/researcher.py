"""Researcher sign-in: a password checked against a hash in secrets, or OIDC (st.login)."""

import streamlit as st

from infact import ui
from infact.auth import email_allowed, researcher_settings, verify_password

st.title("Researcher sign-in")
settings = researcher_settings(ui.secrets())
password_hash = settings.get("password_hash")
oidc = bool(settings.get("allowed_emails")) and "auth" in ui.secrets()

if ui.is_researcher():
    st.success("You are signed in.")
    st.page_link("pages/dashboard.py", label="Open the dashboard", icon="📊")
    if st.button("Sign out", key="sign_out"):
        st.session_state.pop("researcher_signed_in", None)
        st.rerun()
    st.stop()

if not password_hash and not oidc:
    st.error("Researcher pages are disabled: no researcher password is configured.")
    st.markdown(
        "To enable them, run `python -m infact hash-password` and paste the two lines it prints "
        "into `.streamlit/secrets.toml` (locally) or the app's *Secrets* settings (Community Cloud):\n\n"
        "```toml\n[researcher]\npassword_hash = \"scrypt$…\"\n```\n\n"
        "Optionally add `allowed_emails = [\"you@uni.edu\"]` and an `[auth]` section to sign in with "
        "Streamlit's OIDC login instead.")
    st.stop()

if oidc:
    user = getattr(st, "user", None)
    if user is not None and getattr(user, "is_logged_in", False):
        if email_allowed(getattr(user, "email", None), settings):
            st.session_state["researcher_signed_in"] = True
            st.rerun()
        st.error("This account is not on the researcher allow-list.")
    if st.button("Sign in with your institution account", key="oidc_login"):
        st.login()

if password_hash:
    with st.form("sign_in"):
        password = st.text_input("Password", type="password", key="password")
        if st.form_submit_button("Sign in", type="primary", key="sign_in_submit"):
            if verify_password(password, password_hash):
                st.session_state["researcher_signed_in"] = True
                st.rerun()
            st.error("Wrong password.")
