"""A pairwise vote on two responses (Chatbot Arena, ACUTE-Eval at the response level): pairwise.csv, ranked with
Bradley–Terry, its places in the leaderboard ledger, compared with a judge's votes. pairwise_dialog (two whole
conversations) fills the same table; best_worst shares the ledger's helpers below.
"""

from infact.participation.steps import Kind
from infact.participation.steps.pairwise import PAIRWISE, Pairwise
from infact.results.kinds import Answers, KindResults, preference_options
from infact.results.tables.schemas import LEDGER


def votes(table: str, *steps: str):
    """build: the rows of `steps`' records as the vote table `table`."""

    def build(answers: Answers):
        from infact.results.tables.votes import vote_frame

        return vote_frame(table, [row for step in steps for row in answers.rows(step)])

    return build


def ledger_file(name: str):
    def extra(table, tables) -> dict[str, bytes]:
        """ledger.csv: the leaderboard ledger of every answer that showed systems, `table` as kind `name`'s and the
        other kinds' with places as `tables` holds them (infact/results/ranking/ledger.py): a study with votes and
        best–worst choices gets both in one file, apart by `table`, whichever kind writes it."""
        from infact.results.ranking.ledger import ledger_frames

        placed = tables.placed(name, table)
        frame = ledger_frames(placed, systems=tables.systems or None, design=getattr(tables, "design", None))
        return {"ledger.csv": LEDGER.csv_bytes(frame)}

    return extra


def places_of(name: str):
    """A kind's places (infact/results/ranking/ledger.py), imported when called, as the analyses are."""

    def places(table):
        from infact.results.ranking import ledger

        return getattr(ledger, name)(table)

    return places


def analyze(table, options, source: str) -> dict:
    from infact.results.ranking import analysis as preference_analysis
    from infact.results.ranking.integrity import DEFAULT_MIN_SECONDS

    opts = preference_options(options, source)
    seconds = options.min_vote_seconds  # else the study's minimum reading time (analyze --study), else the default
    return preference_analysis.analyze_votes(
        table,
        covariates=options.covariates,
        reweight=options.reweight,
        repeat_cap=options.repeat_cap,
        min_seconds=options.extra.get("min_vote_seconds", DEFAULT_MIN_SECONDS) if seconds is None else seconds,
        openings=options.extra.get("openings"),
        anomaly_quantile=options.anomaly_quantile,
        anomaly_max_participants=options.anomaly_max_participants or None,
        design=options.extra.get("design"),  # the study's systems and pair scheduling (analyze --study)
        **opts,
    )


def report(result: dict, fmt: str, table) -> str:
    """The ranking with its intervals, integrity checks and ledger, the judges' alignment (votes and choices)."""
    from infact.results.reports.analyses import preferences_report

    return preferences_report(result, fmt, table)


def prepare(table, include_flagged: bool, cfg) -> list:
    from infact.results.tables.comparisons import prepare_pairwise

    return [(prepare_pairwise(table, include_flagged=include_flagged), None)]


def judge_features(votes):
    from infact.results.tables.comparisons import features_from_votes

    return features_from_votes(votes)


RESULTS = KindResults(
    PAIRWISE,
    ("pairwise", "pairwise_dialog"),
    build=votes("pairwise", "pairwise", "pairwise_dialog"),
    analyze=analyze,
    report=report,
    ranks=True,
    options=("covariates", "reweight"),
    extra_files=ledger_file("pairwise"),
    extra_tables=(LEDGER,),
    places=places_of("pair_places"),
    collected="votes",
    situations_caption={
        "pairwise": "Each situation's last user turn and the two responses beside the votes",
        # a dialog-level (ACUTE) study compares whole conversations, not one turn's responses
        "pairwise_dialog": "Each dialog and pair of systems beside the votes on their whole conversations "
        "(response_a and response_b: each system's chatbot turns)",
    },
    compared_as="pairwise",
    prepare=prepare,
    judged=True,
    judge_features=judge_features,
)

KIND = Kind(
    "pairwise",
    Pairwise(),
    results=RESULTS,
    page="infact.ui.steps.pairwise.page",
    dashboard="infact.ui.dashboard.sections.results.show_results",
)
