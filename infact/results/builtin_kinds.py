"""The built-in kinds of answer, each registered once with its table, analysis and extra files
(the extension points are described in infact/results/hookspecs.py; infact/results/kinds.py registers these).

Analyses are imported when called: exporting a table needs no statistics package loaded.
"""

from __future__ import annotations

from infact.participation.steps.compare import BEST_WORST, PAIRWISE
from infact.participation.steps.conversation import ANNOTATIONS
from infact.participation.steps.demographics import DEMOGRAPHICS
from infact.participation.steps.questionnaire import QUESTIONNAIRE
from infact.participation.steps.situation import RATINGS
from infact.results.hookspecs import Answers, KindResults
from infact.results.tables.schemas import LEDGER, RATINGS_WIDE


def _ratings(answers: Answers):
    from infact.results.tables import records as tables

    return tables.ratings_table(answers.records, answers.cfg.scale.labels, groups=answers.groups)


def _answers_of(step: str):
    def build(answers: Answers):
        from infact.results.tables import records as tables

        scale = answers.cfg.questionnaire.scale if step == "questionnaire" else None
        return tables.answers_table(answers.records, step, scale, groups=answers.groups)

    return build


def _votes(table: str, *steps: str):
    def build(answers: Answers):
        from infact.results.tables.votes import vote_frame

        return vote_frame(table, [row for step in steps for row in answers.rows(step)])

    return build


def _annotations(answers: Answers):
    from infact.results.conversations.tables import annotations_frame

    return annotations_frame(answers.rows("conversation", answers.cfg.aspects))


def _common(options, source: str) -> dict:
    """What every analysis takes from `analyze`'s options."""
    keep = ("criterion", "include_flagged", "n_boot", "seed")
    return {**{name: getattr(options, name) for name in keep}, "source": source}


def _preference_options(options, source: str) -> dict:
    from infact.results.ranking.provisional import MIN_VOTES

    min_votes = MIN_VOTES if options.min_votes is None else options.min_votes
    maximum = options.extra.get("max_participants")  # [monitoring]'s declared maximum (analyze --study)
    return {**_common(options, source), "confidence": options.confidence, "min_votes": min_votes, "maximum": maximum}


def analyze_ratings(table, options, source: str) -> dict:
    """Ratings: bootstrap intervals, Friedman, Wilcoxon, mixed model, agreement — or, asked, a ranking."""
    from infact.results.monitoring import sequences as monitoring
    from infact.results.ranking import analysis as preference_analysis
    from infact.results.ratings import analysis as ratings_analysis

    if options.as_pairwise:
        return preference_analysis.analyze_ratings_as_pairwise(table, **_preference_options(options, source))
    result = ratings_analysis.analyze(
        table, mixed_model=options.mixed_model, ordinal_model=options.ordinal_model, **_common(options, source)
    )
    prepared, _ = ratings_analysis.prepare_ratings(table, options.include_flagged)
    maximum = options.extra.get("max_participants")  # [monitoring]'s declared maximum (analyze --study)
    monitoring.add_ratings_monitoring(result, prepared, options.confidence, maximum)  # the watched differences
    if options.extra.get("label_models"):  # crowd label models beside the median (optional extra `crowd`)
        from infact.results.crowd.report import analysis as label_models
        from infact.values import json_ready

        result["label_models"] = json_ready(label_models(table, options.include_flagged))
    return result


def analyze_pairwise(table, options, source: str) -> dict:
    from infact.results.ranking import analysis as preference_analysis
    from infact.results.ranking.integrity import DEFAULT_MIN_SECONDS

    opts = _preference_options(options, source)
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


def analyze_best_worst(table, options, source: str) -> dict:
    from infact.results.ranking import analysis as preference_analysis

    design = options.extra.get("design")  # the study's systems and scheduling (analyze --study): the ledger's
    return preference_analysis.analyze_best_worst(table, design=design, **_preference_options(options, source))


def analyze_annotations(table, options, source: str) -> dict:
    """A conversation study: per aspect and system, α, halo, rankings; FACE run files as judges."""
    from infact.results.conversations import analysis as aa

    result = aa.analyze_annotations(
        table, include_flagged=options.include_flagged, n_boot=options.n_boot, seed=options.seed, source=source
    )
    if options.judges:
        named = [aa.parse_run_option(v) for v in options.judges]
        result["judges"] = aa.compare_judges(
            table, named, group_by=options.group_by, include_flagged=options.include_flagged, source=source
        )
    return result


def _rating_files(table, tables) -> dict[str, bytes]:
    from infact.results.tables.formats import export_wide_ratings, infact_workbook_bytes

    t = tables
    return {
        "ratings_wide.csv": export_wide_ratings(table, t.systems),
        "infact_sheets.xlsx": infact_workbook_bytes(table, t.participants, t.questionnaire, t.demographics),
    }


def _ledger_file(name: str):
    def extra(table, tables) -> dict[str, bytes]:
        """ledger.csv: the leaderboard ledger of every answer that showed systems, `table` as kind `name`'s and the
        other kinds' with places as `tables` holds them (infact/results/ranking/ledger.py): a study with votes and
        best–worst choices gets both in one file, apart by `table`, whichever kind writes it."""
        from infact.results.ranking.ledger import ledger_frames

        placed = tables.placed(name, table)
        frame = ledger_frames(placed, systems=tables.systems or None, design=getattr(tables, "design", None))
        return {"ledger.csv": LEDGER.csv_bytes(frame)}

    return extra


def _places(name: str):
    """A kind's places (infact/results/ranking/ledger.py), imported when called, as the analyses are."""

    def places(table):
        from infact.results.ranking import ledger

        return getattr(ledger, name)(table)

    return places


def _aggregated(table, tables) -> dict[str, bytes]:
    from infact.results.conversations.tables import aggregated_json

    return {"annotations_aggregated.json": aggregated_json(table, tables.records).encode("utf-8")}


# ---------------------------------------------------------------- compared with a judge file


def _prepared_ratings(table, include_flagged: bool, cfg) -> list:
    from infact.results.ratings.analysis import prepare_ratings

    return [(prepare_ratings(table, include_flagged)[0], None)]


def _prepared_votes(table, include_flagged: bool, cfg) -> list:
    from infact.results.tables.comparisons import prepare_pairwise

    return [(prepare_pairwise(table, include_flagged=include_flagged), None)]


def _vote_features(votes):
    from infact.results.tables.comparisons import features_from_votes

    return features_from_votes(votes)


# In the order a participant meets them; kinds.py registers them.
BUILT_IN = (
    KindResults(
        RATINGS,
        ("situation",),
        build=_ratings,
        analyze=analyze_ratings,
        extra_files=_rating_files,
        extra_tables=(RATINGS_WIDE,),
        extra_descriptions={
            "infact_sheets.xlsx": "INFACT's workbook: valid trials, invalid trials, demographics, feedback",
        },
        section="ratings",
        collected="ratings",
        always=True,
        compared_as="ratings",
        prepare=_prepared_ratings,
        judged=True,
    ),
    KindResults(
        PAIRWISE,
        ("pairwise", "pairwise_dialog"),
        build=_votes("pairwise", "pairwise", "pairwise_dialog"),
        analyze=analyze_pairwise,
        ranks=True,
        options=("covariates", "reweight"),
        extra_files=_ledger_file("pairwise"),
        extra_tables=(LEDGER,),
        places=_places("pair_places"),
        section="votes",
        collected="votes",
        situations_caption={
            "pairwise": "Each situation's last user turn and the two responses beside the votes",
            # a dialog-level (ACUTE) study compares whole conversations, not one turn's responses
            "pairwise_dialog": "Each dialog and pair of systems beside the votes on their whole conversations "
            "(response_a and response_b: each system's chatbot turns)",
        },
        compared_as="pairwise",
        prepare=_prepared_votes,
        judged=True,
        judge_features=_vote_features,
    ),
    KindResults(
        BEST_WORST,
        ("best_worst",),
        build=_votes("best_worst", "best_worst"),
        analyze=analyze_best_worst,
        ranks=True,
        extra_files=_ledger_file("best_worst"),
        extra_tables=(LEDGER,),
        places=_places("shown_places"),
        section="best_worst",
        collected="best_worst",
    ),
    KindResults(
        ANNOTATIONS,
        ("conversation",),
        build=_annotations,
        analyze=analyze_annotations,
        extra_files=_aggregated,
        extra_descriptions={
            "annotations_aggregated.json": "the annotations in CRSArena-Eval's aggregated shape (median per item)"
        },
        section="annotations",
        collected="annotations",
    ),
    KindResults(QUESTIONNAIRE, ("questionnaire",), build=_answers_of("questionnaire"), always=True),
    KindResults(DEMOGRAPHICS, ("demographics",), build=_answers_of("demographics"), always=True),
)
