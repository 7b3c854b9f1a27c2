"""One system's whole conversation annotated turn by turn and overall: annotations.csv, with α, halo and rankings
per aspect, and FACE run files compared as judges."""

from infact.participation.steps import Kind
from infact.participation.steps.conversation import ANNOTATIONS, Conversation
from infact.results.kinds import Answers, KindResults


def build(answers: Answers):
    from infact.results.conversations.tables import annotations_frame

    return annotations_frame(answers.rows("conversation", answers.cfg.aspects))


def analyze(table, options, source: str) -> dict:
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


def report(result: dict, fmt: str, table) -> str:
    """Per aspect and system, with the FACE judges, and the simulated participants (Markdown in both formats)."""
    from infact.results.reports.analyses import annotations_report

    return annotations_report(result, fmt, table)


def extra_files(table, tables) -> dict[str, bytes]:
    from infact.results.conversations.tables import aggregated_json

    return {"annotations_aggregated.json": aggregated_json(table, tables.records).encode("utf-8")}


RESULTS = KindResults(
    ANNOTATIONS,
    ("conversation",),
    build=build,
    analyze=analyze,
    report=report,
    extra_files=extra_files,
    extra_descriptions={
        "annotations_aggregated.json": "the annotations in CRSArena-Eval's aggregated shape (median per item)"
    },
    collected="annotations",
)

KIND = Kind(
    "conversation",
    Conversation(),
    results=RESULTS,
    page="infact.ui.steps.conversation.page",
    page_top="infact.ui.steps.conversation.page_top",
    dashboard="infact.ui.dashboard.sections.results.show_results",
)
