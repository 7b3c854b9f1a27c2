"""Which store a deployment uses.

Order: the `INFACT_DB` environment variable (a TinyDB directory or a database
URL); else Streamlit secrets `[connections.infact]` (a PostgreSQL URL — what
Community Cloud needs); else the embedded TinyDB directory `db/<study id>`
beside the app. Plain Python: the UI passes `st.secrets` in.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

REPO = Path(__file__).resolve().parents[2]


def default_tinydb_path(study_id: str) -> Path:
    return REPO / "db" / study_id


def resolve_store(study_id: str, secrets: Mapping | None = None, env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(target for open_storage, where it came from)."""
    env = os.environ if env is None else env
    if env.get("INFACT_DB"):
        return env["INFACT_DB"], "INFACT_DB environment variable"
    if secrets:
        from infact.stores.sql import storage_url_from_secrets

        url = storage_url_from_secrets(secrets)
        if url:
            return url, "[connections.infact] in secrets"
    return str(default_tinydb_path(study_id)), "embedded TinyDB (default)"


def on_community_cloud(env: Mapping[str, str] | None = None) -> bool:
    """Best-effort: Community Cloud runs apps from /mount/src as the 'appuser' user."""
    env = os.environ if env is None else env
    return Path("/mount/src").is_dir() or env.get("HOSTNAME", "").startswith("streamlit") or env.get("USER") == "appuser"
