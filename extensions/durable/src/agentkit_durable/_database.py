"""Where durable runs are kept: the system database's URL."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from agentkit.host.sessions import data_dir

from .errors import DatabaseUnavailable

__all__ = ["DATABASE_ENV", "DatabaseUnavailable", "default_database_url", "unavailable", "use_write_ahead_log"]

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


def use_write_ahead_log(path: Path) -> None:
    """Put the SQLite file ``path`` in WAL mode (made if missing), unless that would weaken its commits.

    DBOS leaves SQLite in its rollback journal, where each commit syncs the
    journal and the database (several fsyncs); in WAL mode a commit appends to
    the log and syncs it once. The mode is kept in the file, so DBOS's
    connections find it. Durability is unchanged only while each commit still
    syncs the log (``synchronous=FULL``; SQLite's documentation of ``PRAGMA
    synchronous``: in WAL mode with FULL a commit survives a power loss, with
    NORMAL it may roll back). DBOS sets no ``synchronous``, so its connections
    take the library's default for WAL; a build whose default is weaker keeps
    the rollback journal. A file another process holds (busy) keeps its mode
    too: both are correct, the log is only faster.
    """
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(path, timeout=5)) as connection:
        if connection.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
            return
        with contextlib.closing(sqlite3.connect(path, timeout=5)) as fresh:  # as each of DBOS's connections opens
            fresh.execute("PRAGMA journal_mode").fetchone()  # reads the file: the WAL default applies from here
            synchronous = fresh.execute("PRAGMA synchronous").fetchone()[0]
        if synchronous < 2:  # FULL is 2 (EXTRA 3): anything less may lose a commit that returned
            connection.execute("PRAGMA journal_mode=DELETE")
