"""The participant's page: walks infact.participation.flow's step sequence, one step per screen.

The participant token lives in the URL (`?p=…`); everything else is read back from
storage on each run, so a reload resumes exactly where the participant was. The
step renderers live in infact/ui.py.
"""

from infact import ui

# st.rerun()/st.stop() raise BaseException subclasses, so they pass through.
try:
    ui.participant_page()
except Exception as exc:  # noqa: BLE001 — participants never see a traceback
    ui.fail_safely(exc)
