"""INFACT entry point: `streamlit run streamlit_app.py`.

Participants only ever see the study page. The researcher sign-in page is reachable
at /researcher, the dashboard at /dashboard and the study builder at /builder. The dashboard is always registered,
so a reload of /dashboard runs the dashboard (never the participant page, which
would store a new arrival); the page itself refuses anyone not signed in. A sign-in
survives the reload through a signed cookie (infact/access/session.py). Page
files are named after their URL paths: on a freshly started server Streamlit serves
`pages/` the legacy way until a session has run this script, and /researcher and
/dashboard then still reach the same (self-guarding) scripts.
"""

import streamlit as st

from infact import ui

ui.hooks.load_all()  # the kinds (infact/kinds/): each page and dashboard section is found through them
# The pages are made once per session: st.Page resolves and checks its file on every call.
PAGES = ui.per_session(
    "pages",
    lambda: {
        "study": st.Page("pages/participant.py", title="Study", default=True),
        "researcher": st.Page("pages/researcher.py", title="Researcher sign-in", url_path="researcher"),
        "dashboard": st.Page("pages/dashboard.py", title="Dashboard", url_path="dashboard"),
        "builder": st.Page("pages/builder.py", title="Study builder", url_path="builder"),
    },
)
page = st.navigation(list(PAGES.values()), position="hidden")
# The layout is decided here, before anything is drawn (st.Page has no layout of its own): a page
# that sets it itself is painted in the previous layout first and widens on a later rerun.
if page.url_path == "dashboard":
    st.set_page_config(page_title="INFACT dashboard", page_icon="📊", layout="wide")
elif page.url_path == "builder":
    st.set_page_config(page_title="INFACT study builder", page_icon="🛠️", layout="wide")
else:
    st.set_page_config(page_title="INFACT study", page_icon="💬", layout="centered")
ui.keep_researcher_signed_in()
page.run()
ui.resources.freeze_warm_objects()  # once per process, after its first page
