"""The process's DBOS: configured once, on the database durable runs are kept in, and launched.

DBOS is a library with one instance per process. :func:`launch` makes it with
the system database (``--db``, ``$AGENTKIT_DURABLE_DB``, else the SQLite file
under the data directory) and launches it. Launching also recovers: every run
this executor left pending (its process died) is executed again from its
start, in the background (see :func:`agentkit_durable.recover`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from dbos import DBOS

from ._database import default_database_url

__all__ = ["APP", "launch", "launched_url", "shutdown"]

#: The DBOS application durable runs belong to (its queues are this application's).
APP = "agentkit"

_launched: list[str] = []  # the URL DBOS was launched with in this process, if it was


def launch(database_url: str | None = None, *, environ: Mapping[str, str] | None = None) -> str:
    """Configure and launch DBOS on ``database_url`` (default: :func:`default_database_url`); returns the URL.

    Register every :class:`~agentkit_durable.DurableAgent` first: the runs
    recovered at launch need theirs. Launching again on the same URL does nothing.

    :raises ValueError: DBOS already runs on another database in this process.
    """
    url = database_url or default_database_url(os.environ if environ is None else environ)
    if _launched:
        if _launched[0] != url:
            raise ValueError("durable runs already use another database in this process; "
                             "call agentkit_durable.shutdown() first")
        return url
    if url.startswith("sqlite:///"):  # DBOS creates the file, not its folder
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    from . import _workflow  # the workflow is registered before DBOS is made

    DBOS(config={"name": APP, "system_database_url": url, "log_level": "WARNING",
                 "application_version": _workflow.APPLICATION_VERSION})
    DBOS.launch()
    _launched.append(url)
    return url


def launched_url() -> str | None:
    """The database DBOS was launched on in this process, or ``None``."""
    return _launched[0] if _launched else None


def shutdown() -> None:
    """Stop DBOS in this process (its runs in flight stay pending, for a later launch to recover)."""
    if _launched:
        DBOS.destroy(destroy_registry=False)
        _launched.clear()
