"""Bots and the store: which store `infact bots` plays into, who in a store is a bot or a person, removing bots.

Bots never share a store with real participants unless the researcher says so: without `--db`, `INFACT_DB` or
`[connections.infact]`, they play into a store of their own, `db/<study id>-bots/` (the app's default is
`db/<study id>/`); any store that already holds people is refused without `--mix-with-real`. Removing them goes
through the storage protocol's `purge(participant)`, one bot at a time, as withdrawal with deletion does
(docs/storage.md): nobody else's records are touched.
"""

from __future__ import annotations

from collections.abc import Mapping

from infact.errors import InfactError, Problem
from infact.storage import Storage


def bots_target(db: str | None, study_id: str, secrets: Mapping | None) -> tuple[str, bool]:
    """(the store the bots use, whether it is their own default one rather than one the researcher gave):
    `db` (--db), else INFACT_DB or `[connections.infact]`, else `db/<study id>-bots/`."""
    from infact.stores.config import check_store_path, resolve_store, store_target

    if db:
        return check_store_path(db, "--db"), False
    target, source = store_target(study_id, secrets=secrets)
    if source.endswith("(default)"):  # nothing configured: not the app's store, a store of the bots' own
        return check_store_path(f"{target}-bots", "--db"), True
    return resolve_store(study_id, secrets)[0], False


def shown(target: str) -> str:
    """The store as it may be printed: a database URL without its password."""
    from infact.stores.config import URL

    return target.split("://")[0] + "://…" if URL.match(target) else target


def refuse_people(storage: Storage, study_id: str, target: str, mix: bool) -> None:
    """Stop before a bot enters a store that holds real participants, unless `mix` (--mix-with-real)."""
    _, people = participants_in(storage, study_id)
    if people and not mix:
        raise InfactError(
            Problem(
                shown(target),
                f"this store holds {len(people)} real participant(s) of study '{study_id}': bots would be "
                "mixed with them. Give the bots a store of their own (--db db/NAME), or pass --mix-with-real "
                "if that is what you want (they stay marked and left out of the analysis; `infact bots "
                "--remove` deletes them).",
                key="--mix-with-real",
            )
        )


def participants_in(storage: Storage, study_id: str) -> tuple[set[str], set[str]]:
    """(the bot participants, the people) of a study in a store, from its arrivals: a bot's arrival carries `bot`;
    researchers' previews and LLM-simulated participants are neither people nor counted here as bots unless
    marked."""
    bots, people = set(), set()
    for rec in storage.records(study=study_id, kind="arrival"):
        pid = rec.get("participant")
        if not pid or str(pid).startswith("_"):
            continue
        if rec.get("bot"):
            bots.add(pid)
        elif not rec.get("preview"):
            people.add(pid)
    simulated = {r.get("participant") for r in storage.records(study=study_id, kind="simulated")}
    return bots, people - simulated - bots


def remove_bots(storage: Storage, study_id: str) -> tuple[int, int]:
    """Delete every record of the study's bot participants, and nobody else's: each through the storage
    protocol's `purge(participant)`, as withdrawal with deletion does (docs/storage.md). (participants, records)."""
    bots, _ = participants_in(storage, study_id)
    removed = 0
    for pid in sorted(bots):
        removed += storage.purge(pid)
    return len(bots), removed
