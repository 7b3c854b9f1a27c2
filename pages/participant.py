"""The participant's page: one step per screen, in the order of the registered kinds
(infact/kinds/), each drawn by its page in infact/ui/steps/.

The participant token lives in the URL (`?p=…`). The progress is read back from
storage when a session starts (a reload resumes exactly where the participant was)
and after every submit; reruns in between use the session's copy (infact/state.py).
"""

from infact import ui

# st.rerun()/st.stop() raise BaseException subclasses, so they pass through.
try:
    ui.participant_page()
except Exception as exc:
    ui.fail_safely(exc)
