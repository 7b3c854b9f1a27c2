"""A rated situation: the `rating` protocol's step (protocol "rating" ↔ kind "situation" ↔ table "ratings": the one
irregular name, stated in infact/study/protocol_config.py). Its answers are ratings.csv, analysed with bootstrap
intervals, Friedman, Wilcoxon and mixed models, and compared with a judge's ratings.
"""

from infact.participation.steps import Kind
from infact.participation.steps.situation import RATINGS, Situation
from infact.results.kinds import Answers, KindResults, common_options, preference_options
from infact.results.tables.schemas import RATINGS_WIDE


def build(answers: Answers):
    from infact.results.tables import records as tables

    return tables.ratings_table(answers.records, answers.cfg.scale.labels, groups=answers.groups)


def analyze(table, options, source: str) -> dict:
    """Ratings: bootstrap intervals, Friedman, Wilcoxon, mixed model, agreement — or, asked, a ranking."""
    from infact.results.monitoring import sequences as monitoring
    from infact.results.ranking import analysis as preference_analysis
    from infact.results.ratings import analysis as ratings_analysis

    if options.as_pairwise:
        return preference_analysis.analyze_ratings_as_pairwise(table, **preference_options(options, source))
    result = ratings_analysis.analyze(
        table, mixed_model=options.mixed_model, ordinal_model=options.ordinal_model, **common_options(options, source)
    )
    prepared, _ = ratings_analysis.prepare_ratings(table, options.include_flagged)
    maximum = options.extra.get("max_participants")  # [monitoring]'s declared maximum (analyze --study)
    monitoring.add_ratings_monitoring(result, prepared, options.confidence, maximum)  # the watched differences
    if options.extra.get("label_models"):  # crowd label models beside the median (optional extra `crowd`)
        from infact.results.crowd.report import analysis as label_models
        from infact.values import json_ready

        result["label_models"] = json_ready(label_models(table, options.include_flagged))
    return result


def report(result: dict, fmt: str, table) -> str:
    """The ratings' statistics (HTML: with charts), the judges, the label models; read as preferences, a ranking."""
    from infact.results.reports.analyses import ratings_report

    return ratings_report(result, fmt, table)


def extra_files(table, tables) -> dict[str, bytes]:
    from infact.results.tables.formats import export_wide_ratings, infact_workbook_bytes

    t = tables
    return {
        "ratings_wide.csv": export_wide_ratings(table, t.systems),
        "infact_sheets.xlsx": infact_workbook_bytes(table, t.participants, t.questionnaire, t.demographics),
    }


def prepare(table, include_flagged: bool, cfg) -> list:
    from infact.results.ratings.analysis import prepare_ratings

    return [(prepare_ratings(table, include_flagged)[0], None)]


RESULTS = KindResults(
    RATINGS,
    ("situation",),
    build=build,
    analyze=analyze,
    report=report,
    extra_files=extra_files,
    extra_tables=(RATINGS_WIDE,),
    extra_descriptions={
        "infact_sheets.xlsx": "INFACT's workbook: valid trials, invalid trials, demographics, feedback"
    },
    collected="ratings",
    always=True,
    compared_as="ratings",
    prepare=prepare,
    judged=True,
)

KIND = Kind(
    "situation",
    Situation(),
    results=RESULTS,
    page="infact.ui.steps.situation.page",
    page_top="infact.ui.steps.situation.page_top",
    dashboard="infact.ui.dashboard.sections.results.show_results",
)
