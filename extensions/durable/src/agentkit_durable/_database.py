"""Where durable runs are kept: the system database's URL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from agentkit.host.sessions import data_dir

from .errors import DatabaseUnavailable

__all__ = ["DATABASE_ENV", "DatabaseUnavailable", "default_database_url", "unavailable"]

#: The environment variable naming the system database (``sqlite:///...`` or ``postgresql://...``).
DATABASE_ENV = "AGENTKIT_DURABLE_DB"


def default_database_url(environ: Mapping[str, str]) -> str:
    """``$AGENTKIT_DURABLE_DB``, else a SQLite file ``durable.sqlite`` under the data directory (no server)."""
    url = environ.get(DATABASE_ENV)
    if url:
        return url
    return "sqlite:///" + str(Path(data_dir(environ)) / "durable.sqlite")


def unavailable(url: str, exc: BaseException) -> DatabaseUnavailable:
    """The error to raise for ``exc``, met using the database ``url``: one line, without its password."""
    from ._runs_db import failure

    return DatabaseUnavailable(failure(url, exc))
