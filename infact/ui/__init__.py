"""The Streamlit helpers: the only Streamlit code outside streamlit_app.py and pages/.

Everything else in `infact/` is plain Python that the tests drive without Streamlit.
The helpers are one package of small modules, one per audience or protocol:

- resources.py         the study, the store, secrets, calm errors, the researcher's sign-in
- participant_page.py  arrival, resume, the renderer registry (`@renderer(kind)`), submit
- outage.py            a store outage as participants and the dashboard see it (saving paused, answers safe)
- rating_steps.py      consent, rated situations, questionnaire, demographics, done
- comparison_steps.py  pairwise, onboarding, best–worst
- comprehension_step.py the comprehension check after consent (two attempts)
- conversation_step.py one whole conversation annotated turn by turn and overall
- live_step.py         live chats with the systems under test
- typed_text.py        the page script that counts pastes and keystrokes in typed fields (never their text)
- rankings.py          ranking and judge views for the dashboard (a degenerate fit named, not drawn)
- dashboard/           the researcher dashboard: a registry of sections, one module per section

A new step kind adds one renderer module here, imported below, beside its core module in
infact/participation/steps/.

The top layer: may import anything in `infact`.
"""

from infact.ui import (  # noqa: F401  (they register their renderers)
    comparison_steps,
    comprehension_step,
    conversation_step,
    live_step,
    rating_steps,
)
from infact.ui.participant_page import RENDERERS, participant_page, renderer, show_errors, submit
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
    "RENDERERS",
    "fail_safely",
    "get_storage",
    "get_study",
    "is_researcher",
    "keep_researcher_signed_in",
    "participant_page",
    "per_session",
    "renderer",
    "secrets",
    "show_errors",
    "show_judges",
    "show_problems",
    "show_ranking",
    "sign_out",
    "store_target",
    "submit",
]
