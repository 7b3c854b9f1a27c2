"""Database failures, from SQLAlchemy or straight from psycopg (infact.stores.sql.fast), become
a StorageError that names the store's URL (password masked), what was being done and a fix; a server
that is down or unreachable is a StoreUnavailable (an outage: infact/stores/outage.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from sqlalchemy import exc as sa_exc

from infact.errors import Problem
from infact.stores.records import StorageError, StoreUnavailable
from infact.stores.sql.urls import SECRETS_HINT


def reason(exc: BaseException, password: str | None) -> str:
    """The driver's message on one line, without the password, at most 300 characters."""
    text = " ".join(str(getattr(exc, "orig", None) or exc).split())
    if password:
        text = text.replace(password, "***")
    return text[:300]


# What a driver's failure means, in the order an `except` chain would test it (the first match wins): the
# exception types, what INFACT raises (StoreUnavailable: the database is down or unreachable, told to participants as
# paused saving; StorageError: a real refusal) and the fix that follows the driver's own reason.
FAILURES: tuple[tuple[tuple[type[BaseException], ...], type[StorageError], str], ...] = (
    (
        (sa_exc.OperationalError, sa_exc.InterfaceError, psycopg.OperationalError, psycopg.InterfaceError),
        StoreUnavailable,
        "check that the database server is running and reachable from this machine and that host, port, "
        f"user and password are right — {SECRETS_HINT}",
    ),
    (
        (sa_exc.DataError, psycopg.DataError),
        StorageError,
        "PostgreSQL refused a value (for example a \\u0000 character in a text)",
    ),
    (
        (sa_exc.DBAPIError, psycopg.Error),
        StorageError,
        "the database user needs rights to create and write this table (or pass a schema it owns)",
    ),
    ((sa_exc.TimeoutError,), StoreUnavailable, ""),  # every pooled connection busy (or stuck on a server gone away)
    ((sa_exc.SQLAlchemyError,), StorageError, ""),
)


@contextmanager
def database_errors(url: str, password: str | None, doing: str, *, closed: bool, lock_timeout: float) -> Iterator[None]:
    """`url` is the masked URL; `doing` completes "cannot …"."""
    if closed:
        raise StorageError(Problem(url, f"cannot {doing}: the store was closed"))
    try:
        yield
    except StorageError:
        raise
    except (sa_exc.SQLAlchemyError, psycopg.Error) as exc:
        raise translated(exc, url, password, doing, lock_timeout) from exc


def translated(exc: BaseException, url: str, password: str | None, doing: str, lock_timeout: float) -> StorageError:
    """The StorageError (or StoreUnavailable) that names the store, what was being done and the fix."""
    if getattr(getattr(exc, "orig", exc), "sqlstate", None) == "55P03":  # lock_not_available
        return StorageError(
            Problem(
                url,
                f"cannot {doing}: another process held the study lock for over {lock_timeout:g} s; "
                "check for a stuck `python -m infact` or app process",
            )
        )
    error, fix = next((error, fix) for kinds, error, fix in FAILURES if isinstance(exc, kinds))
    return error(Problem(url, f"cannot {doing}: {reason(exc, password)}" + (f"; {fix}" if fix else "")))
