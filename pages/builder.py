"""The study builder (/builder): a new study from a table, without writing TOML. Researchers only."""

import streamlit as st

from infact import ui
from infact.ui.builder.page import builder_page

st.set_page_config(page_title="INFACT study builder", page_icon="🛠️", layout="wide")

if not ui.is_researcher():
    st.error("Please sign in first.")
    st.markdown("[Researcher sign-in](/researcher)")
    st.stop()

builder_page()
