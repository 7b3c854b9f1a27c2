"""Database URLs: where they come from (Streamlit secrets), how they are read, and how
they are shown (never with the password)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL, make_url

from infact.errors import Problem
from infact.stores.records import StorageError

SECRETS_HINT = (
    'set url = "postgresql://USER:PASSWORD@HOST:5432/DATABASE" under [connections.infact] '
    "in .streamlit/secrets.toml (or pass it with --db or the INFACT_DB environment variable)"
)
_PASSWORD_IN_URL = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")


def mask_url(url: str | URL) -> str:
    """The URL with its password replaced by ***, safe for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # unparseable: mask by pattern
        return _PASSWORD_IN_URL.sub(r"\1***@", str(url))


def normalise_url(url: str | URL) -> URL:
    """Parse a database URL; every PostgreSQL spelling goes through psycopg 3."""
    shown = mask_url(url)
    try:
        parsed = make_url(str(url).strip() if isinstance(url, str) else url)
    except (sa_exc.ArgumentError, ValueError) as exc:
        raise StorageError(Problem(shown, f"is not a valid database URL ({exc}); {SECRETS_HINT}")) from exc
    backend = parsed.get_backend_name()
    if backend in ("postgres", "postgresql"):
        # postgres:// (Heroku, Supabase), plain postgresql:// and psycopg2 URLs
        # copied from Streamlit's docs all use the driver that is installed.
        parsed = parsed.set(drivername="postgresql+psycopg")
        if not parsed.database:
            raise StorageError(Problem(shown, f"names no database (…/DATABASE at the end); {SECRETS_HINT}"))
    elif backend != "sqlite":
        raise StorageError(
            Problem(
                shown,
                f"uses {backend!r}; INFACT stores answers in PostgreSQL "
                f"(postgresql://…) or a TinyDB directory — {SECRETS_HINT}",
            )
        )
    return parsed


def storage_url_from_secrets(secrets: Mapping, name: str = "infact") -> str | None:
    """The database URL in `[connections.<name>]` of Streamlit secrets, or None if there is none.

    Accepts `url = "…"` or Streamlit SQLConnection's split form: `dialect`, `driver`,
    `host`, `port`, `database`, `username`, `password`, `query`. Pass `st.secrets`.
    """
    where = f"[connections.{name}]"
    try:
        section = secrets["connections"][name]
    except (
        KeyError,
        TypeError,
        FileNotFoundError,
    ):  # no secrets.toml (Streamlit raises a FileNotFoundError) or no section
        return None
    if not isinstance(section, Mapping):
        raise StorageError(
            Problem(".streamlit/secrets.toml", f"{where} must be a table; {SECRETS_HINT}", key=f"connections.{name}")
        )
    if "url" in section:
        url = str(section["url"] or "").strip()
        if not url:
            raise StorageError(
                Problem(
                    ".streamlit/secrets.toml", f"url in {where} is empty; {SECRETS_HINT}", key=f"connections.{name}.url"
                )
            )
        return url
    dialect = section.get("dialect")
    if not dialect:
        raise StorageError(
            Problem(
                ".streamlit/secrets.toml",
                f"{where} needs url, or dialect, host, port, database, username and password; {SECRETS_HINT}",
                key=f"connections.{name}",
            )
        )
    driver = section.get("driver")
    port = section.get("port")
    try:
        port = int(port) if port not in (None, "") else None
    except (TypeError, ValueError):
        raise StorageError(
            Problem(
                ".streamlit/secrets.toml",
                f"port in {where} must be a number, got {port!r}",
                key=f"connections.{name}.port",
            )
        ) from None
    url = URL.create(
        f"{dialect}+{driver}" if driver else str(dialect),
        username=section.get("username"),
        password=section.get("password"),
        host=section.get("host"),
        port=port,
        database=section.get("database"),
        query={str(k): str(v) for k, v in dict(section.get("query") or {}).items()},
    )
    return url.render_as_string(hide_password=False)
