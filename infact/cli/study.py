"""`new`, `validate` and `bots`: write a study folder that runs at once, check one, play bot participants through it.

`new` only parses and prints: the draft and its files are infact.study.starter's, the table reading
infact.importers.table's (the in-app builder calls the same functions).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from infact.cli.args import (
    PROTOCOL_CHOICES,
    add_study,
    add_table_options,
    command,
    study_folder,
    table_options,
)
from infact.errors import InfactError, Problem
from infact.participation.strategies import PLANTS, QUALITIES, SIMULATED, STRATEGIES


def register(sub: argparse._SubParsersAction) -> None:
    _register_new(sub)
    p = command(
        sub,
        "validate",
        "Check study.toml and the situations files together and print every problem as "
        "`file:line: [key] message` with the fix (not only the first); exit 1 if there is any.",
    )
    add_study(p, positional=True)
    p.set_defaults(func=run_validate)
    _register_bots(sub)


def _register_bots(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "bots",
        "Bot participants play the study through the same flow as the web page, on a simulated clock that "
        "never runs ahead of now. Every record they write is marked `bot` (the tables' `bot` column); analysis "
        "and the datasheet leave them out unless --include-bots. Without --db (or INFACT_DB, secrets) they play "
        "into a store of their own, db/<study id>-bots/; a store holding real participants is refused unless "
        "--mix-with-real; --remove deletes them again. What each strategy answers: "
        + "; ".join(f"{name}: {what}" for name, what in PLANTS.items())
        + ".",
    )
    add_study(p, positional=True)
    p.add_argument(
        "--db",
        metavar="PATH_OR_URL",
        help="store: a TinyDB directory or a database URL (default: INFACT_DB, then [connections.infact] in "
        ".streamlit/secrets.toml, then db/<study id>-bots/: not the app's default store)",
    )
    p.add_argument("-n", type=int, default=20, help="number of bots")
    p.add_argument(
        "--quality",
        default="alike",
        metavar="alike|ordered|SYS=MEAN,…",
        help="the quality planted in the answers of the strategies that follow it (mean answer per system): "
        + "; ".join(f"{k}: {v}" for k, v in QUALITIES.items())
        + "; SYS=MEAN,…: your own, every system (e.g. A=4,B=3,C=2)",
    )
    p.add_argument(
        "--mix-with-real",
        action="store_true",
        help="let the bots into a store that already holds real participants (refused otherwise)",
    )
    p.add_argument(
        "--remove",
        action="store_true",
        help="delete the study's bot participants from the store (every record of theirs, nobody else's) and stop",
    )
    _bot_play_arguments(p)


def _bot_play_arguments(p: argparse.ArgumentParser) -> None:
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
    from infact.study.checks.texts import text_warnings

    toml = folder / "study.toml"
    warnings = text_warnings(study.config, str(toml), toml.read_text(encoding="utf-8"))
    for p in [*missing_generated(folder, study.config), *warnings]:
        print(f"warning: {p}", file=sys.stderr)
    cfg = study.config
    why = pool_explanation(study)
    print(
        f"ok: study '{study.id}' — {len(study.situations)} situations{f' ({why})' if why else ''}, "
        f"systems {', '.join(study.systems)}, {cfg.study.situations_per_participant} situations per participant, "
        f"dataset version {study.dataset_version}"
    )
    for name in study.conditions:  # a between-subjects study: what each condition shows
        shown = study.under(name)
        print(f"  condition '{name}': systems {', '.join(shown.systems)}; changes {', '.join(changed(study, name))}")
    from infact.text.study_texts import language_note

    print(f"note: {language_note(cfg)}")  # after the verdict: `ok: …` stays the first line scripts read
    return 0


def changed(study, name: str) -> list[str]:
    """The settings condition `name` changes, dotted (texts.instructions, study.systems, …)."""
    from infact.study.conditions.overlay import changed_settings

    return changed_settings(study.config.conditions[name].model_dump(exclude_none=True))


def run_bots_cmd(args) -> int:
    from infact import deployment
    from infact.participation import bot_store
    from infact.participation.bots import planted_quality, run_bots
    from infact.storage import open_storage
    from infact.study.loader import load_study

    study = load_study(study_folder(args))
    target, own = bot_store.bots_target(args.db, study.id, deployment.load_secrets())
    if args.remove:
        return _remove_bots(study, target)
    quality = planted_quality(study, args.quality)
    simulator = _simulator(args, study)
    storage = open_storage(target)
    try:
        bot_store.refuse_people(storage, study.id, target, args.mix_with_real)
        results = run_bots(
            study,
            storage,
            args.n,
            strategy=args.strategy,
            seed=args.seed,
            concurrency=args.concurrency,
            simulator=simulator,
            quality=quality,
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
    per = Counter(r.condition for r in results if r.outcome == "completed" and r.condition is not None)
    if per:  # a between-subjects study: completions per condition
        print("completed per condition: " + ", ".join(f"{c} {n}" for c, n in sorted(per.items())))
    _bots_report(study, args, quality, sorted(counts), target, own)
    return _simulator_failures(results)


def _bots_report(study, args, quality: dict[str, float], strategies: list[str], target: str, own: bool) -> None:
    """After the run: the quality planted, what each strategy played answers, where the bots are, how to go on."""
    from infact.participation.bot_store import shown
    from infact.participation.bots import describe_quality

    how = "--quality " + args.quality if args.quality != "alike" else "the default; --quality ordered plants a ranking"
    print(f"planted quality: {describe_quality(quality)} ({how})")
    for name in strategies:
        print(f"  {name}: {PLANTS.get(name, '')}")
    where = shown(target)
    if own:
        print(
            f"stored in {where}, the bots' own store (the app's default store is not touched): see them with "
            f"INFACT_DB={where} streamlit run streamlit_app.py"
        )
    print(
        "every record is marked `bot`; analysis leaves them out unless --include-bots; "
        f"remove them: infact bots --study {study.folder} --remove{'' if own else ' --db ' + where}"
    )


def _remove_bots(study, target: str) -> int:
    """`bots --remove`: delete the study's bot participants from the store, nobody else's records."""
    from infact.participation.bot_store import participants_in, remove_bots, shown
    from infact.storage import open_storage

    storage = open_storage(target)
    try:
        participants, records = remove_bots(storage, study.id)
        _, people = participants_in(storage, study.id)
    finally:
        storage.close()
    print(
        f"removed {participants} bot participant(s) ({records} records) of study '{study.id}' from "
        f"{shown(target)}; {len(people)} other participant(s) untouched"
    )
    return 0


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


def _register_new(sub: argparse._SubParsersAction) -> None:
    p = command(
        sub,
        "new",
        "Write a new study folder that validates and runs at once: a commented study.toml for the protocol and "
        "sample situations (the protocol's demo), or your own dialogs imported from a table with --from "
        "(CSV, XLSX or JSONL; see `infact import table --help`). Files already in DIR are never replaced "
        "without --force (and then kept as NAME.bak-<time>).",
    )
    add_study(p, positional=True, help="the study folder to write (created if missing)")
    p.add_argument(
        "--protocol",
        default="ratings",
        choices=PROTOCOL_CHOICES,
        help="what participants do (docs/protocols.md): ratings, pairwise, best-worst, acute (whole "
        "conversations side by side), live (chats with the systems), conversations (turn-by-turn annotation)",
    )
    p.add_argument("--from", dest="source", metavar="FILE", help="your dialogs: a table (CSV, XLSX, JSONL)")
    p.add_argument("--title", help="the study's title shown to participants (default: the protocol's)")
    p.add_argument("--force", action="store_true", help="replace files of DIR that the new study writes")
    add_table_options(p)
    p.set_defaults(func=run_new)


def read_dialogs(args):
    """The situations of `--from FILE` / `import table FILE`, its warnings printed; an error when none is usable."""
    from infact.errors import DatasetError
    from infact.importers.table import read_source

    read = read_source(args.source, table_options(args))
    for problem in read.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not read.situations:
        raise DatasetError(Problem(read.file, "no usable row: fix the rows above (each says how) and run again"))
    return read


def _folder(args) -> Path:
    if not (args.study or args.study_arg):
        raise InfactError(Problem("new", "give the folder to write, e.g. `infact new my-study`"))
    return study_folder(args)


def run_new(args) -> int:
    from infact.importers.common import study_id
    from infact.study.loader import load_study
    from infact.study.starter import checked_files, draft_study, write_study_folder

    folder = _folder(args)
    read = read_dialogs(args) if args.source else None
    draft = draft_study(
        args.protocol,
        study_id=study_id(folder.resolve().name),
        title=args.title,
        situations=read.situations if read else None,
        source=Path(args.source).name if read else "",
    )
    written = write_study_folder(folder, checked_files(draft), force=args.force)  # loaded before it is written
    study = load_study(folder)
    if read:
        print(f"read {read.file}: {len(read.situations)} situations from {read.rows} rows")
        for line in read.columns.describe():
            print(f"  {line}")
    print(f"wrote a {draft.protocol} study '{study.id}' to {folder}: {', '.join(p.name for p in written)}")
    for note in draft.notes:
        print(f"  {note}")
    print(
        f"next: edit {folder / 'study.toml'} (texts, id), check it with `infact validate {folder}`, and run it with "
        f"`INFACT_STUDY={folder} streamlit run streamlit_app.py`"
    )
    return 0
