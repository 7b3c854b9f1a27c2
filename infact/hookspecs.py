"""Every way into INFACT a kind has, one signature and docstring each (as Datasette's `hookspecs.py`).

A *kind* is registered once, in its own module (infact/kinds/<name>.py, or a test's one file):

    register(Kind(name, step=<StepKind>, results=<KindResults>, page="module.function", page_top=…, dashboard=…))

Its `step` (infact/participation/steps/registry.py `StepKind`) implements the *step* hooks below as methods, its
`results` (infact/results/kinds.py `KindResults`) holds the *results* hooks as fields, and `page`, `page_top`
and `dashboard` name the *UI* hooks as dotted paths that only infact/ui/hooks.py resolves. A hook left out takes
its default (a one-page step; a table of the step's rows; a `describe` analysis; the generic dashboard section).
This module is documentation that tests hold to the code (tests/kinds/test_hookspecs.py): nothing calls it.
"""

from __future__ import annotations

from typing import Any

# `flow` is the participant's run, `st` their state, `step` one page of it, `study` the loaded study, `cfg` its
# config, `bot` a bot participant, `table` a kind's DataFrame, `options` analyze's options, `view` the dashboard's.


# ---------------------------------------------------------------- step hooks: StepKind methods


def plan(flow, st) -> list | None:
    """This participant's steps of the kind: [] when the study has none, None while not known yet (situations
    before the assignment is stored). Default: one page."""


def check(flow, step, answers) -> Any:
    """Validate a submitted answer (labels, as the page sends them): `Checked.refuse(message…)` or
    `Checked(fields=…)`, the fields to store (`attention_passed = False` screens out when asked)."""


def store(flow, st, step, fields) -> None:
    """Store a checked answer. Default: one record named after the step."""


def bot_answers(study, step, bot) -> dict:
    """What a bot participant submits on `step`: the same shape and labels the page submits."""


def simulated_answers(study, step, sim) -> dict | None:
    """What an LLM playing a participant submits on `step` (one `sim.answer(page, questions)` call); None: answered
    as a bot answers it."""


def bot_time(step) -> float:
    """The seconds an attentive bot spends on `step`. Default: the kind's `bot_seconds`."""


def scale(cfg) -> Any:
    """The labels its table turns stored points back into; None when its answers are text."""


def rows(record, scale) -> list[dict]:
    """Rows of its table for one stored record (the participant column is added by the caller)."""


# ---------------------------------------------------------------- results hooks: KindResults fields


def build(answers) -> Any:
    """Its table from one study's records (`Answers`): a DataFrame, conformed to the declared schema afterwards.
    Default: every step's `rows`, in the declared column order."""


def analyze(table, options, source) -> dict:
    """Its statistics for `analyze` and the dashboard. Default: `describe` (counts any section can show)."""


def report(result, fmt, table) -> str:
    """Its analysis as a report: Markdown (`fmt="md"`) or a standalone HTML page (`"html"`); `table` the analysed
    rows (a ratings report's charts) or None. `Analysis.render` calls it, `analyze` and the dashboard show it.
    Default: the counts of `describe` (infact/results/reports/analyses.py)."""


def extra_files(table, tables) -> dict[str, bytes]:
    """More export files made from its table ({name: bytes}: ratings_wide.csv, ledger.csv…), each declared in
    `extra_tables` (tables) or `extra_descriptions` (other files)."""


def places(table) -> Any:
    """Where its rows showed the systems, one place per system shown, for the leaderboard ledger
    (infact/results/ranking/ledger.py)."""


def summary(table) -> dict:
    """The few numbers any dashboard section can show without knowing the kind (rows, participants, per system)."""


def prepare(table, include_flagged, cfg) -> list:
    """Its table as a judge comparison takes it: [(answers shaped as its `compared_as`, scale points or None)],
    flagged participants left out unless asked (`cfg` is None when only a file is at hand)."""


def judge_features(prepared) -> Any:
    """The response features its own table carries (pairwise.csv's lengths), for a judge's length bias when no
    responses file is given; None when it has none."""


# ---------------------------------------------------------------- UI hooks: dotted paths in the Kind


def page(flow, progress, step) -> None:
    """Draw the kind's page (infact/ui/steps/<name>.py) and submit with `participant_page.submit`."""


def page_top(flow, progress, step) -> str:
    """The HTML at the top of its page (progress, dialog…), drawn in the page's one head element."""


def dashboard(view, kind) -> None:
    """Draw the dashboard section that shows its answers. A registered section's function (Results) shows it
    there; any other function is a section of its own, titled after the kind. Default: the generic section."""


STEP_HOOKS = ("plan", "check", "store", "bot_answers", "simulated_answers", "bot_time", "scale", "rows")
RESULTS_HOOKS = ("build", "analyze", "report", "extra_files", "places", "summary", "prepare", "judge_features")
UI_HOOKS = ("page", "page_top", "dashboard")
