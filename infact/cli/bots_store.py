"""`infact bots`: which store the bots play into, the refusal to mix them with people, and `--remove`.

Bots never share a store with real participants unless the researcher says so: without `--db`, `INFACT_DB` or
`[connections.infact]`, they play into a store of their own, `db/<study id>-bots/` (the app's default is
`db/<study id>/`); any store that already holds people is refused without `--mix-with-real`.
"""

from __future__ import annotations

import argparse

from infact.errors import InfactError, Problem


def bots_target(args: argparse.Namespace, study_id: str) -> tuple[str, bool]:
    """(the store the bots use, whether it is their own default one rather than one the researcher gave)."""
    from infact import deployment
    from infact.cli.args import store_target
    from infact.stores.config import check_store_path
    from infact.stores.config import store_target as configured

    if getattr(args, "db", None):
        return store_target(args, study_id), False
    target, source = configured(study_id, secrets=deployment.load_secrets())
    if source.endswith("(default)"):  # nothing configured: not the app's store, a store of the bots' own
        return check_store_path(f"{target}-bots", "--db"), True
    return store_target(args, study_id), False


def refuse_people(storage, study_id: str, target: str, mix: bool) -> None:
    """Stop before a bot enters a store that holds real participants, unless --mix-with-real."""
    from infact.participation.bots import participants_in

    _, people = participants_in(storage, study_id)
    if people and not mix:
        raise InfactError(
            Problem(
                _shown(target),
                f"this store holds {len(people)} real participant(s) of study '{study_id}': bots would be "
                "mixed with them. Give the bots a store of their own (--db db/NAME), or pass --mix-with-real "
                "if that is what you want (they stay marked and left out of the analysis; `infact bots "
                "--remove` deletes them).",
                key="--mix-with-real",
            )
        )


def run_remove(args: argparse.Namespace, study) -> int:
    """`bots --remove`: delete the study's bot participants from the store, nobody else's records."""
    from infact.participation.bots import participants_in, remove_bots
    from infact.storage import open_storage

    target, _ = bots_target(args, study.id)
    storage = open_storage(target)
    try:
        participants, records = remove_bots(storage, study.id)
        _, people = participants_in(storage, study.id)
    finally:
        storage.close()
    print(
        f"removed {participants} bot participant(s) ({records} records) of study '{study.id}' from "
        f"{_shown(target)}; {len(people)} other participant(s) untouched"
    )
    return 0


def _shown(target: str) -> str:
    """The store as it may be printed: a database URL without its password."""
    from infact.stores.config import URL

    return target.split("://")[0] + "://…" if URL.match(target) else target


def report(study, args: argparse.Namespace, quality: dict[str, float], strategies: list[str], target: str, own: bool):
    """After the run: the quality planted, what each strategy played answers, where the bots are and how to go on."""
    from infact.participation.bots import describe_quality
    from infact.participation.strategies import PLANTS

    how = "--quality " + args.quality if args.quality != "alike" else "the default; --quality ordered plants a ranking"
    print(f"planted quality: {describe_quality(quality)} ({how})")
    for name in strategies:
        print(f"  {name}: {PLANTS.get(name, '')}")
    where = _shown(target)
    if own:
        print(
            f"stored in {where}, the bots' own store (the app's default store is not touched): see them with "
            f"INFACT_DB={where} streamlit run streamlit_app.py"
        )
    print(
        f"every record is marked `bot`; analysis leaves them out unless --include-bots; "
        f"remove them: infact bots --study {study.folder} --remove{'' if own else ' --db ' + where}"
    )
