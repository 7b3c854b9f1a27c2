"""`generate` and `judge`: LLM endpoints (and other systems) write a study's responses and judgements."""

from __future__ import annotations

import argparse

from infact import deployment
from infact.cli.args import add_db, add_study, command, study_folder
from infact.cli.progress import ProgressBar


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "generate",
        "Send every situation's context to system NAME and write its answers into the study's situations "
        "files, with provenance per response. NAME is reached through --endpoint (an [endpoints.NAME] "
        "table: an OpenAI-compatible LLM), --url (an HTTP system speaking the chat contract), --callable "
        "(module:function), or else its own [live.systems.NAME] table. Resumable: answers are appended to "
        "generated/NAME.jsonl as they come, so a killed run continues without repeating a finished call, and "
        "the same command again asks only for the situations still without a response of NAME (the failed "
        "calls). Existing responses of NAME are replaced only with --force. See docs/llm.md.",
    )
    add_study(p)
    p.add_argument("--system", required=True, metavar="NAME", help="the system's name in the situations' responses")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--endpoint", metavar="ENDPOINT", help="an [endpoints.ENDPOINT] table of study.toml or secrets")
    how.add_argument("--url", help="an HTTP system answering the chat contract (docs/live.md)")
    how.add_argument("--callable", dest="callable_spec", metavar="MODULE:FUNCTION", help="an in-process system")
    p.add_argument("--system-prompt", help="endpoint systems: the system message sent first")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per answer of a --url or --callable system")
    p.add_argument(
        "--workers", type=int, default=4, help="calls at once for --url/--callable (endpoints: their max_concurrency)"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="ask again for every situation and replace existing responses of the system",
    )
    p.set_defaults(func=run_generate)

    p = command(
        sub,
        "judge",
        "Run the [judges.NAME] table's endpoint over the study's own items with the study's instructions, "
        "criteria and labelled scale: rating studies one call per response and criterion, pairwise studies "
        "both orders of each pair, dialog-level studies whole conversations; `samples` answers per item. "
        "Answers must be one label (re-asked once, then stored as unparseable, never guessed). Every call "
        "is cached by prompt hash in judges/NAME.raw.jsonl, so a rerun or a killed run resumes without "
        "repeating a call. Writes judges/NAME.csv, which `analyze --judge` and the dashboard's Judges "
        "section read; with --db, also prints the judge's agreement with the humans of that store.",
    )
    add_study(p)
    p.add_argument("--judge", required=True, metavar="NAME", help="a [judges.NAME] table of study.toml")
    add_db(p)
    p.add_argument(
        "--include-bots",
        action="store_true",
        help="with --db: count bot participants (`infact bots`) among the humans the judge is compared with",
    )
    p.set_defaults(func=run_judge)


def run_generate(args) -> int:
    from infact.importers.generate import generate

    folder = study_folder(args)
    report = generate(
        folder,
        args.system,
        force=args.force,
        progress=ProgressBar(f"generate {args.system}"),
        endpoint=args.endpoint,
        url=args.url,
        callable_spec=args.callable_spec,
        system_prompt=args.system_prompt,
        timeout_s=args.timeout,
        workers=args.workers,
        secrets=deployment.load_secrets(),
    )
    for warning in report.warnings:
        print(f"warning: {warning}")
    for line in report.summary.lines():
        print(line)
    if report.kept:
        print(f"kept {report.kept} existing responses of {args.system} (--force asks for them again)")
    for path, n in report.written.items():
        print(f"wrote {n} responses of {args.system} to {path}")
    for error in report.errors[:10]:
        print(f"failed: {error}")
    _stopped(report.summary)
    if report.summary.cut:
        print(f"{report.summary.cut} answers were cut at max_tokens (finish_reason = length): raise max_tokens")
    if report.errors:
        print(
            f"{len(report.errors)} calls failed; run the same command again to retry only those "
            f"(finished answers are kept in {report.checkpoint})"
        )
        return 1
    return 0


def run_judge(args) -> int:
    from infact.results.judges.runner import run_judge as judge
    from infact.study.loader import load_study

    study = load_study(study_folder(args))
    report = judge(study, args.judge, secrets=deployment.load_secrets(), progress=ProgressBar(f"judge {args.judge}"))
    for warning in report.extra.get("warnings", []):
        print(f"warning: {warning}")
    for line in report.lines():
        print(line)
    print(f"wrote {report.rows} judgements to {report.csv_path} (raw outputs: {report.raw_path})")
    from infact.results.judges.alignment_report import coverage_lines, judge_coverage

    coverage = {args.judge: judge_coverage(report.csv_path)}
    if args.db:
        from infact.results.judges.alignment_report import alignment_from_tables, render_markdown
        from infact.results.judges.alt_report import render_verdicts
        from infact.results.study_results import open_results

        results = open_results(study, args.db, include_bots=args.include_bots)
        if results.bots and not args.include_bots:  # a judge stands in for people: bots are none
            print(
                f"note: {len(results.bots)} bot participant(s) (`infact bots`) left out of the humans the judge is "
                "compared with; --include-bots keeps them"
            )
        aligned = {args.judge: alignment_from_tables(study, results.tables, report.csv_path)}
        print(render_markdown(aligned, coverage) + render_verdicts(aligned))
    else:
        print("\n".join(coverage_lines(coverage)))
    _stopped(report.summary)
    if not coverage[args.judge]["usable"]:
        print(f"error: none of judge {args.judge}'s answers is a label: see {report.raw_path}")
        return 1
    if report.summary.failures:
        print(f"{report.summary.failures} items failed; run the same command again to retry only those")
        return 1
    return 0


def _stopped(summary) -> None:
    if summary.stopped:
        print(
            f"stopped: {summary.stopped}; {summary.not_tried} calls were not tried. Is the server running "
            "at the endpoint's base_url? Run the same command again once it is."
        )
