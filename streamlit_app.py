"""INFACT entry point: `streamlit run streamlit_app.py`.

Participants only ever see the study page. The researcher sign-in page is reachable
at /researcher; the dashboard is registered only after signing in (and checks again
inside), so a participant cannot open it by URL. Page files are named after their URL
paths: on a freshly started server Streamlit serves `pages/` the legacy way until a
session has run this script, and /researcher and /dashboard then still reach the
same (self-guarding) scripts.
"""

import streamlit as st

from infact import ui

st.set_page_config(page_title="INFACT study", page_icon="💬", layout="centered")

pages = [
    st.Page("pages/participant.py", title="Study", default=True),
    st.Page("pages/researcher.py", title="Researcher sign-in", url_path="researcher"),
]
if ui.is_researcher():
    pages.append(st.Page("pages/dashboard.py", title="Dashboard", url_path="dashboard"))
st.navigation(pages, position="hidden").run()
