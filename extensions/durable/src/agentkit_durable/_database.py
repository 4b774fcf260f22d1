"""Where durable runs are kept: the system database's URL."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
from collections.abc import Mapping
from pathlib import Path

from agentkit.host.sessions import data_dir

from .errors import DatabaseUnavailable

__all__ = ["DATABASE_ENV", "DatabaseUnavailable", "default_database_url", "private_sqlite", "unavailable",
           "use_write_ahead_log"]

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


def private_sqlite(url: str, *, create: bool) -> Path | None:
    """The file of a ``sqlite:///`` system database, checked to be the user's alone; ``None`` for other URLs.

    DBOS unpickles what its system database holds (a run's inputs, its steps'
    outputs, its events): whoever can write the file runs code in every process
    that reads it, and the file holds the runs' prompts and results. So, as for
    the data directory (decision 0027, OpenSSH's ``StrictModes``), an existing
    folder or file owned by another user or writable by group or others is
    refused; with ``create``, a missing folder is made 0700 and a missing file
    0600 (SQLite gives its journal files the file's mode).

    :raises UnsafeDataDirError: naming the folder or file and the fix.
    :raises DatabaseUnavailable: the folder cannot be created.
    """
    if not url.startswith("sqlite:///"):
        return None
    from agentkit.host.errors import UnsafeDataDirError
    from agentkit.host.sessions._paths import check_private, private_dir

    path = Path(url.removeprefix("sqlite:///"))
    try:
        private_dir(path.parent) if create else check_private(path.parent)
        if create and not path.parent.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
    except OSError as exc:
        raise DatabaseUnavailable(f"the durable runs' database {url} cannot be created: {path.parent}: "
                                  f"{exc.strerror}; pass --db (or set ${DATABASE_ENV}) with a path in a folder "
                                  "you can write") from None
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if create:
            with contextlib.suppress(FileExistsError):
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        return path
    except OSError:
        return path  # not a file that can be read: DBOS says so, in one line
    if hasattr(os, "geteuid") and (info.st_uid != os.geteuid() or info.st_mode & 0o022):
        raise UnsafeDataDirError(
            f"{path} is another user's or writable by group or others (mode {stat.filemode(info.st_mode)}), and "
            "a durable runs' database is code to whoever reads it (DBOS unpickles it); run 'chmod go-w "
            f"{path}' (and chown it to yourself), or pass --db with a file of your own")
    return path


def use_write_ahead_log(path: Path) -> None:
    """Put the SQLite file ``path`` (:func:`private_sqlite`'s) in WAL mode, unless that would weaken its commits.

    DBOS leaves SQLite in its rollback journal, where each commit syncs the
    journal and the database (several fsyncs); in WAL mode a commit appends to
    the log and syncs it once. The mode is kept in the file, so DBOS's
    connections find it. Durability is unchanged only while each commit still
    syncs the log (``synchronous=FULL``; SQLite's documentation of ``PRAGMA
    synchronous``: in WAL mode with FULL a commit survives a power loss, with
    NORMAL it may roll back). DBOS sets no ``synchronous``, so its connections
    take the library's default for WAL; a build whose default is weaker keeps
    the rollback journal. A file another process holds (busy) keeps its mode
    too: both are correct, the log is only faster. SQLite gives the log and its
    index (``-wal``, ``-shm``) the database file's mode: the user's alone.
    """
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(path, timeout=5)) as connection:
        if connection.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
            return
        with contextlib.closing(sqlite3.connect(path, timeout=5)) as fresh:  # as each of DBOS's connections opens
            fresh.execute("PRAGMA journal_mode").fetchone()  # reads the file: the WAL default applies from here
            synchronous = fresh.execute("PRAGMA synchronous").fetchone()[0]
        if synchronous < 2:  # FULL is 2 (EXTRA 3): anything less may lose a commit that returned
            connection.execute("PRAGMA journal_mode=DELETE")
