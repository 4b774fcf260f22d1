"""Where durable runs are kept: the system database's URL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agentkit.host.sessions import data_dir

__all__ = ["DATABASE_ENV", "DatabaseUnavailable", "default_database_url", "unavailable"]

#: The environment variable naming the system database (``sqlite:///...`` or ``postgresql://...``).
DATABASE_ENV = "AGENTKIT_DURABLE_DB"


def default_database_url(environ: Mapping[str, str]) -> str:
    """``$AGENTKIT_DURABLE_DB``, else a SQLite file ``durable.sqlite`` under the data directory (no server)."""
    url = environ.get(DATABASE_ENV)
    if url:
        return url
    return "sqlite:///" + str(Path(data_dir(environ)) / "durable.sqlite")


class DatabaseUnavailable(Exception):
    """The system database cannot be used (unreachable, refused, unwritable); the message hides its password."""


def unavailable(url: str, exc: BaseException) -> DatabaseUnavailable:
    """The error to raise for ``exc``, met using the database ``url``: one line, without its password."""
    from agentkit.host.sessions._selection import redacted, without_password

    lines = str(exc).splitlines()
    detail = without_password(lines[0], url) if lines else ""
    return DatabaseUnavailable(f"the durable runs' database {redacted(url)} cannot be used: "
                               f"{type(exc).__name__}{': ' + detail if detail else ''}")
