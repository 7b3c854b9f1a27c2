"""Live chats with the systems under test (docs/live.md): after the situations, before the questionnaire.

Its records (chats, rubric ratings, arena votes) are shown by the dashboard's Live chats section; the rubric
ratings join ratings.csv and the votes the leaderboard ledger through the situation and pairwise kinds' tables.
"""

from infact.participation.steps import Kind
from infact.participation.steps.live import Live

KIND = Kind(
    "live",
    Live(),
    page="infact.ui.steps.live.page",
    dashboard="infact.ui.dashboard.sections.live_chats.show_live_chats",
)
