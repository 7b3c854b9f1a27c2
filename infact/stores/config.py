"""Which store a deployment uses.

Order: the `INFACT_DB` environment variable (a TinyDB directory or a database
URL); else Streamlit secrets `[connections.infact]` (a PostgreSQL URL — what
Community Cloud needs); else the embedded TinyDB directory `db/<study id>`
beside the app. The settings themselves are defined in `infact/deployment.py`;
plain Python: the UI passes `st.secrets` in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from infact.deployment import CONNECTION, DB_ENV, REPO, default_tinydb_path
from infact.errors import InfactError, Problem

__all__ = ["REPO", "default_tinydb_path", "store_target", "resolve_store", "check_store_path", "on_community_cloud"]

URL = re.compile(r"^[a-z][a-z0-9+]*://", re.IGNORECASE)
# Suffixes of single files people pass by mistake; a TinyDB store is a directory.
FILE_SUFFIXES = {".json", ".jsonl", ".db", ".sqlite", ".sqlite3", ".csv", ".txt", ".toml", ".xlsx"}


def store_target(
    study_id: str, env: Mapping[str, str] | None = None, secrets: Mapping | None = None
) -> tuple[str, str]:
    """(target for open_storage, where it came from): INFACT_DB, `[connections.infact]`, `db/<study id>/`."""
    value = DB_ENV.read(env, secrets)
    if value:
        return value, f"{DB_ENV.name} environment variable"
    if CONNECTION.read(env, secrets) is not None:
        from infact.stores.sql.urls import storage_url_from_secrets  # checks the section and builds the URL

        url = storage_url_from_secrets(secrets)
        if url:
            return url, f"{CONNECTION.name.split()[0]} in secrets"
    return str(default_tinydb_path(study_id)), "embedded TinyDB (default)"


def resolve_store(
    study_id: str, secrets: Mapping | None = None, env: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(target for open_storage, where it came from); a configured path naming a file is refused."""
    target, source = store_target(study_id, env, secrets)
    return check_store_path(target, source), source


def check_store_path(target: str, option: str = "--db") -> str:
    """Refuse a store path that names a file: TinyDB would otherwise make a directory called `x.json`."""
    text = str(target).strip()
    if URL.match(text):
        return text
    path = Path(text)
    if path.is_file() or (not path.exists() and path.suffix.lower() in FILE_SUFFIXES):
        raise InfactError(
            Problem(
                text,
                f"looks like a file; a store ({option}) is a TinyDB directory (e.g. db/my-study, "
                "created if missing) or a database URL (postgresql://…)",
            )
        )
    return text


def on_community_cloud(env: Mapping[str, str] | None = None) -> bool:
    """Best-effort: Community Cloud runs apps from /mount/src as the 'appuser' user."""
    env = os.environ if env is None else env
    return (
        Path("/mount/src").is_dir() or env.get("HOSTNAME", "").startswith("streamlit") or env.get("USER") == "appuser"
    )
