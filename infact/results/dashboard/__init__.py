"""Dashboard data: what the researcher's refreshing dashboard shows, as plain data (no Streamlit).

May import everything below the interfaces; `infact.ui` and pages/ draw it.
"""
