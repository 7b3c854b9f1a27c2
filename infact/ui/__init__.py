"""The Streamlit helpers: the only Streamlit code outside streamlit_app.py and pages/.

Everything else in `infact/` is plain Python that the tests drive without Streamlit.
The helpers are one package of small modules, one per audience or protocol:

- resources.py         the study, the store, secrets, calm errors, the researcher's sign-in
- hooks.py             what a kind registered for the UI (its page, page top, dashboard section), resolved
- participant_page.py  arrival, resume, drawing the current step's page, submit
- outage.py            a store outage as participants and the dashboard see it (saving paused, answers safe)
- steps/               the participant's pages, one module per kind, named after it (steps/situation.py…)
- typed_text.py        the page script that counts pastes and keystrokes in typed fields (never their text)
- rankings.py          ranking and judge views for the dashboard (a degenerate fit named, not drawn)
- dashboard/           the researcher dashboard: a registry of sections, one module per section

A new kind adds its page as a module of steps/ (or anywhere), named in its registration (infact/kinds/).

The top layer: may import anything in `infact`.
"""

from infact.ui import hooks
from infact.ui.participant_page import participant_page, show_errors, submit
from infact.ui.rankings import show_judges, show_ranking
from infact.ui.resources import (
    fail_safely,
    get_storage,
    get_study,
    is_researcher,
    keep_researcher_signed_in,
    per_session,
    secrets,
    show_problems,
    sign_out,
    store_target,
)

__all__ = [
    "hooks",
    "fail_safely",
    "get_storage",
    "get_study",
    "is_researcher",
    "keep_researcher_signed_in",
    "participant_page",
    "per_session",
    "secrets",
    "show_errors",
    "show_judges",
    "show_problems",
    "show_ranking",
    "sign_out",
    "store_target",
    "submit",
]
