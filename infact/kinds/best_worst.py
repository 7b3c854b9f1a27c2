"""A best–worst choice among the shown responses: best_worst.csv, ranked, its places in the leaderboard ledger."""

from infact.kinds.pairwise import ledger_file, places_of, report, votes
from infact.participation.steps import Kind
from infact.participation.steps.best_worst import BEST_WORST, BestWorst
from infact.results.kinds import KindResults, preference_options
from infact.results.tables.schemas import LEDGER


def analyze(table, options, source: str) -> dict:
    from infact.results.ranking import analysis as preference_analysis

    design = options.extra.get("design")  # the study's systems and scheduling (analyze --study): the ledger's
    return preference_analysis.analyze_best_worst(table, design=design, **preference_options(options, source))


RESULTS = KindResults(
    BEST_WORST,
    ("best_worst",),
    build=votes("best_worst", "best_worst"),
    analyze=analyze,
    report=report,  # a ranking, reported as the votes' is
    ranks=True,
    extra_files=ledger_file("best_worst"),
    extra_tables=(LEDGER,),
    places=places_of("shown_places"),
    collected="best_worst",
)

KIND = Kind(
    "best_worst",
    BestWorst(),
    results=RESULTS,
    page="infact.ui.steps.best_worst.page",
    dashboard="infact.ui.dashboard.sections.results.show_results",
)
