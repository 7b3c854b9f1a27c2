"""`validate` and `bots`: check a study folder, play bot participants through it."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from infact.cli.args import add_db, add_study, command, open_store, study_folder
from infact.errors import InfactError, Problem
from infact.participation.strategies import SIMULATED, STRATEGIES


def register(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "validate",
        "Check study.toml and the situations files together and print every problem as "
        "`file:line: [key] message` with the fix (not only the first); exit 1 if there is any.",
    )
    add_study(p, positional=True)
    p.set_defaults(func=run_validate)

    p = command(
        sub,
        "bots",
        "Bot participants play the study through the same flow and store as the web page, on a simulated "
        "clock. Strategies: " + ", ".join((*STRATEGIES, SIMULATED)) + ".",
    )
    add_study(p, positional=True)
    add_db(p)
    p.add_argument("-n", type=int, default=20, help="number of bots")
    p.add_argument(
        "--strategy",
        choices=(*STRATEGIES, SIMULATED),
        help="one strategy for all bots (default: a realistic mix); llm: simulated participants played by "
        "an LLM (--endpoint, --persona), marked and kept out of human results (docs/llm.md)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="random seed: the same seed plays the same situations, orders and answers (one at a time; "
        "tokens stay random, so a second run adds new participants)",
    )
    p.add_argument("--concurrency", type=int, default=1, help="bots playing at the same time")
    p.add_argument(
        "--endpoint",
        help="--strategy llm: the [endpoints.NAME] LLM that plays the participants (their pages and chats)",
    )
    p.add_argument(
        "--persona",
        metavar="FILE",
        help="--strategy llm: a text file describing the simulated person "
        "(who they are, what they like, what they have seen)",
    )
    p.add_argument(
        "--constrain",
        choices=("grammar", "json_schema", "json_object"),
        help="--strategy llm: hold the simulated participant's page answers to their labels, as a judge's "
        "`constrain` (a GBNF grammar for llama.cpp, or a JSON schema)",
    )
    p.set_defaults(func=run_bots_cmd)


def run_validate(args) -> int:
    folder = study_folder(args)
    from infact.participation.flow import kinds_in_order  # here, not at the top: `validate --help` stays fast
    from infact.study.loader import pool_explanation, validate_study

    study, errors, notes = validate_study(folder)
    if study is not None:  # [flow] steps against the registered step kinds (the study layer cannot see them)
        try:
            kinds_in_order(study)
        except InfactError as exc:
            errors = [*errors, *exc.problems]
    for p in errors:
        print(f"{p}", file=sys.stderr)
    for p in notes:
        print(f"note: {p}")
    if errors:
        print(f"{len(errors)} problem(s) in {folder}", file=sys.stderr)
        return 1
    from infact.importers.generate import missing_generated

    for p in missing_generated(folder, study.config):
        print(f"warning: {p}", file=sys.stderr)
    cfg = study.config
    from infact.text.study_texts import language_note

    print(f"note: {language_note(cfg)}")
    why = pool_explanation(study)
    print(
        f"ok: study '{study.id}' — {len(study.situations)} situations{f' ({why})' if why else ''}, "
        f"systems {', '.join(study.systems)}, {cfg.study.situations_per_participant} situations per participant, "
        f"dataset version {study.dataset_version}"
    )
    return 0


def run_bots_cmd(args) -> int:
    from infact.participation.bots import run_bots
    from infact.study.loader import load_study

    study = load_study(study_folder(args))
    simulator = _simulator(args, study)
    storage = open_store(args, study.id)
    try:
        results = run_bots(
            study,
            storage,
            args.n,
            strategy=args.strategy,
            seed=args.seed,
            concurrency=args.concurrency,
            simulator=simulator,
        )
        comparison = None
        if simulator is not None:
            from infact.results.live.simulated import render_markdown, simulated_vs_human

            comparison = simulated_vs_human(storage.records(study=study.id))
    finally:
        storage.close()
    if comparison is not None:
        print(render_markdown(comparison))
    counts = Counter(r.strategy for r in results)
    done = sum(r.completed for r in results)
    print(f"{len(results)} bots played ({', '.join(f'{k}: {v}' for k, v in sorted(counts.items()))}); {done} completed")
    return _simulator_failures(results)


def _simulator_failures(results) -> int:
    """Say how many simulated participants stopped or answered by fallback; 1 when any simulator call failed."""
    failed = [r for r in results if r.failure]
    fallbacks = sum(r.fallbacks for r in results)
    if fallbacks:
        print(f"{fallbacks} simulated answers were not a label: a stand-in was stored and marked (fallback)")
    if failed:
        print(
            f"error: {len(failed)} of {len(results)} simulated participants stopped, unfinished: "
            f"{failed[0].failure}. Is the simulator's endpoint running?",
            file=sys.stderr,
        )
        return 1
    return 0


def _simulator(args, study):
    """(LLMClient, persona) for --strategy llm; a clear error when its options are missing."""
    if args.strategy != "llm":
        if args.endpoint or args.persona or args.constrain:
            raise InfactError(Problem("--endpoint", "--endpoint, --persona and --constrain go with --strategy llm"))
        return None
    if not args.endpoint or not args.persona:
        raise InfactError(
            Problem(
                "--strategy",
                "--strategy llm needs --endpoint NAME (an [endpoints.NAME] table) and "
                "--persona FILE (a text file describing the simulated person)",
            )
        )
    from pathlib import Path

    from infact import deployment
    from infact.llm.client import open_client
    from infact.study.endpoints import endpoints_from_secrets, merged

    persona = Path(args.persona)
    if not persona.is_file():
        raise InfactError(Problem(str(persona), "persona file not found: give a text file describing the person"))
    secrets = deployment.load_secrets()
    llm = open_client(
        args.endpoint,
        merged(study.config.endpoints, endpoints_from_secrets(secrets)),
        secrets=secrets,
        label="simulated participant",
    )
    warning = llm.model_warning()
    if warning:
        print(f"warning: {warning}")
    persona_text = persona.read_text(encoding="utf-8")
    return (llm, persona_text, {"constrain": args.constrain}) if args.constrain else (llm, persona_text)
