"""Researcher dashboard: the funnel, the running study, results, statistics and exports.

Reachable at /dashboard; refuses anyone not signed in (a reload keeps the sign-in:
infact/access/session.py). This file only routes: each section is a module in infact/ui/dashboard/sections/,
drawn from one `View` (infact/ui/dashboard/view.py) of plain core functions. The refreshing part reruns every
5 seconds and reads only new records; only the section the researcher looks at is computed.
"""

import streamlit as st

from infact import ui
from infact.errors import InfactError
from infact.ui.dashboard import page, sections  # noqa: F401  (importing `sections` registers them)

# Normally decided by streamlit_app.py before anything is drawn; a fresh server serves this file
# directly (legacy pages/ routing) until a session has run the entry point.
st.set_page_config(page_title="INFACT dashboard", page_icon="📊", layout="wide")

if not ui.is_researcher():
    st.error("Please sign in first.")
    st.markdown("[Researcher sign-in](/researcher)")  # a plain link works in every routing mode
    st.stop()

try:
    study = ui.get_study()
except InfactError as exc:
    ui.show_problems(exc, "The study configuration has problems:")
    st.stop()

storage = ui.get_storage(study)
target, source = ui.store_target(study)
page.header(study, storage, source)
choice = page.controls(study)  # include flagged, criterion, section
st.fragment(run_every=5)(page.refreshing)(study, storage, target, *choice)
page.offline(study, storage, target, *choice)
