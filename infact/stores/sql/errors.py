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


@contextmanager
def database_errors(url: str, password: str | None, doing: str, *, closed: bool, lock_timeout: float) -> Iterator[None]:
    """`url` is the masked URL; `doing` completes "cannot …"."""
    if closed:
        raise StorageError(Problem(url, f"cannot {doing}: the store was closed"))
    try:
        yield
    except StorageError:
        raise
    except (sa_exc.OperationalError, sa_exc.InterfaceError, psycopg.OperationalError, psycopg.InterfaceError) as exc:
        if getattr(getattr(exc, "orig", exc), "sqlstate", None) == "55P03":  # lock_not_available
            raise StorageError(
                Problem(
                    url,
                    f"cannot {doing}: another process held the study lock for over {lock_timeout:g} s; "
                    "check for a stuck `python -m infact` or app process",
                )
            ) from exc
        raise StoreUnavailable(
            Problem(
                url,
                f"cannot {doing}: {reason(exc, password)}; check that the database "
                "server is running and reachable from this machine and that host, port, "
                f"user and password are right — {SECRETS_HINT}",
            )
        ) from exc
    except (sa_exc.DataError, psycopg.DataError) as exc:
        raise StorageError(
            Problem(
                url,
                f"cannot {doing}: {reason(exc, password)}; PostgreSQL refused a "
                "value (for example a \\u0000 character in a text)",
            )
        ) from exc
    except (sa_exc.DBAPIError, psycopg.Error) as exc:
        raise StorageError(
            Problem(
                url,
                f"cannot {doing}: {reason(exc, password)}; the database user needs "
                "rights to create and write this table (or pass a schema it owns)",
            )
        ) from exc
    except sa_exc.TimeoutError as exc:  # every pooled connection busy (or stuck on a server gone away)
        raise StoreUnavailable(Problem(url, f"cannot {doing}: {reason(exc, password)}")) from exc
    except sa_exc.SQLAlchemyError as exc:
        raise StorageError(Problem(url, f"cannot {doing}: {reason(exc, password)}")) from exc
