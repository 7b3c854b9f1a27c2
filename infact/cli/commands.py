"""`validate`, `bots` and `export` sub-commands."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from infact.participation.bots import STRATEGIES, run_bots
from infact.results.export import FILES, write_exports
from infact.storage import open_storage
from infact.stores.config import REPO, resolve_store
from infact.study.loader import load_study, validate_study


def _db(args, study_id: str) -> str:
    return args.db if args.db else resolve_store(study_id, secrets=None)[0]


def run_validate(args) -> int:
    study, errors, notes = validate_study(args.study)
    for p in errors:
        print(f"{p}", file=sys.stderr)
    for p in notes:
        print(f"note: {p}")
    if errors:
        print(f"{len(errors)} problem(s) in {args.study}", file=sys.stderr)
        return 1
    cfg = study.config
    print(f"ok: study '{study.id}' — {len(study.situations)} situations, systems {', '.join(study.systems)}, "
          f"{cfg.study.situations_per_participant} situations per participant, dataset version {study.dataset_version}")
    return 0


def run_bots_cmd(args) -> int:
    study = load_study(args.study)
    storage = open_storage(_db(args, study.id))
    try:
        results = run_bots(study, storage, args.n, strategy=args.strategy, seed=args.seed, concurrency=args.concurrency)
    finally:
        storage.close()
    counts = Counter(r.strategy for r in results)
    done = sum(r.completed for r in results)
    print(f"{len(results)} bots played ({', '.join(f'{k}: {v}' for k, v in sorted(counts.items()))}); {done} completed")
    return 0


def run_export(args) -> int:
    study = load_study(args.study)
    storage = open_storage(_db(args, study.id))
    try:
        written = write_exports(study, storage, args.out, include_withdrawn=args.include_withdrawn)
    finally:
        storage.close()
    for path in written:
        print(f"{path}  — {FILES.get(path.name, '')}")
    return 0


def run_verify_codes(args) -> int:
    from infact.errors import InfactError, Problem
    from infact.results.export import collect
    from infact.participation.codes import read_submissions, verify_codes

    study = load_study(args.study)
    try:
        codes = read_submissions(Path(args.codes).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise InfactError(Problem(args.codes, f"cannot read the codes file ({exc.strerror}); one `WORKERID,CODE` "
                                              "(or bare code) per line, or MTurk's batch results CSV")) from None
    storage = open_storage(_db(args, study.id))
    try:
        participants = collect(study, storage.records(study=study.id), include_withdrawn=True).participants
    finally:
        storage.close()
    result = verify_codes(codes, participants)
    print(result.to_csv(index=False), end="")
    unmatched = int((~result["matched"]).sum())
    print(f"{len(result) - unmatched} of {len(result)} codes match a stored completion; {unmatched} do not", file=sys.stderr)
    return 0 if unmatched == 0 else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify-codes", help="check (worker ID, completion code) pairs submitted on MTurk against the stored completions")
    p.add_argument("codes", help="MTurk batch results CSV (WorkerId + a *code* column), or one `WORKERID,CODE` "
                                 "per line; bare codes (no worker ID) only for self-hosted studies")
    p.add_argument("--study", required=True, help="study folder")
    p.add_argument("--db", help="store: TinyDB directory or database URL (default: as the app)")
    p.set_defaults(func=run_verify_codes)

    p = sub.add_parser("validate", help="check a study folder (config and situations together)")
    p.add_argument("study", help="study folder (with study.toml)")
    p.set_defaults(func=run_validate)

    p = sub.add_parser("bots", help="play bot participants through a study (tests, demos, load)")
    p.add_argument("study", help="study folder")
    p.add_argument("-n", type=int, default=20, help="number of bots (default 20)")
    p.add_argument("--db", help="store: TinyDB directory or database URL (default: as the app)")
    p.add_argument("--strategy", choices=STRATEGIES, help="one strategy for all bots (default: a realistic mix)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--concurrency", type=int, default=1, help="bots playing at the same time")
    p.set_defaults(func=run_bots_cmd)

    p = sub.add_parser("export", help="write ratings.csv and every other export")
    p.add_argument("--study", required=True, help="study folder")
    p.add_argument("--db", help="store: TinyDB directory or database URL (default: as the app)")
    p.add_argument("--out", default=str(REPO / "exports"), help="output folder (default: exports/)")
    p.add_argument("--include-withdrawn", action="store_true", help="also export participants who withdrew")
    p.set_defaults(func=run_export)
