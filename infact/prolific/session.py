"""A study, its store and a Prolific client: what every operation works on."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from infact.errors import InfactError, Problem
from infact.prolific.client import ProlificClient, resolve_token
from infact.storage import Storage
from infact.stores import prolific_records as rec
from infact.study.loader import Study


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Session:
    study: Study
    storage: Storage
    client: ProlificClient
    clock: Callable[[], datetime] = field(default=_utc_now)

    @property
    def study_key(self) -> str:
        return self.study.id

    def records(self) -> list[dict]:
        """The study's `_prolific` records (read afresh: another process may have written some)."""
        return self.storage.records(study=self.study.id, participant=rec.PARTICIPANT)

    def put(self, kind: str, ident: str, /, **fields) -> bool:
        """Store one `_prolific` record; False when its key was already stored (the step was done)."""
        return self.storage.append(rec.record(self.study.id, kind, ident, self.clock(), **fields))

    def prolific_id(self, given: str | None = None) -> str:
        """The Prolific study id: the one given, else the one `create` recorded."""
        found = given or rec.study_id(self.records())
        if not found:
            raise InfactError(
                Problem(
                    "store",
                    f"no Prolific study is recorded for study {self.study.id!r}: run `infact prolific create` "
                    "first, or pass --prolific-id",
                    key="prolific_study",
                )
            )
        return found


def open_session(
    study: Study,
    storage: Storage,
    *,
    base_url: str | None = None,
    environ: Mapping[str, str] | None = None,
    secrets: Mapping[str, Any] | None = None,
    clock: Callable[[], datetime] = _utc_now,
    **client_options,
) -> Session:
    """A session whose client reads the token named by `[prolific] token_env` (environment, then secrets)."""
    cfg = study.config.prolific
    token = resolve_token(cfg.token_env, os.environ if environ is None else environ, secrets or {})
    client = ProlificClient(token, base_url or cfg.base_url, **client_options)
    return Session(study, storage, client, clock)
