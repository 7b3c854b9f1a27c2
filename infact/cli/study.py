"""`validate` and `bots`: check a study folder, play bot participants through it."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from infact.cli.args import add_db, add_study, command, open_store, study_folder
from infact.errors import InfactError
from infact.participation.bots import STRATEGIES, run_bots
from infact.participation.flow import kinds_in_order
from infact.study.loader import load_study, pool_explanation, validate_study


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "validate",
                "Check study.toml and the situations files together and print every problem as "
                "`file:line: [key] message` with the fix (not only the first); exit 1 if there is any.")
    add_study(p, positional=True)
    p.set_defaults(func=run_validate)

    p = command(sub, "bots",
                "Bot participants play the study through the same flow and store as the web page, on a simulated "
                "clock. Strategies: " + ", ".join(STRATEGIES) + ".")
    add_study(p, positional=True)
    add_db(p)
    p.add_argument("-n", type=int, default=20, help="number of bots")
    p.add_argument("--strategy", choices=STRATEGIES, help="one strategy for all bots (default: a realistic mix)")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed plays the same answers")
    p.add_argument("--concurrency", type=int, default=1, help="bots playing at the same time")
    p.set_defaults(func=run_bots_cmd)


def run_validate(args) -> int:
    folder = study_folder(args)
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
    cfg = study.config
    why = pool_explanation(study)
    print(f"ok: study '{study.id}' — {len(study.situations)} situations{f' ({why})' if why else ''}, "
          f"systems {', '.join(study.systems)}, {cfg.study.situations_per_participant} situations per participant, "
          f"dataset version {study.dataset_version}")
    return 0


def run_bots_cmd(args) -> int:
    study = load_study(study_folder(args))
    storage = open_store(args, study.id)
    try:
        results = run_bots(study, storage, args.n, strategy=args.strategy, seed=args.seed, concurrency=args.concurrency)
    finally:
        storage.close()
    counts = Counter(r.strategy for r in results)
    done = sum(r.completed for r in results)
    print(f"{len(results)} bots played ({', '.join(f'{k}: {v}' for k, v in sorted(counts.items()))}); {done} completed")
    return 0
