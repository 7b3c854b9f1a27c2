"""Copy records between stores (`python -m infact migrate --from PATH_OR_URL --to PATH_OR_URL [--study-id ID]`).

Copies records between stores — a TinyDB directory, a database URL, or a
`secrets.toml` whose `[connections.infact]` names the database (keeps the password
out of shell history) — e.g. from a local pilot to the hosted PostgreSQL server.
Appends are idempotent by key, so an interrupted migration is simply re-run.
At the end every source record is looked up in the target and the counts per
kind are compared; any difference is an error, never a silent partial copy.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from infact.errors import InfactError, Problem
from infact.storage import Storage, open_storage

_URL = re.compile(r"^[a-z][a-z0-9+]*://")


def open_store(spec: str | os.PathLike, *, must_exist: bool, option: str) -> Storage:
    """Open a store named on the command line; `option` names the flag in errors."""
    text = str(spec).strip()
    if text.endswith(".toml"):
        from infact.stores.sql.store import storage_url_from_secrets

        try:
            secrets = tomllib.loads(Path(text).read_text(encoding="utf-8"))
        except OSError as exc:
            raise InfactError(
                Problem(
                    text,
                    f"cannot read it ({exc.strerror}); "
                    f"{option} takes a store directory, a database URL or a secrets.toml",
                )
            ) from exc
        except tomllib.TOMLDecodeError as exc:
            raise InfactError(Problem(text, f"is not valid TOML ({exc})")) from exc
        url = storage_url_from_secrets(secrets)
        if url is None:
            raise InfactError(
                Problem(
                    text, 'has no [connections.infact] section with url = "postgresql://…"', key="connections.infact"
                )
            )
        return open_storage(url)
    if must_exist and not _URL.match(text) and not (Path(text) / "shards").is_dir():
        # TinyDBStorage would create an empty store here and "migrate" nothing.
        raise InfactError(
            Problem(text, f"is not an INFACT store (a directory with shards/ inside); check the {option} path")
        )
    return open_storage(text)


def _label(spec: Any) -> str:
    if isinstance(spec, (str, os.PathLike)):
        from infact.stores.sql.store import mask_url

        return mask_url(str(spec)) if _URL.match(str(spec)) else str(spec)
    return getattr(spec, "url", None) or type(spec).__name__


def migrate(
    source: str | os.PathLike | Storage, target: str | os.PathLike | Storage, *, study: str | None = None
) -> dict:
    """Copy (a study's) records from `source` to `target`, then verify.

    Stores may be given open (Storage objects) or by path/URL (opened and closed here).
    Returns {"study", "source_records", "copied", "already_present", "target_records",
    "per_kind": {kind: {"source": n, "target": n}}}; raises InfactError if any source
    record is missing from the target or differs there.
    """
    if (
        isinstance(source, (str, os.PathLike))
        and isinstance(target, (str, os.PathLike))
        and str(source).strip() == str(target).strip()
    ):
        raise InfactError(Problem(str(source), "--from and --to are the same store"))
    opened: list[Storage] = []
    try:
        src = source
        if isinstance(source, (str, os.PathLike)):
            src = open_store(source, must_exist=True, option="--from")
            opened.append(src)
        dst = target
        if isinstance(target, (str, os.PathLike)):
            dst = open_store(target, must_exist=False, option="--to")
            opened.append(dst)

        records = src.records(study=study)
        if not records:
            studies = sorted({r["study"] for r in src.records()}) if study else []
            found = f"; studies there: {', '.join(studies)}" if studies else ""
            what = f"no records of study {study!r}" if study else "no records"
            raise InfactError(Problem(_label(source), f"has {what}{found}"))

        append_many = getattr(dst, "append_many", None)  # SQL: few round trips
        copied = append_many(records) if append_many else sum(1 for r in records if dst.append(r))

        return _verify(records, copied, dst, study, _label(target))
    finally:
        for store in opened:
            store.close()


def _verify(records: list[dict], copied: int, dst: Storage, study: str | None, target: str) -> dict:
    """The copy's summary per kind; raises InfactError when a source record is missing from the target or differs."""
    stored = {r["key"]: r for r in dst.records(study=study)}
    missing = [r["key"] for r in records if r["key"] not in stored]
    differing = [r["key"] for r in records if r["key"] in stored and stored[r["key"]] != r]
    source_kinds = Counter(r["kind"] for r in records)
    found_kinds = Counter(r["kind"] for r in records if r["key"] in stored)
    target_kinds = Counter(r["kind"] for r in stored.values())
    summary = {
        "study": study,
        "source_records": len(records),
        "copied": copied,
        "already_present": len(records) - copied,
        "target_records": len(stored),
        "per_kind": {
            k: {"source": source_kinds[k], "target": target_kinds[k]}
            for k in sorted(set(source_kinds) | set(target_kinds))
        },
    }
    problems = [
        Problem(target, f"has {found_kinds[k]} of the {n} {k!r} records of the source")
        for k, n in sorted(source_kinds.items())
        if found_kinds[k] != n
    ]
    if differing:
        problems.append(
            Problem(
                target,
                f"already holds {len(differing)} record(s) with the same key but "
                f"different content (first: {differing[0]}); it is not a copy of "
                "this source — migrate into an empty store",
            )
        )
    if problems or missing:
        raise InfactError(problems)
    return summary
